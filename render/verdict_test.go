package render

import (
	"testing"

	"github.com/tallyprof/tally/capture"
)

func TestCompleteVerdict(t *testing.T) {
	c := &capture.Capture{}
	if got, want := CompleteVerdict(c), "COMPLETE: every input unit is accounted for and no gap was found"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	c.Accounting.NoEndMarker("row", "why").AddN(1)
	if got, want := CompleteVerdict(c), "COMPLETE up to the last row: this input has no end marker, so a cut at a row boundary cannot be detected; everything before it is accounted for"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// Many inputs of two units.
	w := &capture.Capture{Source: capture.Source{Format: "many"}}
	w.Accounting.NoEndMarker("line", "why").AddN(1)
	w.Accounting.NoEndMarker("row", "why").AddN(1)
	w.Accounting.NoEndMarker("line", "why").AddN(1)
	if got, want := CompleteVerdict(w), "COMPLETE up to each input's last line or row: 3 inputs have no end marker, so a cut at a line or row boundary cannot be detected; everything before it is accounted for"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if !w.Accounting.Complete() {
		t.Fatal("with no_end_marker notes only: got incomplete, want complete")
	}
	if a := Accounting(w); a.EndMarker == nil || *a.EndMarker || a.CutUnit != "line or row" {
		t.Fatalf("JSON: got %+v, want end_marker false, cut_unit \"line or row\"", a)
	}
}
