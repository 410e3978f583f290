package diff

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/format"
	_ "github.com/tallyprof/tally/format/all"
	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/internal/golden"
)

// Two ranks of one training job (HolisticTraceAnalysis's sub-sampled
// pair; provenance and licence in format/kineto/testdata/PROVENANCE.md).
const (
	rank0 = "../format/kineto/testdata/hta__sampled_rank-0.json.gz"
	rank1 = "../format/kineto/testdata/hta__sampled_rank-1.json.gz"
)

func TestRealRankPair(t *testing.T) {
	// GPU annotations only (the files have none): one window, one run a
	// side. By default the host ProfilerStep ranges split it into 2 steps.
	r, err := Run([]string{rank0}, []string{rank1}, Options{Reader: format.Options{ProgramBy: "gpu-annotation"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Programs) != 1 {
		t.Fatalf("%d programs, want 1 (no annotations: every dispatch in one)", len(r.Programs))
	}
	p := &r.Programs[0]
	// tally report counts 1204 and 1154 dispatches in one step window each.
	if p.Status != Matched || p.RunsA != 1 || p.RunsB != 1 || p.Dispatches.A.Center != 1204 || p.Dispatches.B.Center != 1154 {
		t.Fatalf("program %q: got %s, runs %d/%d, dispatches %+v %+v; want matched, 1/1, 1204 and 1154", p.Name, p.Status, p.RunsA, p.RunsB, p.Dispatches.A, p.Dispatches.B)
	}
	// One run a side is never a significant time change, and says why.
	var added, removed int
	for i := range p.Kernels {
		k := &p.Kernels[i]
		if k.PerDispatch.Significant || k.PerRun.Significant {
			t.Errorf("%s: got a significant time change from one run a side, want none", k.Name)
		}
		switch k.Status {
		case Added:
			added++
		case Removed:
			removed++
		}
	}
	// Rank 1's sub-sample lacks 11 of rank 0's kernels (weighted embedding,
	// sorts, scatter/gather), and has none rank 0 lacks.
	if added != 0 || removed != 11 {
		t.Errorf("added %d, removed %d kernels, want 0 and 11", added, removed)
	}
	if r.A.Complete() || r.B.Complete() {
		t.Error("got a side complete, want both incomplete: the sub-sampled files have no end marker")
	}
	if code := r.ExitCode(true, -1); code != exitcode.Failed {
		t.Errorf("--strict: got exit %d, want %d", code, exitcode.Failed)
	}
	if s := r.Slower(0); len(s) != 0 {
		t.Errorf("slower with n=1: got %v, want none", s)
	}
	out := textOf(t, r)
	for _, want := range []string{"need >= 4 samples to detect a difference at alpha level 0.05", "GAP truncated_input (1)", "ncclKernel_SendRecv_RING_SIMPLE_S", "~ (needs ≥ 6 runs)"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	if strings.Contains(out, "±∞") {
		t.Errorf("text shows ±∞: want the median alone and \"needs ≥ %d runs\"", MinRuns())
	}
	golden.Check(t, "testdata/hta-ranks.golden", []byte(out))
}

func TestRunErrors(t *testing.T) {
	if _, err := Run(nil, []string{rank1}, Options{}); err == nil {
		t.Error("no file on side A: got no error, want one")
	}
	if _, err := Run([]string{rank0}, []string{"testdata/no-such-file"}, Options{}); err == nil || !strings.Contains(err.Error(), "no-such-file") {
		t.Errorf("missing file: got %v, want an error naming no-such-file", err)
	}
	if _, err := Run([]string{rank0}, []string{rank1}, Options{Format: "nope"}); err == nil {
		t.Error("unknown format: got no error, want one")
	}
}
