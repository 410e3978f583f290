package analysis

import (
	"errors"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// newAgg builds the tables of a capture with one dispatch of kernel k
// lasting total.
func newAgg(c *capture.Capture, k capture.KernelID, total int64) *Tables {
	a := NewAggregator()
	a.Dispatch(c, &capture.Dispatch{Program: c.Kernels[k].Program, Kernel: k, Queue: capture.NoQueue, Device: capture.Interval{Begin: 0, End: total, Valid: true}})
	return a.Tables(c)
}

func oneKernel(prog, kern string, total int64, clock capture.Clock) Input {
	c := &capture.Capture{Clock: clock}
	p := c.AddProgram(capture.Program{Name: prog, Instances: 1})
	k := c.AddKernel(capture.Kernel{Program: p, Name: kern, Resolved: true})
	return Input{Path: prog, Capture: c, Tables: newAgg(c, k, total)}
}

var ns = capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true}

// Programs are matched by name only: two programs' same-named kernels stay
// in their own programs.
func TestMergeKeepsProgramsApart(t *testing.T) {
	run := NewRun([]Input{oneKernel("A", "norm", 10, ns), oneKernel("B", "norm", 20, ns), oneKernel("A", "norm", 5, ns)}, nil, true)
	if len(run.Tables.Programs) != 2 {
		t.Fatalf("got %d programs, want 2", len(run.Tables.Programs))
	}
	for _, pt := range run.Tables.Programs {
		want := map[string]int64{"A": 15, "B": 20}[pt.Program.Name]
		if len(pt.Kernels) != 1 || pt.Kernels[0].Total != want || pt.Kernels[0].Share != 1 {
			t.Errorf("program %s: got %+v, want one kernel of total %d, share 1", pt.Program.Name, pt.Kernels, want)
		}
		if run.Whole.Kernels[pt.Kernels[0].ID].Program != pt.ID {
			t.Errorf("kernel of program %s: got program %v, want %v", pt.Program.Name, run.Whole.Kernels[pt.Kernels[0].ID].Program, pt.ID)
		}
		if wantRuns := map[string]int64{"A": 2, "B": 1}[pt.Program.Name]; pt.Program.Instances != wantRuns {
			t.Errorf("program %s: got %d runs, want %d", pt.Program.Name, pt.Program.Instances, wantRuns)
		}
	}
	if run.Whole.Clock.Domain != "monotonic" || run.Whole.Programs[0].Clock != nil {
		t.Errorf("one clock for all: got %+v, program clock %v; want the inputs' clock stated once", run.Whole.Clock, run.Whole.Programs[0].Clock)
	}
}

// Inputs on different clocks: the whole says so, and each program keeps
// its own clock.
func TestMergeMixedClocks(t *testing.T) {
	ticks := capture.Clock{Domain: "device-ticks", Unit: "ns", Timed: true}
	run := NewRun([]Input{oneKernel("A", "k", 10, ns), oneKernel("A", "k", 5, ticks)}, nil, true)
	if run.Whole.Clock.Domain != "mixed" || run.Whole.Programs[0].Clock == nil {
		t.Errorf("got whole clock %+v, program clock %v; want mixed, stated per program", run.Whole.Clock, run.Whole.Programs[0].Clock)
	}
}

// One input or many: decided once, from what the arguments named, and a
// run of one input fails with its input.
func TestRunOneOrMany(t *testing.T) {
	bad := errors.New("cannot open")
	for _, c := range []struct {
		name     string
		ins      []Input
		many     bool
		wantMany bool
		wantErr  error
	}{
		{"one input", []Input{oneKernel("A", "k", 1, ns)}, false, false, nil},
		{"one failed input", []Input{{Path: "x", Err: bad}}, false, false, bad},
		{"a directory of one", []Input{{Path: "x", Err: bad}}, true, true, nil},
		{"two inputs", []Input{oneKernel("A", "k", 1, ns), {Path: "x", Err: bad}}, false, true, nil},
		{"none", nil, false, true, nil},
	} {
		run := NewRun(c.ins, nil, c.many)
		if run.Many() != c.wantMany || run.Err() != c.wantErr {
			t.Errorf("%s: got many %v, err %v; want %v, %v", c.name, run.Many(), run.Err(), c.wantMany, c.wantErr)
		}
		for i, in := range run.Inputs {
			if in.Index != i {
				t.Errorf("%s: input %d: got index %d, want %d", c.name, i, in.Index, i)
			}
		}
	}
	run := NewRun([]Input{oneKernel("A", "k", 1, ns), {Path: "x", Err: bad}}, []Skipped{{Path: "README", Reason: "not a trace"}}, true)
	if run.Failed() != 1 || run.Complete() || run.Whole.Accounting.CountOf(capture.FailedInput) != 1 || run.Whole.Accounting.CountOf(capture.SkippedFile) != 1 {
		t.Errorf("got %d failed, complete %v, gaps %+v; want 1 failed input and 1 skipped file stated", run.Failed(), run.Complete(), run.Whole.Accounting.Gaps)
	}
	if err := run.Whole.Accounting.CheckValid(); err != nil {
		t.Errorf("the whole's accounting: got %v, want it valid", err)
	}
}

func TestInputLabel(t *testing.T) {
	in := oneKernel("A", "k", 1, ns)
	if in.Label() != "A" || in.Rank() != "" {
		t.Errorf("got label %q, rank %q; want the path, no rank", in.Label(), in.Rank())
	}
	in.Capture.Source.Rank = "3"
	if in.Label() != "rank 3 · A" || in.Rank() != "3" {
		t.Errorf("got label %q, rank %q; want \"rank 3 · A\", \"3\"", in.Label(), in.Rank())
	}
	failed := Input{Path: "x", Err: errors.New("no")}
	if failed.Label() != "x" || failed.Rank() != "" {
		t.Errorf("failed input: got label %q, rank %q; want \"x\", \"\"", failed.Label(), failed.Rank())
	}
}

// rowInput is an input of one program "A" whose tables hold the given rows
// as its reader built them (one kernel per row, named by the row).
func rowInput(path string, bytes int64, rows ...KernelRow) Input {
	c := &capture.Capture{Clock: ns, Source: capture.Source{Path: path, Bytes: bytes}}
	p := c.AddProgram(capture.Program{Name: "A", Instances: 1})
	pt := ProgramTable{ID: p, Program: c.Programs[p], Clock: ns}
	for _, r := range rows {
		r.Kernel.Program = p
		r.ID = c.AddKernel(r.Kernel)
		pt.Kernels = append(pt.Kernels, r)
		pt.Dispatches += r.Dispatches
		pt.Timed += r.Timed
		pt.Total += r.Total
	}
	return Input{Path: path, Capture: c, Tables: &Tables{Programs: []ProgramTable{pt}}}
}

// A kernel's row merged from many inputs: counts, times and links summed,
// the extremes over all, the name resolved only if every input resolved it,
// and the min/max unknown when any input's is; the program's figures from
// the merged rows; the inputs' bytes summed.
func TestMergeSumsKernelRows(t *testing.T) {
	k := capture.Kernel{Name: "gemm", Resolved: true}
	u := capture.Kernel{Name: "gemm", Resolved: false}
	agg := capture.Kernel{Name: "norm", Resolved: true}
	run := NewRun([]Input{
		rowInput("r0", 100,
			KernelRow{Kernel: u, Dispatches: 3, Timed: 2, Total: 30, Min: 10, Max: 20, MinMaxKnown: true, Launched: 2, LaunchTotal: 4, Links: map[string]int64{"correlation": 2}},
			KernelRow{Kernel: agg, Dispatches: 1, Timed: 1, Total: 7, Min: 7, Max: 7, MinMaxKnown: true}),
		rowInput("r1", 50,
			KernelRow{Kernel: k, Dispatches: 5, Timed: 4, Total: 100, Min: 15, Max: 18, MinMaxKnown: true, NoLaunchTotal: 25, Links: map[string]int64{"correlation": 1, "no-launch": 3}},
			KernelRow{Kernel: agg, Dispatches: 4, Timed: 4, Total: 8, Aggregated: 4}),
	}, nil, true)
	if got := run.Whole.Source.Bytes; got != 150 {
		t.Errorf("whole bytes: got %d, want 150", got)
	}
	if len(run.Tables.Programs) != 1 {
		t.Fatalf("got %d programs, want 1", len(run.Tables.Programs))
	}
	pt := run.Tables.Programs[0]
	if pt.Dispatches != 13 || pt.Timed != 11 || pt.Total != 145 {
		t.Errorf("program: got dispatches %d, timed %d, total %d; want 13, 11, 145", pt.Dispatches, pt.Timed, pt.Total)
	}
	rows := map[string]KernelRow{}
	for _, r := range pt.Kernels {
		rows[r.Kernel.Name] = r
	}
	g := rows["gemm"]
	if g.Dispatches != 8 || g.Timed != 6 || g.Total != 130 || g.Launched != 2 || g.LaunchTotal != 4 || g.NoLaunchTotal != 25 {
		t.Errorf("gemm: got dispatches %d, timed %d, total %d, launched %d, launch total %d, no-launch total %d; want 8, 6, 130, 2, 4, 25",
			g.Dispatches, g.Timed, g.Total, g.Launched, g.LaunchTotal, g.NoLaunchTotal)
	}
	if !g.MinMaxKnown || g.Min != 10 || g.Max != 20 {
		t.Errorf("gemm: got min %d, max %d, known %v; want 10, 20, known", g.Min, g.Max, g.MinMaxKnown)
	}
	if g.Kernel.Resolved {
		t.Errorf("gemm: got resolved, want unresolved (the first input's catalog did not name it)")
	}
	if g.Links["correlation"] != 3 || g.Links["no-launch"] != 3 {
		t.Errorf("gemm links: got %v, want correlation 3, no-launch 3", g.Links)
	}
	n := rows["norm"]
	if n.Dispatches != 5 || n.Aggregated != 4 || n.MinMaxKnown || n.Min != 0 || n.Max != 0 {
		t.Errorf("norm: got dispatches %d, aggregated %d, min %d, max %d, known %v; want 5, 4, min/max unknown (0, 0)", n.Dispatches, n.Aggregated, n.Min, n.Max, n.MinMaxKnown)
	}
}

// An input whose min/max is unknown makes the merged row's unknown, even
// with no aggregated dispatch in the sum.
func TestMergeMinMaxUnknownInOneInput(t *testing.T) {
	k := capture.Kernel{Name: "gemm", Resolved: true}
	run := NewRun([]Input{
		rowInput("r0", 0, KernelRow{Kernel: k, Dispatches: 1, Timed: 1, Total: 10, Min: 10, Max: 10, MinMaxKnown: true}),
		rowInput("r1", 0, KernelRow{Kernel: k, Dispatches: 2, Timed: 2, Total: 30}),
	}, nil, true)
	r := run.Tables.Programs[0].Kernels[0]
	if r.MinMaxKnown || r.Min != 0 || r.Max != 0 {
		t.Errorf("got min %d, max %d, known %v; want unknown (0, 0)", r.Min, r.Max, r.MinMaxKnown)
	}
}

// The whole's gaps: an incomplete input is sized by what its own gaps
// touch; an empty input among non-empty ones makes no empty_capture of the
// whole (only all empty does).
func TestMergeWholeGaps(t *testing.T) {
	k := capture.Kernel{Name: "gemm", Resolved: true}
	gappy := rowInput("gappy", 0, KernelRow{Kernel: k, Dispatches: 1, Timed: 1, Total: 10})
	g := gappy.Capture.Accounting.Gap(capture.UnrecordedDeviceWork, "")
	g.AddN(1)
	gappy.Capture.Accounting.Affected = &capture.AffectedTotals{DeviceNs: 10, Touched: capture.Touched{MissingNs: 40}}
	ok := rowInput("ok", 0, KernelRow{Kernel: k, Dispatches: 1, Timed: 1, Total: 5})
	run := NewRun([]Input{gappy, ok}, nil, true)
	inc := run.Whole.Accounting.Find(capture.IncompleteInput)
	if inc == nil || inc.Count != 1 {
		t.Fatalf("incomplete_input: got %+v, want 1 (the gappy input)", inc)
	}
	if inc.Affected == nil || !inc.Affected.Known || inc.Affected.MissingNs != 40 {
		t.Errorf("incomplete_input sized: got %+v, want known, 40 ns missing (the gappy input's own)", inc.Affected)
	}
	empty := rowInput("empty", 0)
	empty.Capture.Accounting.Gap(capture.EmptyCapture, "").AddN(1)
	run = NewRun([]Input{ok, empty}, nil, true)
	if got := run.Whole.Accounting.CountOf(capture.EmptyCapture); got != 0 {
		t.Errorf("empty_capture of the whole: got %d, want 0 (one input of two is empty)", got)
	}
}
