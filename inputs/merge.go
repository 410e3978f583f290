package inputs

import (
	"fmt"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// Run is many inputs read as one: each input's own result, and the merged
// view — one table per program (programs matched by name and unit, kernels
// by name within a program) and the accounting of the whole.
type Run struct {
	Results []Result
	Skipped []Skipped
	// Whole is the merged capture: its programs and kernels are the merged
	// tables', its accounting holds the gaps of the whole (failed inputs,
	// incomplete inputs, skipped files). Each input's own gaps stay in its
	// Result.
	Whole  *capture.Capture
	Tables *analysis.Tables
}

// Read expands args, reads every input in parallel and merges them.
func Read(args []string, opt Options, sinkFor func(i int, path string) capture.Sink) *Run {
	e := Expand(args, opt.Format)
	return Merge(ReadAll(e.Paths, opt, sinkFor), e.Skipped)
}

// Label names an input in a report: its rank when known, and its path.
func (r *Result) Label() string {
	if r.Capture != nil && r.Capture.Source.Rank != "" {
		return "rank " + r.Capture.Source.Rank + " · " + r.Path
	}
	return r.Path
}

// Complete reports whether every input was read and is complete.
func (run *Run) Complete() bool { return run.Whole.Accounting.Complete() }

type progKey struct{ name, unit string }

type kernKey struct {
	prog           int
	list, name, ct string
}

type kacc struct {
	row         analysis.KernelRow
	minMaxKnown bool
	hasMinMax   bool
}

// Merge builds the merged view of results.
func Merge(results []Result, skipped []Skipped) *Run {
	run := &Run{Results: results, Skipped: skipped}
	w := &capture.Capture{Source: capture.Source{Path: fmt.Sprintf("%d inputs", len(results)), Format: "many"}}
	run.Whole = w
	progs := map[progKey]int{}
	kerns := map[kernKey]*kacc{}
	var order []*kacc
	var tables []analysis.ProgramTable
	ok, empty := 0, 0
	var clock *capture.Clock
	mixed := false
	for i := range results {
		r := &results[i]
		if r.Err != nil || r.Capture == nil {
			continue
		}
		ok++
		c := r.Capture
		w.Source.Bytes += c.Source.Bytes
		if c.Accounting.CountOf(capture.EmptyCapture) > 0 {
			empty++
		}
		if clock == nil {
			k := c.Clock
			clock = &k
		} else if clock.Unit != c.Clock.Unit || clock.Timed != c.Clock.Timed || clock.Domain != c.Clock.Domain {
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
				tables = append(tables, analysis.ProgramTable{ID: capture.ProgramID(pi), Clock: pt.Clock})
			}
			w.Programs[pi].Instances += pt.Program.Instances
			w.Programs[pi].InstanceStates = addCounts(w.Programs[pi].InstanceStates, pt.Program.InstanceStates)
			for _, kr := range pt.Kernels {
				kk := kernKey{pi, kr.Kernel.List, kr.Kernel.Name, kr.Kernel.Category}
				a := kerns[kk]
				if a == nil {
					k := kr.Kernel
					k.Program = capture.ProgramID(pi)
					id := w.AddKernel(k)
					a = &kacc{row: analysis.KernelRow{ID: id, Kernel: k}, minMaxKnown: true}
					kerns[kk] = a
					order = append(order, a)
				}
				a.add(&kr)
			}
		}
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
	run.Tables = &analysis.Tables{Programs: tables}
	run.account(ok, empty)
	analysis.Size(w, run.Tables)
	return run
}

func unitText(u string) string {
	if u == "" {
		return "(untimed)"
	}
	return u
}

func (a *kacc) add(k *analysis.KernelRow) {
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

func addCounts(into, add []capture.Count) []capture.Count {
	for _, c := range add {
		found := false
		for i := range into {
			if into[i].Name == c.Name {
				into[i].Count += c.Count
				found = true
			}
		}
		if !found {
			into = append(into, c)
		}
	}
	return into
}

// account states the whole's accounting: every input read or failed, every
// input whose own accounting has a gap, every file passed over.
func (run *Run) account(ok, empty int) {
	a := &run.Whole.Accounting
	in := a.InputFor("inputs")
	in.Read = int64(len(run.Results) + len(run.Skipped))
	in.Used = int64(ok)
	for _, r := range run.Results {
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
			g := a.Gap(capture.IncompleteInput, "")
			g.Summary = "inputs whose own accounting has gaps (see each input's section): the merged tables hold only what they showed"
			g.Add(capture.Item{What: strings.Join(kinds, ", "), Where: r.Label()})
			addInputAffected(g, r.Capture.Accounting.Affected)
		}
	}
	for _, s := range run.Skipped {
		// Passed over by rule (no reader's evidence, a companion file, not a
		// regular file): stated as a note, not a loss of a trace.
		in.Ignore(s.Reason, 1, s.Path)
		g := a.Gap(capture.SkippedFile, "")
		g.Summary = "files in the given directories that were not read: no reader recognises them (give --format NAME to read them as one format), a reader reads them beside another file, or they are not regular files (each says why)"
		g.Add(capture.Item{What: s.Reason, Where: s.Path})
	}
	if ok > 0 && empty == ok {
		g := a.Gap(capture.EmptyCapture, "")
		g.Summary = "no input holds a single dispatch event"
		g.AddN(int64(empty))
	}
	if len(run.Results) == 0 {
		g := a.Gap(capture.EmptyCapture, "")
		g.Summary = "no input found: the directories hold no file a reader recognises"
		g.AddN(1)
	}
	a.SortGaps()
}

// addInputAffected sizes the whole's incomplete_input gap as the sum of
// what each incomplete input's own gaps touch (sized with its tables).
func addInputAffected(g *capture.Gap, t *capture.AffectedTotals) {
	if g.Affected == nil {
		g.Affected = &capture.Affected{Known: true, Basis: "the sum of what each incomplete input's own gaps touch (see its section)"}
	}
	af := g.Affected
	if t == nil {
		af.Known = false
		return
	}
	af.MissingNs = capture.SatAdd(af.MissingNs, t.MissingNs)
	af.UnattributedNs = capture.SatAdd(af.UnattributedNs, t.UnattributedNs)
	af.MissingTicks = capture.SatAdd(af.MissingTicks, t.MissingTicks)
	af.UnattributedTicks = capture.SatAdd(af.UnattributedTicks, t.UnattributedTicks)
	af.LostDispatches = capture.SatAdd(af.LostDispatches, t.LostDispatches)
	if len(t.Unknown) > 0 {
		af.Known = false
		var ks []string
		for _, k := range t.Unknown {
			ks = append(ks, string(k))
		}
		af.Basis = addUnknownKinds(af.Basis, ks)
	}
}

// addUnknownKinds names, in basis, the input gap kinds whose size is
// unknown, each once.
func addUnknownKinds(basis string, kinds []string) string {
	const lead = "; unknown size: "
	have := map[string]bool{}
	base, list, found := strings.Cut(basis, lead)
	if found {
		for _, k := range strings.Split(list, ", ") {
			have[k] = true
		}
	}
	var all []string
	if found {
		all = strings.Split(list, ", ")
	}
	for _, k := range kinds {
		if !have[k] {
			have[k] = true
			all = append(all, k)
		}
	}
	return base + lead + strings.Join(all, ", ")
}
