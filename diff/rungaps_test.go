package diff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/exitcode"
)

// A side whose inputs hold one recording twice (here a rocprof CSV and the
// same rows with one more line ending) states the run's repeated_input gap
// in its header, text and JSON, is incomplete, and fails --strict; the
// other side, the recording once, is complete.
func TestSideRunGaps(t *testing.T) {
	csv := "../format/rocprof/testdata/decode_kernel_trace.csv"
	data, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	twin := filepath.Join(t.TempDir(), "twin.csv")
	if err := os.WriteFile(twin, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Run([]string{csv, twin}, []string{csv}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.A.RunGaps) != 1 || r.A.RunGaps[0].Kind != capture.RepeatedInput || r.A.Complete() || !r.B.Complete() {
		t.Fatalf("side A run gaps %v, complete A %v, B %v; want one repeated_input, A incomplete, B complete", r.A.RunGaps, r.A.Complete(), r.B.Complete())
	}
	if text := textOf(t, r); !strings.Contains(text, "A: GAP repeated_input (1)") || !strings.Contains(text, twin) {
		t.Errorf("text: got no \"A: GAP repeated_input (1)\" naming %s, want it in:\n%s", twin, text)
	}
	if doc := r.BuildJSON(-1); len(doc.Sides[0].RunGaps) != 1 || doc.Sides[0].Complete || doc.Sides[1].RunGaps == nil {
		t.Errorf("JSON run_gaps: got A %v (complete %v), B %v; want one, false, []", doc.Sides[0].RunGaps, doc.Sides[0].Complete, doc.Sides[1].RunGaps)
	}
	if got := r.ExitCode(true, -1); got != exitcode.Failed {
		t.Errorf("--strict: got exit %d, want %d", got, exitcode.Failed)
	}
}
