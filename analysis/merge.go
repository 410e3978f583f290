package analysis

import (
	"fmt"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// Merging the inputs of a run: programs are matched by name and unit,
// kernels by list, name and category within a program; the capture model
// says what adding programs' runs and gap sizes means (capture/merge.go).

func init() {
	// A README next to the traces does not make a run incomplete; it is
	// still listed.
	capture.RegisterNote(capture.SkippedFile)
}

type progKey struct{ name, unit string }

type kernKey struct {
	prog           int
	list, name, ct string
}

type kacc struct {
	row         KernelRow
	minMaxKnown bool
	hasMinMax   bool
}

// merge builds the merged view of the run's inputs: Whole and Tables.
func (run *Run) merge() {
	w := &capture.Capture{Source: capture.Source{Path: units.Plural(int64(len(run.Inputs)), "input", "inputs"), Format: "many"}}
	run.Whole = w
	progs := map[progKey]int{}
	kerns := map[kernKey]*kacc{}
	var order []*kacc
	var tables []ProgramTable
	ok, empty := 0, 0
	var clock, fallback *capture.Clock
	mixed := false
	for i := range run.Inputs {
		r := &run.Inputs[i]
		if r.Err != nil || r.Capture == nil {
			continue
		}
		ok++
		c := r.Capture
		w.Source.Bytes += c.Source.Bytes
		if c.Accounting.CountOf(capture.EmptyCapture) > 0 {
			empty++
		}
		switch {
		case c.Accounting.CountOf(capture.EmptyCapture) > 0:
			// An empty input has no times to compare: its "no clock" does
			// not make the others' one clock mixed.
			if fallback == nil {
				k := c.Clock
				fallback = &k
			}
		case clock == nil:
			k := c.Clock
			clock = &k
		case !clock.SameAs(c.Clock):
			mixed = true
		}
		for _, pt := range r.Tables.Programs {
			key := progKey{pt.Program.Name, pt.Clock.Unit}
			pi, seen := progs[key]
			if !seen {
				pi = len(w.Programs)
				progs[key] = pi
				pc := pt.Clock
				w.AddProgram(capture.Program{Name: pt.Program.Name, Clock: &pc})
				tables = append(tables, ProgramTable{ID: capture.ProgramID(pi), Clock: pt.Clock})
			}
			w.Programs[pi].AddRuns(pt.Program)
			for _, kr := range pt.Kernels {
				kk := kernKey{pi, kr.Kernel.List, kr.Kernel.Name, kr.Kernel.Category}
				a := kerns[kk]
				if a == nil {
					k := kr.Kernel
					k.Program = capture.ProgramID(pi)
					id := w.AddKernel(k)
					a = &kacc{row: KernelRow{ID: id, Kernel: k}, minMaxKnown: true}
					kerns[kk] = a
					order = append(order, a)
				}
				a.add(&kr)
			}
		}
	}
	if clock == nil {
		clock = fallback // every input empty
	}
	if !mixed {
		// One clock for all: stated once, not per program.
		for i := range w.Programs {
			w.Programs[i].Clock = nil
		}
	}
	if clock != nil {
		w.Clock = *clock
		w.Clock.Description = "each input's own clock (stated in its section); merged totals add durations in " + unitText(clock.Unit)
		if mixed {
			w.Clock = capture.Clock{Domain: "mixed", Unit: clock.Unit, Timed: clock.Timed,
				Description: "inputs on different clocks (stated in each section); durations are added per program and unit, times are not compared across inputs"}
		}
	}
	for _, a := range order {
		a.finish()
		pt := &tables[a.row.Kernel.Program]
		pt.Kernels = append(pt.Kernels, a.row)
		pt.Dispatches = capture.SatAdd(pt.Dispatches, a.row.Dispatches)
		pt.Timed = capture.SatAdd(pt.Timed, a.row.Timed)
		pt.Total = capture.SatAdd(pt.Total, a.row.Total)
	}
	for i := range tables {
		pt := &tables[i]
		pt.Program = w.Programs[i]
		pt.Order()
	}
	run.Tables = &Tables{Programs: tables, Ops: run.mergeOps()}
	run.account(ok, empty)
	Size(w, run.Tables)
}

func unitText(u string) string {
	if u == "" {
		return "(untimed)"
	}
	return u
}

func (a *kacc) add(k *KernelRow) {
	r := &a.row
	if k.Timed > 0 {
		switch {
		case !k.MinMaxKnown:
			a.minMaxKnown = false
		case !a.hasMinMax:
			r.Min, r.Max, a.hasMinMax = k.Min, k.Max, true
		default:
			r.Min, r.Max = min(r.Min, k.Min), max(r.Max, k.Max)
		}
	}
	r.Kernel.Resolved = r.Kernel.Resolved && k.Kernel.Resolved
	r.Dispatches = capture.SatAdd(r.Dispatches, k.Dispatches)
	r.Timed = capture.SatAdd(r.Timed, k.Timed)
	r.Total = capture.SatAdd(r.Total, k.Total)
	r.Aggregated = capture.SatAdd(r.Aggregated, k.Aggregated)
	r.Launched = capture.SatAdd(r.Launched, k.Launched)
	r.LaunchTotal = capture.SatAdd(r.LaunchTotal, k.LaunchTotal)
	r.NoLaunchTotal = capture.SatAdd(r.NoLaunchTotal, k.NoLaunchTotal)
	for l, n := range k.Links {
		if r.Links == nil {
			r.Links = map[string]int64{}
		}
		r.Links[l] = capture.SatAdd(r.Links[l], n)
	}
}

func (a *kacc) finish() {
	r := &a.row
	if r.Timed > 0 {
		r.Mean = float64(r.Total) / float64(r.Timed)
		r.MinMaxKnown = a.minMaxKnown && r.Aggregated == 0
	}
	if !r.MinMaxKnown {
		r.Min, r.Max = 0, 0
	}
	if r.Launched > 0 {
		r.LaunchMean = float64(r.LaunchTotal) / float64(r.Launched)
	}
}

// account states the whole's accounting: every input read or failed, every
// input whose own accounting has a gap, every file passed over.
func (run *Run) account(ok, empty int) {
	a := &run.Whole.Accounting
	in := a.InputFor("inputs")
	in.Read = int64(len(run.Inputs) + len(run.Skipped))
	in.Used = int64(ok)
	for _, r := range run.Inputs {
		if r.Err != nil {
			g := a.Gap(capture.FailedInput, "")
			g.Summary = "inputs that could not be read at all: nothing of them is in the tables; the other inputs are reported. Fix or remove the file and run again."
			g.Add(capture.Item{What: r.Err.Error(), Where: r.Path})
			in.Lose(g, "could not be read", 1, r.Path)
			continue
		}
		if unit := r.Capture.Accounting.CutUnit; unit != "" {
			// The whole is complete only as far as each input can show.
			g := a.NoEndMarker(unit, "inputs without an end marker (each section's no_end_marker note says why): a cut at a line or row boundary of any of them reads like a whole file, so the whole is complete only up to each one's last line or row")
			g.Add(capture.Item{What: "no end marker: a cut at a " + unit + " boundary cannot be detected", Where: r.Label()})
		}
		if !r.Capture.Accounting.Complete() {
			var kinds []string
			for _, gp := range r.Capture.Accounting.Gaps {
				if !gp.Note && gp.Count > 0 {
					kinds = append(kinds, fmt.Sprintf("%s %d", gp.Kind, gp.Count))
				}
			}
			what := strings.Join(kinds, ", ")
			if r.Capture.Accounting.CountOf(capture.EmptyCapture) > 0 {
				// Said loudly even when the other inputs hold dispatches:
				// a rank that recorded nothing is not a rank that ran nothing.
				what = "NO DISPATCH RECORDED: " + what
			}
			g := a.Gap(capture.IncompleteInput, "")
			g.Summary = "inputs whose own accounting has gaps (see each input's section): the merged tables hold only what they showed"
			g.Add(capture.Item{What: what, Where: r.Label()})
			g.AddAffected(r.Capture.Accounting.Affected, "the sum of what each incomplete input's own gaps touch (see its section)")
		}
	}
	run.repeatedRanks()
	for _, s := range run.Skipped {
		// Passed over by rule (no reader's evidence, a companion file, not a
		// regular file, a file named again or a copy): stated as a note, not
		// a loss of a trace.
		if s.Repeats != "" {
			in.CountedOnce(s.Reason, 1, s.Path)
		} else {
			in.Ignore(s.Reason, 1, s.Path)
		}
		g := a.Gap(capture.SkippedFile, "")
		g.Summary = "files that were not read: in the given directories, no reader recognises them (give --format NAME to read them as one format), a reader reads them beside another file, or they are not regular files; or a file named again, or a copy of another input's bytes, read once (each says why)"
		g.Add(capture.Item{What: s.Reason, Where: s.Path})
	}
	if ok > 0 && empty == ok {
		g := a.Gap(capture.EmptyCapture, "")
		g.Summary = "no input holds a single dispatch event"
		g.AddN(int64(empty))
	}
	run.repeatedInputs(a)
	if len(run.Inputs) == 0 {
		g := a.Gap(capture.EmptyCapture, "")
		g.Summary = "no input found: the directories hold no file a reader recognises"
		g.AddN(1)
	}
	a.SortGaps()
}

// mergeOps merges the inputs' op tables, when they were built.
func (run *Run) mergeOps() *OpTable {
	var ts []*OpTable
	for _, in := range run.Inputs {
		if in.Tables != nil && in.Tables.Ops != nil {
			ts = append(ts, in.Tables.Ops)
		}
	}
	return MergeOps(ts)
}
