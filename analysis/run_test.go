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
			t.Errorf("kernel of program %s points elsewhere", pt.Program.Name)
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
				t.Errorf("%s: input %d has index %d", c.name, i, in.Index)
			}
		}
	}
	run := NewRun([]Input{oneKernel("A", "k", 1, ns), {Path: "x", Err: bad}}, []Skipped{{Path: "README", Reason: "not a trace"}}, true)
	if run.Failed() != 1 || run.Complete() || run.Whole.Accounting.CountOf(capture.FailedInput) != 1 || run.Whole.Accounting.CountOf(capture.SkippedFile) != 1 {
		t.Errorf("got %d failed, complete %v, gaps %+v; want 1 failed input and 1 skipped file stated", run.Failed(), run.Complete(), run.Whole.Accounting.Gaps)
	}
	if err := run.Whole.Accounting.CheckValid(); err != nil {
		t.Errorf("the whole's accounting: %v", err)
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
		t.Errorf("failed input: got label %q, rank %q", failed.Label(), failed.Rank())
	}
}
