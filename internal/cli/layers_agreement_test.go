package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// Ours all zeros at the first layer has no agreement with the reference:
// it was "ok", COMPLETE, and --strict exited 0 (the step rule takes the
// first layer's error as a baseline). Now it is a finding.
func TestLayersNoAgreementStrict(t *testing.T) {
	ref, ours := t.TempDir(), t.TempDir()
	for l := 0; l < 4; l++ {
		v := []float32{1, 2, 3, 4, float32(l), 6}
		writeF32(t, ref, l, v)
		if l == 0 {
			v = make([]float32, len(v))
		}
		writeF32(t, ours, l, v)
	}
	if code, out, _ := tally("layers", "--hidden", "3", ref, ours); code != 0 || !strings.Contains(out, "NO AGREEMENT") || !strings.Contains(out, "\nFINDINGS:") {
		t.Fatalf("got exit %d\n%s\nwant 0, NO AGREEMENT and FINDINGS", code, out)
	}
	if code, _, _ := tally("layers", "--strict", ref, ours); code != 1 {
		t.Fatalf("--strict with ours all zeros at layer 0: got exit %d, want 1", code)
	}
	code, out, _ := tally("layers", "--json", ref, ours)
	var doc struct {
		Totals struct {
			NoAgreement int `json:"no_agreement"`
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Totals.NoAgreement != 1 {
		t.Fatalf("json: got exit %d\n%s\nwant 0 and totals.no_agreement 1", code, out)
	}
}
