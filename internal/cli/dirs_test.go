package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runDirOf puts traces into rank directories of one run with a README.
func runDirOf(t *testing.T, traces ...string) string {
	t.Helper()
	dir := t.TempDir()
	for i, tr := range traces {
		p := filepath.Join(dir, "rank"+string(rune('0'+i)), "trace.kept")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Rename(tr, p); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, dir, "README.md", "notes\n")
	return dir
}

// tally export and tally diff take directories as tally report does: the
// traces in them are inputs, other files are named as skipped.
func TestExportAndDiffDirectories(t *testing.T) {
	dir := runDirOf(t, genTrace(t, "a.kept", 1, 1), genTrace(t, "b.kept", 2, 1))
	out := filepath.Join(t.TempDir(), "out.csv")
	code, _, errOut := tally("export", "--to", "csv", dir, "-o", out)
	if code != 0 || !strings.Contains(errOut, "tally export: skipped "+filepath.Join(dir, "README.md")) {
		t.Fatalf("export: got exit %d, stderr %q; want 0 and README.md named as skipped", code, errOut)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "\n0,0,p41,") || !strings.Contains(string(b), "\n1,1,p41,") {
		t.Fatalf("export: got %v\n%.400s\nwant rows of both ranks", err, b)
	}
	other := genTrace(t, "c.kept", 3, 1)
	text := tallyOK(t, "diff", dir, other)
	for _, want := range []string{"A: skipped " + filepath.Join(dir, "README.md"), "rank0", "rank1", "program p41: A 24 runs, B 12 runs"} {
		if !strings.Contains(text, want) {
			t.Errorf("diff lacks %q:\n%.1500s", want, text)
		}
	}
}
