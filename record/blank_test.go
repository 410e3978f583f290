package record

import (
	"testing"

	"github.com/tallyprof/tally/internal/testfile"
)

// An empty stderr line (`echo >&2`, common in any program's output) is kept
// as a stamped empty line; it must not crash the recorder. (Lines: the
// header, three lines, the end record.)
func TestRecordKeepsEmptyLines(t *testing.T) {
	res, kept, _, errOut := recordScript(t, "echo a >&2; echo >&2; echo b >&2")
	b := testfile.Read(t, kept)
	if res.Lines != 5 || errOut.String() != "a\n\nb\n" {
		t.Fatalf("got lines %d, passed %q; want 5 and %q; kept:\n%s", res.Lines, errOut.String(), "a\n\nb\n", b)
	}
}
