package npuprof

import (
	"testing"

	"github.com/tallyprof/tally/capture"
)

// A log cut inside the marker of its last engine line ("[pro" of
// "[prof] dec O …") lost that line: a truncated_input gap, where a cut
// inside any other text is no loss.
func TestCutInsideMarker(t *testing.T) {
	const whole = "[prof] dec QKV 1 100 0.05 0.10 1.200 0.020 1.370\n"
	for _, tail := range []string{"[", "[pro", "[prof]", "  [L]", "[debug] hid", "12 [prof"} {
		r := readLog(t, whole+tail)
		if g := r.gap(capture.TruncatedInput); g == nil || g.Items[0].Where != "run.log:2" {
			t.Errorf("last line %q: got gaps %+v, want truncated_input at run.log:2", tail, r.c.Accounting.Gaps)
		}
	}
	for _, tail := range []string{"INFO done", "[INFO] done", "(prof"} {
		r := readLog(t, whole+tail)
		if r.gap(capture.TruncatedInput) != nil {
			t.Errorf("last line %q: got truncated_input, want none (not an engine line)", tail)
		}
	}
}
