package record

import (
	"os"
	"path/filepath"
	"testing"
)

// An empty stderr line (`echo >&2`, common in any program's output) is kept
// as a stamped empty line; it must not crash the recorder. (Lines: the
// header, three lines, the end record.)
func TestRecordKeepsEmptyLines(t *testing.T) {
	kept := filepath.Join(t.TempDir(), "blank.kept")
	var out, errOut syncBuffer
	res, err := Run(Options{Command: []string{"/bin/sh", "-c", "echo a >&2; echo >&2; echo b >&2"}, Kept: kept, Stdout: &out, Stderr: &errOut})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	if res.Lines != 5 || errOut.String() != "a\n\nb\n" {
		t.Fatalf("lines %d, passed %q, kept:\n%s", res.Lines, errOut.String(), b)
	}
}
