package layers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sidecars writes layer_<l>.json saying [tm, th] beside every dump in dir.
func sidecars(t *testing.T, dir string) {
	t.Helper()
	for l := 0; l < tl; l++ {
		sidecar(t, dir, l, tm, th)
	}
}

// text is rep's text report.
func text(t *testing.T, rep *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A --hidden of another width than the dumps' malforms every layer: that
// is nothing compared, and the reason names --hidden and the width the
// dumps state, not "0 compared" among malformed layers.
func TestNothingComparedWrongHidden(t *testing.T) {
	ref, ours := dumps(t, func(l, r, c int) float64 { return 0 })
	sidecars(t, ref)
	sidecars(t, ours)
	rep := run(t, ref, ours, Options{Hidden: th / 2})
	want := fmt.Sprintf("--hidden %d does not fit the dumps: without it, all %d malformed layers would be compared (with H = %d from the ref sidecar)", th/2, tl, th)
	if rep.Totals.Compared != 0 || !strings.HasPrefix(rep.NothingCompared, want) {
		t.Fatalf("got %q (%d compared), want %q…", rep.NothingCompared, rep.Totals.Compared, want)
	}
	if out := text(t, rep); !strings.Contains(out, "NOTHING COMPARED: "+want) {
		t.Fatalf("got text without the reason, want %q in:\n%s", "NOTHING COMPARED: "+want, out)
	}
	// Bare dumps whose size is no multiple of 4·H: compared flat without it.
	ref, ours = dumps(t, func(l, r, c int) float64 { return 0 })
	rep = run(t, ref, ours, Options{Hidden: 48})
	want = "--hidden 48 does not fit the dumps: without it, all 10 malformed layers would be compared (as flat vectors, the row width unknown), not malformed; layer 0: layer_0.f32 is 2048 bytes, not a multiple of 4·H = 192"
	if !strings.HasPrefix(rep.NothingCompared, want) {
		t.Fatalf("got %q, want %q…", rep.NothingCompared, want)
	}
	// The negative arms: the right width compares; a --hidden that
	// malforms one layer only (its sidecar says another width) leaves the
	// others compared, so something was.
	sidecars(t, ref)
	sidecars(t, ours)
	if rep := run(t, ref, ours, Options{Hidden: th}); rep.NothingCompared != "" || rep.Totals.Compared != tl {
		t.Fatalf("right width: got %q, %d compared, want \"\", %d", rep.NothingCompared, rep.Totals.Compared, tl)
	}
	writeF32(t, ours, 3, tm*2, th/2, func(r, c int) float64 { return 0 })
	writeF32(t, ref, 3, tm*2, th/2, func(r, c int) float64 { return 0 })
	for _, d := range []string{ref, ours} {
		sidecar(t, d, 3, tm*2, th/2)
	}
	rep = run(t, ref, ours, Options{Hidden: th})
	if ly := byLayer(rep, 3); rep.NothingCompared != "" || ly.Status != "malformed" || ly.hiddenFit == "" {
		t.Fatalf("one layer of another width: got %q, layer 3 %s (fit %q), want \"\", malformed by --hidden", rep.NothingCompared, ly.Status, ly.hiddenFit)
	}
}

// Layers malformed whatever --hidden says are not blamed on it; dumps of
// disjoint layers are nothing compared too.
func TestNothingComparedOtherReasons(t *testing.T) {
	ref, ours := dumps(t, func(l, r, c int) float64 { return 0 })
	for l := 0; l < tl; l++ {
		p := filepath.Join(ours, fmt.Sprintf("layer_%d.f32", l))
		if err := os.Truncate(p, 4*tm*th-2); err != nil {
			t.Fatal(err)
		}
	}
	for _, hidden := range []int64{0, th} {
		rep := run(t, ref, ours, Options{Hidden: hidden})
		want := "every layer with a file on both sides is malformed (10); layer 0: layer_0.f32 is 2046 bytes, not a multiple of 4"
		if !strings.HasPrefix(rep.NothingCompared, want) || strings.Contains(rep.NothingCompared, "--hidden") {
			t.Fatalf("--hidden %d: got %q, want %q…", hidden, rep.NothingCompared, want)
		}
	}
	ref, ours = t.TempDir(), t.TempDir()
	writeF32(t, ref, 0, tm, th, func(r, c int) float64 { return 0 })
	writeF32(t, ours, 1, tm, th, func(r, c int) float64 { return 0 })
	rep := run(t, ref, ours, Options{})
	if want := "no layer has a file on both sides (ref 1 file, ours 1 file, paired by layer number)"; !strings.HasPrefix(rep.NothingCompared, want) {
		t.Fatalf("got %q, want %q…", rep.NothingCompared, want)
	}
	if out, want := text(t, rep), "(1 file matching "; !strings.Contains(out, want) {
		t.Fatalf("text lacks %q:\n%s", want, out)
	}
}

// A NaN or Inf in row 0 of our dump is named as such against the [L]
// line, not "LOG DIFFERS … n/a and n/a"; an [L] line that printed nan for
// it agrees, and JSON (which has no NaN) still encodes.
func TestRow0NonFinite(t *testing.T) {
	ref, ours := dumps(t, func(l, r, c int) float64 {
		switch {
		case l == 4 && r == 0 && c == 3:
			return math.NaN()
		case l == 6 && r == 0 && c < 2:
			return math.Inf(-1)
		}
		return 0
	})
	lp := writeFile(t, filepath.Join(t.TempDir(), "engine.log"), layerLog())
	rep := run(t, ref, ours, Options{Hidden: th, Log: lp})
	for l, holds := range map[int64]string{4: "holds 1 NaN,", 6: "holds 2 Inf,"} {
		ly := byLayer(rep, l)
		if ly.Log == nil || ly.Log.Agrees || !ly.Log.Row0NonFinite {
			t.Fatalf("layer %d: got %+v, want row 0 non-finite, not agreeing", l, ly.Log)
		}
		out := text(t, rep)
		if want := fmt.Sprintf("NaN/Inf IN ROW 0 of layer %d: row 0 of %s %s", l, ly.Ours.File, holds); !strings.Contains(out, want) {
			t.Fatalf("text lacks %q:\n%s", want, out)
		}
		if strings.Contains(out, "n/a") || strings.Contains(out, "LOG DIFFERS") {
			t.Fatalf("got row 0 NaN/Inf shown as a log difference (n/a or LOG DIFFERS), want none:\n%s", out)
		}
	}
	if ly := byLayer(rep, 4); ly.Ours.Row0NaN != 1 || ly.Ours.Row0Inf != 0 || ly.Ours.Row0MeanAbs != nil {
		t.Fatalf("layer 4 row 0: got %+v, want 1 NaN, 0 Inf, no mean", ly.Ours)
	}
	if rep.Totals.LogMismatch != 2 {
		t.Fatalf("log mismatches: got %d, want 2", rep.Totals.LogMismatch)
	}
	// The engine printed nan for layer 4 too: both say the row is not
	// numbers. For layer 5, whose row 0 is finite, nan is a difference.
	lines := strings.SplitAfter(layerLog(), "\n")
	lines[4], lines[5] = "  [L] 4 nan nan\n", "  [L] 5 nan inf\n"
	writeFile(t, lp, strings.Join(lines, ""))
	rep = run(t, ref, ours, Options{Hidden: th, Log: lp})
	if ly := byLayer(rep, 4); !ly.Log.Agrees {
		t.Fatalf("nan against a NaN row: got %+v, want agrees", ly.Log)
	}
	if ly := byLayer(rep, 5); ly.Log.Agrees || ly.Log.Row0NonFinite {
		t.Fatalf("nan against a finite row: got %+v, want a difference", ly.Log)
	}
	if out := text(t, rep); !strings.Contains(out, "LOG DIFFERS layer 5: [L] line 6 says mean|x| NaN absmax +Inf") {
		t.Fatalf("got text without the NaN line 6 difference, want %q in:\n%s", "LOG DIFFERS layer 5: [L] line 6 says mean|x| NaN absmax +Inf", out)
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatalf("JSON of a nan [L] line: %v", err)
	}
	var doc struct {
		Layers []struct {
			Log *struct {
				MeanAbs *float64 `json:"mean_abs"`
				Agrees  bool
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || doc.Layers[4].Log.MeanAbs != nil || doc.Layers[3].Log.MeanAbs == nil {
		t.Fatalf("JSON: got %v, layer 4 mean_abs %v, want null (and a number for layer 3)", err, doc.Layers[4].Log.MeanAbs)
	}
}
