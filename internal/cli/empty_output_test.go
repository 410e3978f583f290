package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// emptyCapture asked for dispatch events and holds none.
const emptyCapture = "../../format/ireeprof/testdata/no_dispatch_events.ireeprof"

// An export or timeline of a capture without a single dispatch event exits 2
// (as tally report does) and says so on standard error — never a silent
// exit status.
func TestEmptyCaptureIsLoudInExportAndTimeline(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"export", "--to", "csv", emptyCapture, "-o", filepath.Join(dir, "e.csv")},
		{"export", "--to", "pprof", emptyCapture, "-o", filepath.Join(dir, "e.pprof")},
		{"timeline", emptyCapture, "-o", filepath.Join(dir, "t.json")},
		{"timeline", emptyCapture, example, "-o", filepath.Join(dir, "t.perfetto-trace")},
	} {
		code, _, errOut := tally(args...)
		if code != 2 || !strings.Contains(errOut, "NO DISPATCH RECORDED in "+emptyCapture) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and NO DISPATCH RECORDED", args, code, errOut)
		}
	}
	// A complete-enough export says what it wrote and that it has gaps.
	code, _, errOut := tally("export", "--to", "csv", "--manifests", kernels, example, "-o", filepath.Join(dir, "d.csv"))
	if want := ": 1 input, 287 records; INCOMPLETE: the input has gaps"; code != 0 || !strings.Contains(errOut, "csv written to") || !strings.Contains(errOut, want) {
		t.Errorf("export summary: got exit %d, %q; want 0, %q", code, errOut, want)
	}
	// Of two inputs, one with gaps: "1 of 2 inputs has".
	code, _, errOut = tally("export", "--to", "csv", "--manifests", kernels, example, selfTrace+"complete.kept", "-o", filepath.Join(dir, "d2.csv"))
	if want := ": 2 inputs, "; code != 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "INCOMPLETE: 1 of 2 inputs has gaps") {
		t.Errorf("export summary of two: got exit %d, %q; want 0, %q and 1 of 2 inputs has gaps", code, errOut, want)
	}
}
