package analysis

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

func rankInput(path, rank string) Input {
	in := oneKernel("step", "gemm", 10, ns)
	in.Path, in.Capture.Source.Rank = path, rank
	return in
}

// Two inputs that state rank 0: both read, both in the tables, and the
// whole says so in a note naming both — a note, as several runs of one
// workload are inputs tally reads by design; ranks 0 and 1, or no rank
// stated, say nothing.
func TestMergeRepeatedRank(t *testing.T) {
	run := NewRun([]Input{rankInput("a/rank0.json", "0"), rankInput("b/rank0.json", "0"), rankInput("a/rank1.json", "1")}, nil, true)
	g := run.Whole.Accounting.Find(RepeatedRank)
	if g == nil || g.Count != 1 || len(g.Items) != 1 || !g.Note {
		t.Fatalf("repeated_rank: got %+v, want a note of 1 item", g)
	}
	if it := g.Items[0]; it.Where != "b/rank0.json" || !strings.Contains(it.What, "rank 0") || !strings.Contains(it.What, "a/rank0.json") {
		t.Errorf("repeated_rank item: got %+v, want where b/rank0.json, what naming rank 0 and a/rank0.json", it)
	}
	if !run.Complete() {
		t.Error("got an incomplete run, want complete: two runs' rank 0 are two inputs, both read")
	}
	if got := run.Tables.Programs[0].Dispatches; got != 3 {
		t.Errorf("merged dispatches: got %d, want 3 (every input in the tables)", got)
	}
	for _, ins := range [][]Input{
		{rankInput("a/rank0.json", "0"), rankInput("a/rank1.json", "1")},
		{rankInput("x.json", ""), rankInput("y.json", "")},
	} {
		run := NewRun(ins, nil, true)
		if g := run.Whole.Accounting.Find(RepeatedRank); g != nil || !run.Complete() {
			t.Errorf("ranks %q, %q: got repeated_rank %+v, complete %v; want none, complete", ins[0].Rank(), ins[1].Rank(), g, run.Complete())
		}
	}
}

// An empty input among inputs on one clock: the whole keeps that clock
// (the empty one has none to compare), and its incomplete_input item says
// loudly that it recorded no dispatch; the other inputs' items do not.
func TestMergeEmptyAmongOthers(t *testing.T) {
	empty := Input{Path: "empty", Capture: &capture.Capture{}, Tables: &Tables{}}
	empty.Capture.Accounting.Gap(capture.EmptyCapture, "").AddN(1)
	gappy := oneKernel("step", "gemm", 10, ns)
	gappy.Path = "gappy"
	gappy.Capture.Accounting.Gap(capture.UnrecordedDeviceWork, "").AddN(1)
	run := NewRun([]Input{empty, oneKernel("step", "gemm", 10, ns), gappy}, nil, true)
	if run.Whole.Clock.Domain != ns.Domain || run.Whole.Programs[0].Clock != nil {
		t.Errorf("whole clock: got %+v, program clock %v; want %s stated once (the empty input has no clock)", run.Whole.Clock, run.Whole.Programs[0].Clock, ns.Domain)
	}
	g := run.Whole.Accounting.Find(capture.IncompleteInput)
	if g == nil || len(g.Items) != 2 {
		t.Fatalf("incomplete_input: got %+v, want 2 items", g)
	}
	for _, it := range g.Items {
		if loud := strings.HasPrefix(it.What, "NO DISPATCH RECORDED"); loud != (it.Where == "empty") {
			t.Errorf("item %+v: got loud %v, want %v", it, loud, it.Where == "empty")
		}
	}
	// Every input empty: the whole is still on the first one's clock.
	run = NewRun([]Input{empty, empty}, nil, true)
	if run.Whole.Clock.Domain == "mixed" {
		t.Errorf("all empty: got whole clock %+v, want not mixed", run.Whole.Clock)
	}
}
