package layers

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A reference layer of zeros against ours of thousands has no relative
// error, so the step rule cannot see it: it is a finding of its own
// (unmeasured_layers), flagged in its row and the verdict. Zeros on both
// sides agree and are no finding.
func TestZeroReferenceDiffers(t *testing.T) {
	ref, ours := t.TempDir(), t.TempDir()
	for l := 0; l < tl; l++ {
		zero := l == 4 || l == 6
		writeF32(t, ref, l, tm, th, func(r, c int) float64 {
			if zero {
				return 0
			}
			return value(l, r, c)
		})
		writeF32(t, ours, l, tm, th, func(r, c int) float64 {
			switch {
			case l == 4:
				return 1000 + float64(c)
			case l == 6:
				return 0
			}
			return value(l, r, c)
		})
	}
	rep := run(t, ref, ours, Options{Hidden: th})
	if rep.Totals.Unmeasured != 1 || !rep.Findings() {
		t.Fatalf("got totals %+v, findings %v; want 1 unmeasured layer (4; not 6, zeros on both sides) and a finding", rep.Totals, rep.Findings())
	}
	if ly := byLayer(rep, 4); ly.Metrics.RelL2 != nil || !unmeasured(ly.Metrics) {
		t.Fatalf("layer 4: got %+v, want no relative error and unmeasured", ly.Metrics)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "DIFFERS, REF ZERO") || !strings.Contains(out, "FINDINGS") || !strings.Contains(out, "1 compared layers differ where the reference is zero") {
		t.Fatalf("got\n%s\nwant layer 4 flagged DIFFERS, REF ZERO, the verdict FINDINGS and the count", out)
	}
	b.Reset()
	if err := rep.WriteJSON(&b); err != nil || !strings.Contains(b.String(), `"unmeasured_layers": 1`) {
		t.Fatalf("JSON: got %v\n%s\nwant totals.unmeasured_layers 1", err, b.String())
	}
}

// A directory named as a layer's dump is an unusable file, said, not
// passed over: ours holds layer_9.f32 as a directory.
func TestDirectoryNamedAsDump(t *testing.T) {
	ref, ours := dumps(t, func(l, r, c int) float64 { return 0 })
	p := filepath.Join(ours, "layer_9.f32")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	rep := run(t, ref, ours, Options{Hidden: th})
	if rep.Totals.Unusable != 1 || !rep.Findings() || len(rep.Unusable) != 1 || rep.Unusable[0].File != p || !strings.Contains(rep.Unusable[0].Problem, "a directory") {
		t.Fatalf("got totals %+v, unusable %+v; want the directory %s listed as unusable and a finding", rep.Totals, rep.Unusable, p)
	}
}
