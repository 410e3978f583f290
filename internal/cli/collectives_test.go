package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/internal/gen/collgen"
	"github.com/tallyprof/tally/internal/gen/collgen/collgentest"
)

// tally report DIR of a generated job prints the collectives section (and
// its JSON), with the html page too, and --strict fails on the planted
// missing collective.
func TestReportCollectives(t *testing.T) {
	dir, _ := collgentest.Dir(t, collgen.Default())
	html := filepath.Join(t.TempDir(), "page.html")
	code, out, errOut := tally("report", "--html", html, dir)
	if code != 0 || !strings.Contains(out, "== collectives: 6 instances matched across 8 ranks ==") || !strings.Contains(out, "unmatched_collective") {
		t.Fatalf("got exit %d, stderr %s, output:\n%s\nwant exit 0, the collectives section (6 instances across 8 ranks) and its unmatched_collective gap", code, errOut, out)
	}
	if page, err := os.ReadFile(html); err != nil || !strings.Contains(string(page), `<section id="collectives">`) {
		t.Errorf("the page: got no collectives section (%v), want one", err)
	}
	code, out, _ = tally("report", "--json", dir)
	if code != 0 || !strings.Contains(out, `"straggler_rank": 5`) {
		t.Errorf("--json: got exit %d and no straggler_rank 5, want exit 0 and \"straggler_rank\": 5", code)
	}
	if code, _, _ = tally("report", "--strict", dir); code != 1 {
		t.Errorf("--strict: got exit %d, want 1", code)
	}
}

// tally export of a job whose run has gaps of its own names those gaps on
// its summary line (the third sweep: it listed every kind a run can have —
// "one recording read twice, two inputs of one rank" — whatever the run
// had, here one collective missing on a rank).
func TestExportNamesTheRunGaps(t *testing.T) {
	dir, _ := collgentest.Dir(t, collgen.Default())
	out := filepath.Join(t.TempDir(), "job") // Parquet: the export that analyses the collectives
	code, _, errOut := tally("export", "--to", "parquet", dir, "-o", out)
	want := "INCOMPLETE: the run has gaps of its own (unmatched_collective 1: the accounting's rows of input -1)"
	if code != 0 || !strings.Contains(errOut, want) || strings.Contains(errOut, "read twice") {
		t.Errorf("got exit %d, stderr:\n%s\nwant exit 0 and %q, no \"read twice\"", code, errOut, want)
	}
}
