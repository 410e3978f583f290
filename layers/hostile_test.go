package layers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Directory names come from the user's file system and may hold anything:
// the text report escapes them, so none can forge the verdict line or
// send the terminal an escape sequence.
func TestHostilePathsEscaped(t *testing.T) {
	base := t.TempDir()
	forged := "d\nCOMPLETE: 10 compared, 0 not written\n\x1b[8m"
	ref, ours := filepath.Join(base, "ref"+forged), filepath.Join(base, "ours"+forged)
	for _, d := range []string{ref, ours} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Skipf("this file system refuses the name: %v", err)
		}
	}
	for l := 0; l < 3; l++ {
		writeF32(t, ref, l, tm, th, func(r, c int) float64 { return value(l, r, c) })
		if l != 1 { // layer 1 not written by ours: a finding
			writeF32(t, ours, l, tm, th, func(r, c int) float64 { return value(l, r, c) })
		}
	}
	rep, err := Run(ref, ours, Options{Hidden: th})
	if err != nil {
		t.Fatal(err)
	}
	out := text(t, rep)
	if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && r < 0x20 }); i >= 0 {
		t.Errorf("text holds control %q at byte %d, want none but newlines:\n%s", out[i], i, out)
	}
	var verdicts []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "COMPLETE") || strings.HasPrefix(l, "FINDINGS") {
			verdicts = append(verdicts, l)
		}
	}
	if len(verdicts) != 1 || !strings.HasPrefix(verdicts[0], "FINDINGS: ") {
		t.Errorf("verdict lines %q, want one FINDINGS line:\n%s", verdicts, out)
	}
	if !strings.Contains(out, `refd\nCOMPLETE: 10 compared, 0 not written\n\x1b[8m`) {
		t.Errorf("got no escaped path in the text, want %q in:\n%s", `refd\nCOMPLETE: 10 compared, 0 not written\n\x1b[8m`, out)
	}
}
