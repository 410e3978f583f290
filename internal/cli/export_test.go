package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "d.csv")
	tallyOK(t, "export", "--to", "csv", example, "--manifests", kernels, "-o", out)
	for _, p := range []string{out, out + ".gaps.csv"} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: got %v or an empty file, want a written file", p, err)
		}
	}
	if code, _, _ := tally("export", "--strict", "--to", "pprof", "--manifests", kernels, example, "-o", filepath.Join(dir, "p")); code != 1 {
		t.Errorf("--strict on an incomplete capture: exit %d, want 1", code)
	}
	code, stdout, _ := tally("export", "--to", "kineto", "--manifests", kernels, example, "-o", "-")
	if code != 0 || !strings.Contains(stdout, `"traceEvents"`) {
		t.Errorf("kineto to stdout: got exit %d, want 0 and \"traceEvents\"", code)
	}
	if code, _, errOut := tally("export", "--to", "csv", example); code != 2 || !strings.Contains(errOut, "-o") {
		t.Errorf("no -o: got exit %d %s, want 2 and -o named", code, errOut)
	}
	if code, _, errOut := tally("export", example, "-o", out); code != 2 || !strings.Contains(errOut, "--to") {
		t.Errorf("no --to: got exit %d %s, want 2 and --to named", code, errOut)
	}
	if code, _, errOut := tally("export", "--to", "csv", "/dev/full", "-o", "/dev/full"); code != 2 || !strings.Contains(errOut, "/dev/full") {
		t.Errorf("/dev/full: got exit %d %s, want 2 and /dev/full named", code, errOut)
	}
}

// tally export --check: one export's table and gaps file pass; the new
// gaps file beside the previous table (what a kill between the two renames
// leaves) fails with status 1, naming both files.
func TestExportCheck(t *testing.T) {
	dir := t.TempDir()
	out, other := filepath.Join(dir, "d.csv"), filepath.Join(dir, "e.csv")
	for _, p := range []string{out, other} {
		tallyOK(t, "export", "--to", "csv", example, "-o", p)
	}
	code, stdout, errOut := tally("export", "--check", out)
	if code != 0 || !strings.Contains(stdout, "are one export: export_id ") || !strings.Contains(stdout, "287 rows") {
		t.Fatalf("--check on one export: got exit %d\n%s%s\nwant 0, one export_id and 287 rows", code, stdout, errOut)
	}
	b, _ := os.ReadFile(other + ".gaps.csv")
	os.WriteFile(out+".gaps.csv", b, 0o644)
	code, _, errOut = tally("export", "--check", out)
	if code != 1 || !strings.Contains(errOut, "different exports") || !strings.Contains(errOut, out+".gaps.csv") {
		t.Errorf("--check on a mixed pair: exit %d, %s; want 1 and different exports", code, errOut)
	}
	if code, _, errOut := tally("export", "--check", filepath.Join(dir, "missing.csv")); code != 1 || !strings.Contains(errOut, "no gaps file") {
		t.Errorf("--check without a gaps file: got exit %d, %s; want 1 and \"no gaps file\"", code, errOut)
	}
}
