package swimlane

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tallyprof/tally/capture"
)

// task is one kernel execution joined from the records (spec §7).
type task struct {
	core                int64
	token, reg          uint64
	start, end, receive uint64
	dispatch            uint64 // AICPU dispatch_cycles; 0 when none
	hasAICPU            bool
}

// dispatch converts one dispatch dir.
func (r *reader) dispatch(d dispatchDir) {
	dirs := r.c.Accounting.InputFor("dispatch dirs")
	dirs.Read++
	p, how := r.resolve(d)

	// Name maps are never a name source; each is listed, cross-checked.
	maps, _ := filepath.Glob(filepath.Join(d.path, "name_map*.json"))
	for _, m := range maps {
		r.count(m)
		r.gap(IgnoredNameMap, "", "name_map*.json files in dispatch dirs: never used for names (they may be stale, from another run or program); each dispatch is named from its own program's kernel_config.py").
			Add(capture.Item{What: crossCheck(m, p), Where: m})
	}

	r.otherFiles(d)
	for _, name := range []string{"dispatch_program.json", "deps.json", "chip_swimlane_records.json"} {
		r.count(filepath.Join(d.path, name))
	}
	recPath := filepath.Join(d.path, "chip_swimlane_records.json")
	if _, err := os.Stat(recPath); err != nil {
		g := r.gap(NoRecords, "", "dispatch dirs without chip_swimlane_records.json: not converted (the timing pass did not run or did not write them)")
		g.Add(capture.Item{What: "no records", Where: d.path})
		dirs.Lose(g, "no chip_swimlane_records.json", 1, d.label())
		r.dispatches = append(r.dispatches, [2]string{d.label(), "no records"})
		return
	}
	var rec records
	if err := decodeFile(recPath, &rec); err != nil {
		g := r.gap(capture.SkippedInput, "", "records files that could not be read: their dispatches are not in the tables")
		g.Add(capture.Item{What: err.Error(), Where: recPath})
		dirs.Lose(g, "records unreadable", 1, d.label())
		return
	}
	platform := rec.Metadata.Platform
	if platform == "" {
		platform = rec.Platform
	}
	if strings.HasSuffix(platform, "sim") {
		g := r.gap(NotConvertible, "", "dispatches recorded on a simulator platform: records without usable task metadata, not convertible (pypto skips them too)")
		g.Add(capture.Item{What: "platform " + platform, Where: recPath})
		dirs.Lose(g, "simulator platform: not convertible", 1, d.label())
		return
	}
	freq, ok := intOf(rec.Metadata.ClockFreqHz)
	if rec.Level == nil || *rec.Level < 1 || !ok || freq <= 0 {
		g := r.gap(capture.SkippedInput, "", "records files without a level or a positive metadata.clock_freq_hz: times cannot be converted, never assumed")
		g.Add(capture.Item{What: fmt.Sprintf("level %v, clock_freq_hz %q", rec.Level, rec.Metadata.ClockFreqHz), Where: recPath})
		dirs.Lose(g, "records without chip_swimlane_level or clock_freq_hz", 1, d.label())
		return
	}
	dirs.Used++
	r.converted++
	level := *rec.Level
	if len(rec.AICPUOrch) > 0 && len(rec.HostOrch) > 0 {
		r.gap(capture.InconsistentTrace, "", "records with both AICPU and host orchestrator phases (two clock domains): the phases are ignored; tasks use device cycles").
			Add(capture.Item{What: "both aicpu_orchestrator_phases and host_orchestrator_phases", Where: recPath})
	}
	r.hostCapture(&rec, recPath)
	r.unusedStreams(&rec, d)

	// The program (capture.Program) of this dispatch.
	var progName string
	switch {
	case p != nil && p.names() != nil:
		progName = p.name
		if how != "marker" {
			r.gap(InferredProgram, "", "dispatches without a program marker, attributed to the build's only program").
				Add(capture.Item{What: how, Where: d.label(), Program: p.name})
		}
	default:
		progName = d.label() // anonymous: labels rank<w>/d<k>:#<id>
		why := how
		if p != nil {
			why = "program " + p.name + ": " + p.why
		}
		r.gap(UnresolvedProgram, "", "dispatches whose program is unknown (no marker in a multi-program build, a marker naming an unknown program, or a program without a literal KERNELS table): every task is labelled rank<w>/d<k>:#<func_id>, never named from another program").
			Add(capture.Item{What: why, Where: d.label()})
	}
	prog := r.program(progName)
	if p != nil && p.names() != nil {
		p.used++
	}
	inst := r.runs[prog]
	r.runs[prog]++
	r.c.Programs[prog].Instances++

	var dep map[uint64][3]int64
	depPath := filepath.Join(d.path, "deps.json")
	if _, err := os.Stat(depPath); err != nil {
		r.gap(MissingDeps, "", "dispatches without deps.json (the graph pass did not run): the records carry no func_id, so their tasks are labelled <program>:#?").
			Add(capture.Item{What: "no deps.json", Where: d.label()})
	} else if dd, err := readDeps(depPath); err != nil {
		r.gap(capture.SkippedInput, "", "deps.json files that could not be read: their tasks are labelled <program>:#?").
			Add(capture.Item{What: err.Error(), Where: depPath})
	} else {
		dep = dd.ids
		r.unusedDeps(dd, d)
	}

	tasks := r.join(&rec, level, recPath, d)
	var table *Table
	if p != nil {
		table = p.names()
	}
	dd := capture.Dispatch{Program: prog, Instance: inst, Index: -1, Ordinal: -1}
	for i := range tasks {
		t := &tasks[i]
		kid, ambiguous := funcID(dep, t.token, coreType(rec.Metadata.CoreTypes, t.core))
		if ambiguous {
			r.gap(AmbiguousLane, progName, "AIV tasks with both AIV slots active and different kernel ids: named from AIV0, as the converter does").
				Add(capture.Item{What: fmt.Sprintf("task %s on core %d", taskLabel(t.token), t.core), Where: d.label(), Program: progName})
		}
		dd.Kernel = r.kernel(prog, progName, table, kid, d)
		dd.Queue = r.queue(d, t.core, coreType(rec.Metadata.CoreTypes, t.core))
		b, okb := toNS(t.start, freq)
		e, oke := toNS(t.end, freq)
		dd.Device = capture.Interval{Begin: b, End: e, Valid: okb && oke}
		if !dd.Device.Valid {
			r.gap(capture.UntimedInput, progName, "tasks whose cycle counts do not fit in int64 ns at the records' clock_freq_hz (corrupt counters): in the tables with an unknown duration, never guessed").
				Add(capture.Item{What: fmt.Sprintf("task %s on core %d: start %d end %d cycles", taskLabel(t.token), t.core, t.start, t.end), Where: d.label(), Program: progName})
		}
		dd.Launch, dd.Link = capture.Interval{}, capture.LinkNone
		if level >= 2 {
			dd.Link = capture.LinkNoLaunch
			if t.hasAICPU {
				dd.Link = capture.LinkLaunched
				lb, ok1 := toNS(t.dispatch, freq)
				le, ok2 := toNS(t.receive, freq)
				if ok1 && ok2 && t.dispatch > 0 && t.receive > 0 && lb <= le {
					dd.Launch = capture.Interval{Begin: lb, End: le, Valid: true}
				}
			}
		}
		r.sink.Dispatch(r.c, &dd)
		r.tasks++
	}
	state := "program " + progName + " (" + how + ")"
	r.dispatches = append(r.dispatches, [2]string{d.label(), fmt.Sprintf("%s, level %d, %d Hz, %d tasks", state, level, freq, len(tasks))})
}

// toNS converts counter cycles to ns exactly (128-bit product).
func toNS(cycles uint64, freq int64) (int64, bool) {
	hi, lo := bits.Mul64(cycles, 1_000_000_000)
	if hi >= uint64(freq) {
		return 0, false
	}
	q, _ := bits.Div64(hi, lo, uint64(freq))
	if q > math.MaxInt64 {
		return 0, false
	}
	return int64(q), true
}

func coreType(types []string, core int64) string {
	if core >= 0 && core < int64(len(types)) && types[core] == "aic" {
		return "aic"
	}
	return "aiv" // a core beyond the list is treated as aiv (spec §5)
}

// funcID resolves a task's func_id from deps.json by task id and core type
// (spec §7.2); -1 when unresolved.
func funcID(dep map[uint64][3]int64, token uint64, ct string) (int64, bool) {
	k, ok := dep[token]
	if !ok {
		return -1, false
	}
	if ct == "aic" {
		return k[0], false
	}
	if k[1] >= 0 {
		return k[1], k[2] >= 0 && k[2] != k[1]
	}
	return k[2], false
}

func taskLabel(token uint64) string {
	ring, local := (token>>32)&0xff, token&0xffffffff
	if ring == 0 {
		return fmt.Sprintf("t%d", local)
	}
	return fmt.Sprintf("r%dt%d", ring, local)
}

// program returns (creating) the capture program of name.
func (r *reader) program(name string) capture.ProgramID {
	key, _ := capture.CutName(name) // as the model holds it; AddProgram counts a cut once
	if id, ok := r.progIDs[key]; ok {
		return id
	}
	id := r.c.AddProgram(capture.Program{Name: name})
	r.progIDs[key] = id
	return id
}

// kernel returns the kernel of func_id id in the dispatch's own program:
// its table's name, or an anonymous label (spec §7.3).
func (r *reader) kernel(prog capture.ProgramID, progName string, t *Table, id int64, d dispatchDir) capture.KernelID {
	key := kernelKey{prog, id}
	if k, ok := r.kernels[key]; ok {
		return k
	}
	k := capture.Kernel{Program: prog, Category: "kernel"}
	if id >= 0 {
		k.ID, k.HasID = uint64(id), true
	}
	switch {
	case id < 0:
		k.Name = progName + ":#?"
	case t != nil && t.Names[id] != "":
		k.Name, k.Resolved = t.Names[id], true
	default:
		k.Name = fmt.Sprintf("%s:#%d", progName, id)
	}
	if !k.Resolved {
		what := "func_id absent from the program's kernel_config.py"
		if t != nil && t.source != "" {
			what = "func_id absent from " + t.source
		}
		switch {
		case id < 0:
			what = "func_id unresolved (no deps.json entry or no active slot)"
		case t == nil:
			what = "program unresolved: no table to name it from"
		}
		r.gap(capture.UnresolvedName, progName, "kernels no table of their own program names: shown as anonymous labels").
			Add(capture.Item{What: what, Kernel: k.Name, Program: progName, Where: d.label()})
	}
	kid := r.c.AddKernel(k)
	r.kernels[key] = kid
	return kid
}

// queue is (rank, core).
func (r *reader) queue(d dispatchDir, core int64, ct string) capture.QueueID {
	key := queueKey{d.rank, core}
	if q, ok := r.queues[key]; ok {
		return q
	}
	q := r.c.AddQueue(capture.Queue{Name: fmt.Sprintf("core %d (%s)", core, ct), Device: fmt.Sprintf("chip %d", d.rank), Rank: fmt.Sprint(d.rank)})
	r.queues[key] = q
	return q
}

// join builds the tasks of one records file (spec §7.1), counting every
// row used or skipped.
func (r *reader) join(rec *records, level int64, path string, d dispatchDir) []task {
	core := r.c.Accounting.InputFor("aicore rows")
	byKey := map[[2]uint64]int{}
	var tasks []task
	var rows []int // the aicore_tasks row of each task
	for i, row := range rec.AICore {
		v, where, ok := r.readRow(core, d, "aicore_tasks", i, row, 5)
		if !ok {
			continue
		}
		var rts uint64
		if len(row) >= 6 {
			if x, ok := uints(row[5:6], 1); ok {
				rts = x[0]
			}
		}
		t := task{core: int64(v[0]), token: v[1], reg: v[2], start: v[3], end: v[4]}
		if v[0] > 1<<31 {
			r.badRow(core, "malformed row (core_id out of range)", where)
			continue
		}
		if t.start == 0 || t.end == 0 || t.end < t.start {
			g := r.gap(capture.InvalidEvent, "", "tasks with a zero (not recorded) or reversed start/end: counted, never timed")
			g.Add(capture.Item{What: fmt.Sprintf("start %d end %d cycles", t.start, t.end), Where: where})
			core.Lose(g, "invalid times (zero = not recorded, or end before start)", 1, where)
			continue
		}
		k := [2]uint64{uint64(t.core), t.reg}
		if first, dup := byKey[k]; dup {
			r.duplicateRow(core, fmt.Sprintf("core %d reg_task_id %d repeats aicore_tasks[%d]", t.core, t.reg, rows[first]), "duplicate (core_id, reg_task_id)", where)
			continue
		}
		t.receive = t.start
		if rts > 0 && rts <= t.start {
			t.receive = t.start - rts
		}
		byKey[k] = len(tasks)
		rows = append(rows, i)
		tasks = append(tasks, t)
		core.Used++
	}
	if level >= 2 {
		cpu := r.c.Accounting.InputFor("aicpu rows")
		for i, row := range rec.AICPU {
			v, where, ok := r.readRow(cpu, d, "aicpu_tasks", i, row, 4)
			if !ok {
				continue
			}
			j, found := byKey[[2]uint64{v[0], v[1]}]
			if !found {
				g := r.gap(capture.DroppedRecords, "", "AICPU task rows whose AICore row is missing (the converter drops them: \"AICore buffer dropped on rotation\"): kernels that ran and are not in the tables")
				g.Add(capture.Item{What: fmt.Sprintf("core %d reg_task_id %d", v[0], v[1]), Where: where})
				cpu.Lose(g, "no AICore row (AICore buffer dropped on rotation)", 1, where)
				continue
			}
			if tasks[j].hasAICPU {
				r.duplicateRow(cpu, fmt.Sprintf("a second AICPU row for core %d reg_task_id %d", v[0], v[1]), "second AICPU row for one (core_id, reg_task_id)", where)
				continue
			}
			tasks[j].hasAICPU, tasks[j].dispatch = true, v[2]
			cpu.Used++
		}
		for i := range tasks {
			if !tasks[i].hasAICPU {
				r.gap(SchedulerTimingMissing, "", "AICore rows without their AICPU row (the converter omits them silently): kept as kernel executions, their dispatch timing unknown").
					Add(capture.Item{What: fmt.Sprintf("core %d task %s", tasks[i].core, taskLabel(tasks[i].token)), Where: d.label()})
			}
		}
	}
	// Per core in start order, so each core's track reads left to right.
	sort.SliceStable(tasks, func(i, j int) bool {
		if tasks[i].core != tasks[j].core {
			return tasks[i].core < tasks[j].core
		}
		return tasks[i].start < tasks[j].start
	})
	return tasks
}

// badRow counts a task row that does not parse: it may have been a kernel
// execution, so it is lost, listed in skipped_input.
// readRow counts row i of table read and returns its first n unsigned
// integers and where it is; a row without them is skipped as malformed.
func (r *reader) readRow(in *capture.InputCount, d dispatchDir, table string, i int, row []json.Number, n int) (v []uint64, where string, ok bool) {
	in.Read++
	where = fmt.Sprintf("%s %s[%d]", d.label(), table, i)
	if v, ok = uints(row, n); !ok {
		r.badRow(in, fmt.Sprintf("malformed row (fewer than %d unsigned integers)", n), where)
	}
	return v, where, ok
}

func (r *reader) badRow(in *capture.InputCount, why, where string) {
	g := r.gap(capture.SkippedInput, "", "records files that could not be read, and task rows that do not parse: their kernels are not in the tables")
	g.Add(capture.Item{What: why, Where: where})
	in.Lose(g, why, 1, where)
}

// duplicateRow counts a task row whose (core_id, reg_task_id) — a task's
// identity in its records file — was already read: the first is in the
// tables; the repeat is a duplicate_event, not a second kernel execution.
func (r *reader) duplicateRow(in *capture.InputCount, what, why, where string) {
	g := r.gap(capture.DuplicateEvent, "", "task rows repeating a (core_id, reg_task_id) already read in their records file: the first is in the tables, the repeats are not")
	g.Add(capture.Item{What: what + ": counted once", Where: where})
	in.Lose(g, why, 1, where)
}

// uints reads the first n columns as unsigned integers.
func uints(row []json.Number, n int) ([]uint64, bool) {
	if len(row) < n {
		return nil, false
	}
	out := make([]uint64, n)
	for i := range n {
		v, ok := idOf(row[i])
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// hostCapture states the producer's own capture status and drops.
func (r *reader) hostCapture(rec *records, path string) {
	hc := rec.Metadata.HostCapture
	if hc == nil {
		return
	}
	if hc.DroppedRecords != nil && *hc.DroppedRecords > 0 {
		g := r.gap(capture.DroppedRecords, "", "records the producer says it dropped (host_capture.dropped_records)")
		before := g.Count
		g.Add(capture.Item{What: fmt.Sprintf("%d records dropped (status %q)", *hc.DroppedRecords, hc.Status), Where: path})
		// Saturate: counts from several files must not wrap to a negative
		// total, which would read as complete.
		g.Count = capture.SatAdd(before, *hc.DroppedRecords)
	} else if hc.Status != "" && hc.Status != "complete" {
		r.gap(capture.TruncatedInput, "", "captures the producer did not mark complete (host_capture.status)").
			Add(capture.Item{What: fmt.Sprintf("status %q %s", hc.Status, hc.Error), Where: path})
	}
}

// count adds a file's size to the bytes the run's input holds.
func (r *reader) count(path string) {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		r.c.Source.Bytes += st.Size()
	}
}
