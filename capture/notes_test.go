package capture

import (
	"sort"
	"testing"
)

// Notes lists the built-in notes and those registered later, sorted, and
// no sized kind.
func TestNotesListsRegistered(t *testing.T) {
	RegisterNote("test_note_kind")
	got := Notes()
	has := map[Kind]bool{}
	for _, k := range got {
		has[k] = true
	}
	for _, k := range []Kind{GraphLaunch, NoEndMarker, LongName, "test_note_kind"} {
		if !has[k] {
			t.Errorf("Notes: got %v, want %s among them", got, k)
		}
	}
	if has[TruncatedInput] {
		t.Errorf("Notes: got %s among them, want only notes", TruncatedInput)
	}
	if !sort.SliceIsSorted(got, func(i, j int) bool { return got[i] < got[j] }) {
		t.Errorf("Notes: got %v, want them sorted by name", got)
	}
}
