package kineto

import (
	"strings"
	"testing"
)

// TestPhaseAsWritten checks that a phase is its one character as written:
// the fast path for "X" and the general one agree, and an escaped or longer
// phase is not "X" (phases are not unescaped): such kernels are skipped.
func TestPhaseAsWritten(t *testing.T) {
	plain := kernel("a", "1", "100", "5")
	escaped := strings.Replace(kernel("b", "2", "200", "5"), `"ph": "X"`, `"ph": "\u0058"`, 1)
	long := strings.Replace(kernel("c", "3", "300", "5"), `"ph": "X"`, `"ph": "XX"`, 1)
	quote := strings.Replace(kernel("e", "5", "500", "5"), `"ph": "X"`, `"ph": "\"X"`, 1)
	spaced := strings.Replace(kernel("d", "4", "400", "5"), `"ph": "X"`, `"ph" :  "X"`, 1)
	for _, cfg := range []config{defaultConfig, {bufSize: 16, logRecords: 2}} {
		cfg.tmpDir = t.TempDir()
		res := readWith(t, trace([]string{plain, escaped, long, quote, spaced}), nil, cfg)
		if len(res.disp) != 2 {
			t.Fatalf("buffer %d: %d dispatches, want 2 (a and d)", cfg.bufSize, len(res.disp))
		}
		if s := res.c.Accounting.FindSkip("events", reasonText[rsBadDevice]); s == nil || s.Count != 3 {
			t.Errorf("buffer %d: kernels with a bad phase: got %+v, want 3", cfg.bufSize, s)
		}
	}
}
