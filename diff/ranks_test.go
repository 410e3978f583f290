package diff

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/exitcode"
)

// rankSide is a side of one trace per rank, each stating its rank ("" for
// none).
func rankSide(t *testing.T, label string, ranks ...string) *Side {
	t.Helper()
	s := NewSide(label)
	for i, r := range ranks {
		sy := synth{path: fmt.Sprintf("%s/rank%s.json", label, r), clock: nsClock,
			progs: []synthProg{{name: "step", runs: 3, kernels: []synthKernel{{name: "gemm", perRun: 2, ns: 1000, noise: 0.01}}}}}
		read := sy.read(int64(i + 1))
		err := s.Add(func(sink capture.Sink) (*capture.Capture, error) {
			c, err := read(sink)
			if c != nil {
				c.Source.Rank = r
			}
			return c, err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// Side A holds ranks 0–3, side B 0–2: the missing rank 3 is stated in the
// text, in the JSON and fails --strict; the same ranks on both sides, or
// sides that state no rank, say nothing.
func TestDiffMissingRank(t *testing.T) {
	r := Compare(rankSide(t, "A", "0", "1", "2", "3"), rankSide(t, "B", "0", "1", "2"))
	if !slices.Equal(r.B.MissingRanks, []string{"3"}) || len(r.A.MissingRanks) != 0 {
		t.Fatalf("missing ranks: got A %v, B %v; want A none, B [3]", r.A.MissingRanks, r.B.MissingRanks)
	}
	text := textOf(t, r)
	for _, want := range []string{"note: ranks differ: side B lacks rank 3 that side A holds", "B: lacks rank 3 that the other side holds"} {
		if !strings.Contains(text, want) {
			t.Errorf("text: got no %q in:\n%s", want, text)
		}
	}
	if doc := r.BuildJSON(-1); !slices.Equal(doc.Sides[1].MissingRanks, []string{"3"}) || doc.Sides[0].MissingRanks == nil {
		t.Errorf("JSON missing_ranks: got A %v, B %v; want [], [3]", doc.Sides[0].MissingRanks, doc.Sides[1].MissingRanks)
	}
	if got := r.ExitCode(true, -1); got != exitcode.Failed {
		t.Errorf("--strict: got exit %d, want %d", got, exitcode.Failed)
	}
	if got := r.ExitCode(false, -1); got != exitcode.OK {
		t.Errorf("without --strict: got exit %d, want %d", got, exitcode.OK)
	}
	// Rank 0 against rank 1 is a comparison asked for.
	for _, c := range [][2][]string{{{"0", "1"}, {"1", "0"}}, {{"", ""}, {""}}, {{"0", "1"}, {""}}, {{"0"}, {"1"}}} {
		r := Compare(rankSide(t, "A", c[0]...), rankSide(t, "B", c[1]...))
		if len(r.A.MissingRanks)+len(r.B.MissingRanks) > 0 || strings.Contains(textOf(t, r), "ranks differ") || r.ExitCode(true, -1) != exitcode.OK {
			t.Errorf("ranks %q vs %q: got missing A %v, B %v; want none, exit 0 under --strict", c[0], c[1], r.A.MissingRanks, r.B.MissingRanks)
		}
	}
}
