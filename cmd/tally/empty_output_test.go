package main

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
	if code != 0 || !strings.Contains(errOut, "csv written to") || !strings.Contains(errOut, "INCOMPLETE: 1 of 1 inputs") {
		t.Errorf("export summary: exit %d, %q", code, errOut)
	}
}
