package cli

import (
	"strings"
	"testing"
)

// inspect's help says what it does with an empty capture — describes it,
// exit 0, and 1 under --strict — and it does so; the other commands' help
// says an empty capture is exit 2.
func TestInspectHelpStatesEmptyExit(t *testing.T) {
	empty := writeFile(t, t.TempDir(), "empty.json", "")
	if code, _, _ := tally("inspect", empty); code != 0 {
		t.Errorf("tally inspect EMPTY: got exit %d, want 0 (described)", code)
	}
	if code, _, _ := tally("inspect", "--strict", empty); code != 1 {
		t.Errorf("tally inspect --strict EMPTY: got exit %d, want 1", code)
	}
	_, help, _ := tally("inspect", "-h")
	if !strings.Contains(help, "0 written (an empty capture too") || strings.Contains(help, "or empty capture") {
		t.Errorf("tally inspect -h: got\n%s\nwant its exit status line to say an empty capture exits 0", help)
	}
	if _, help, _ := tally("report", "-h"); !strings.Contains(help, "2 usage or input error, or empty capture") {
		t.Errorf("tally report -h: got\n%s\nwant an empty capture to exit 2", help)
	}
}
