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

	"github.com/tallyprof/tally/internal/golden"
)

const (
	tm = 8  // rows (tokens)
	th = 64 // hidden size
	tl = 10 // layers
)

// dumps writes tl layers on each side: ref exact, ours perturbed by err(l).
func dumps(t *testing.T, perturb func(l, r, c int) float64) (ref, ours string) {
	ref, ours = t.TempDir(), t.TempDir()
	for l := 0; l < tl; l++ {
		writeF32(t, ref, l, tm, th, func(r, c int) float64 { return value(l, r, c) })
		writeF32(t, ours, l, tm, th, func(r, c int) float64 { return value(l, r, c) + perturb(l, r, c) })
	}
	return ref, ours
}

func run(t *testing.T, ref, ours string, opt Options) *Report {
	t.Helper()
	r, err := Run(ref, ours, opt)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return r
}

func byLayer(r *Report, l int64) *Layer {
	for _, ly := range r.Layers {
		if ly.Layer == l {
			return ly
		}
	}
	return nil
}

func TestEqual(t *testing.T) {
	ref, ours := dumps(t, func(l, r, c int) float64 { return 0 })
	rep := run(t, ref, ours, Options{Hidden: th})
	if rep.Findings() || rep.Totals.Compared != tl {
		t.Fatalf("equal dumps: got %+v, want no findings and %d compared", rep.Totals, tl)
	}
	m := byLayer(rep, 3).Metrics
	if *m.Cosine < 1-1e-12 || *m.RelL2 != 0 || *m.MaxAbsDiff != 0 || *m.RowCosineMin < 1-1e-12 || m.Rows != tm {
		t.Fatalf("layer 3: got %+v, want cosine 1, rel L2 0, max diff 0, row cosine 1, %d rows", m, tm)
	}
	// Without H, the pair is compared flat and says so.
	rep = run(t, ref, ours, Options{})
	if ly := byLayer(rep, 0); ly.Metrics.H != 0 || ly.Metrics.RowCosineMin != nil || !strings.HasPrefix(ly.HFrom, "unknown") {
		t.Fatalf("flat: got %+v, want H 0, no row cosine, HFrom \"unknown…\"", ly)
	}
}

func TestSmoothDriftAndStep(t *testing.T) {
	// Drift: the error grows by 0.2% of the value per layer.
	ref, ours := dumps(t, func(l, r, c int) float64 { return 0.002 * float64(l) * value(l, r, c+7) })
	rep := run(t, ref, ours, Options{Hidden: th})
	if rep.Step != nil || rep.Findings() {
		t.Fatalf("smooth drift: got step %+v, want none and no findings", rep.Step)
	}
	// A step at layer 6: the error jumps to 30% and stays.
	ref, ours = dumps(t, func(l, r, c int) float64 {
		e := 0.002 * float64(l)
		if l >= 6 {
			e += 0.3
		}
		return e * value(l, r, c+7)
	})
	rep = run(t, ref, ours, Options{Hidden: th})
	if rep.Step == nil || rep.Step.Layer != 6 || !rep.Findings() {
		t.Fatalf("got step %+v, want one at layer 6 and a finding", rep.Step)
	}
	if out := text(t, rep); !strings.Contains(out, "STEP CHANGE at layer 6") {
		t.Fatalf("got no \"STEP CHANGE at layer 6\", want it in:\n%s", out)
	}
	// Only row 5 differs: the per-row minimum finds it.
	ref, ours = dumps(t, func(l, r, c int) float64 {
		if r == 5 && l == 2 {
			return 0.5 * value(l, r, c) * float64(c%2*2-1)
		}
		return 0
	})
	m := byLayer(run(t, ref, ours, Options{Hidden: th}), 2).Metrics
	if m.RowCosineMinRow != 5 || *m.RowCosineMin > 0.99 || *m.Cosine < *m.RowCosineMin {
		t.Fatalf("row min: got %v at row %d, want at most 0.99 at row 5 (and no more than the cosine)", *m.RowCosineMin, m.RowCosineMinRow)
	}
}

func TestMissingLayers(t *testing.T) {
	ref, ours := dumps(t, func(l, r, c int) float64 { return 0 })
	os.Remove(filepath.Join(ours, "layer_3.f32"))
	os.Remove(filepath.Join(ref, "layer_5.f32"))
	os.Remove(filepath.Join(ours, "layer_5.f32"))
	os.Remove(filepath.Join(ref, "layer_9.f32")) // the last layer, ours only
	rep := run(t, ref, ours, Options{Hidden: th})
	for _, c := range []struct {
		l    int64
		side string
	}{{3, "ours"}, {5, "ref,ours"}, {9, "ref"}} {
		ly := byLayer(rep, c.l)
		if ly == nil || ly.Status != "not_written" || strings.Join(ly.NotWritten, ",") != c.side || ly.Metrics != nil {
			t.Fatalf("layer %d: got %+v, want not_written on %s, no metrics", c.l, ly, c.side)
		}
		if strings.Contains(ly.Problem, "did not run") || !strings.Contains(ly.Problem, "not written") {
			t.Fatalf("layer %d wording: got %q, want \"not written\", not \"did not run\"", c.l, ly.Problem)
		}
	}
	if rep.Totals.NotWritten != 3 || !rep.Findings() {
		t.Fatalf("got totals %+v, want 3 not written and a finding", rep.Totals)
	}
	golden.Check(t, "testdata/missing.golden", bytes.ReplaceAll(bytes.ReplaceAll([]byte(text(t, rep)), []byte(ref), []byte("REF")), []byte(ours), []byte("OURS")))
}

func TestTruncatedAndMismatched(t *testing.T) {
	ref, ours := dumps(t, func(l, r, c int) float64 { return 0 })
	cut := func(l int, by int64) {
		p := filepath.Join(ours, fmt.Sprintf("layer_%d.f32", l))
		st, _ := os.Stat(p)
		if err := os.Truncate(p, st.Size()-by); err != nil {
			t.Fatal(err)
		}
	}
	cut(1, 2)      // not a multiple of 4
	cut(2, 4*th)   // a whole row short: the sizes differ
	cut(4, 4*th/2) // half a row: not a multiple of 4·H
	rep := run(t, ref, ours, Options{Hidden: th})
	for l, want := range map[int64]string{
		1: "layer_1.f32 is 2046 bytes, not a multiple of 4 (float32 values)",
		2: "not a multiple of 4·H = 256", // 1792 bytes = 7 rows: ok for H; then the values differ
		4: "layer_4.f32 is 1920 bytes, not a multiple of 4·H = 256 (H = 64 from --hidden)",
	} {
		ly := byLayer(rep, l)
		if l == 2 {
			want = "shape mismatch: ref layer_2.f32 (2048 bytes) holds 512 values, ours layer_2.f32 (1792 bytes) holds 448"
		}
		if ly.Status != "malformed" || !strings.Contains(ly.Problem, want) {
			t.Errorf("layer %d: got %s %q, want malformed with %q", l, ly.Status, ly.Problem, want)
		}
	}
	if rep.Totals.Malformed != 3 || rep.Totals.Compared != tl-3 {
		t.Fatalf("got totals %+v, want 3 malformed and %d compared", rep.Totals, tl-3)
	}
	// A malformed side still states what it is: its size and kind.
	if ly := byLayer(rep, 1); ly.Ours == nil || ly.Ours.Bytes != 2046 || ly.Ours.Kind != "f32" {
		t.Errorf("layer 1 ours: got %+v, want its 2046 bytes of f32", ly.Ours)
	}
}

func TestNpyReference(t *testing.T) {
	ref, ours := t.TempDir(), t.TempDir()
	for l, c := range []struct {
		major byte
		descr string
	}{{1, "<f4"}, {2, "<f8"}, {3, "<f2"}} {
		writeNpy(t, filepath.Join(ref, fmt.Sprintf("layer_%d.npy", l)), c.major, c.descr, []int{1, tm, th},
			func(i int) float64 { return value(l, i/th, i%th) })
		writeF32(t, ours, l, tm, th, func(r, col int) float64 { return value(l, r, col) })
	}
	writeNpy(t, filepath.Join(ref, "layer_3.npy"), 1, "<i4", []int{tm, th}, nil)
	writeF32(t, ours, 3, tm, th, func(r, c int) float64 { return 0 })
	writeNpy(t, filepath.Join(ref, "layer_4.npy"), 1, "<f4", []int{tm, th / 2}, func(i int) float64 { return 1 })
	writeF32(t, ours, 4, tm/2, th, func(r, c int) float64 { return 1 })
	rep := run(t, ref, ours, Options{})
	for l := int64(0); l < 3; l++ {
		ly := byLayer(rep, l)
		if ly.Status != "compared" || ly.Metrics.H != th || ly.HFrom != "ref .npy shape" {
			t.Fatalf("layer %d: got %+v, want compared with H %d from \"ref .npy shape\"", l, ly, th)
		}
		tol := 1e-12
		if ly.Ref.DType == "f16" {
			tol = 1e-5
		}
		if 1-*ly.Metrics.Cosine > tol {
			t.Errorf("layer %d (%s): got cosine %v, want 1 within %g", l, ly.Ref.DType, *ly.Metrics.Cosine, tol)
		}
	}
	if ly := byLayer(rep, 3); ly.Status != "malformed" || !strings.Contains(ly.Problem, `dtype "<i4" is not supported`) {
		t.Fatalf("i4: got %+v, want malformed with dtype \"<i4\" not supported", ly)
	}
	// Same number of values, rows of 32 vs 64: the --hidden H is wrong for
	// one of them, and that is a shape mismatch, not a comparison.
	rep = run(t, ref, ours, Options{Hidden: th})
	if ly := byLayer(rep, 4); ly.Status != "malformed" || !strings.Contains(ly.Problem, "shape mismatch: ref rows of 32 (.npy shape), ours rows of 64 (--hidden)") {
		t.Fatalf("layer 4: got %+v, want malformed with the shape mismatch of rows 32 and 64", ly)
	}
}

func TestNaN(t *testing.T) {
	ref, ours := dumps(t, func(l, r, c int) float64 {
		if l == 7 && c%10 == 0 {
			return math.NaN()
		}
		if l == 7 && c == 1 {
			return math.Inf(1)
		}
		return 0
	})
	rep := run(t, ref, ours, Options{Hidden: th})
	ly := byLayer(rep, 7)
	if ly.Ours.NaN != tm*7 || ly.Ours.Inf != tm || ly.Ref.NaN != 0 || rep.Totals.NonFinite != 1 || !rep.Findings() {
		t.Fatalf("NaN: got %+v %+v; want ours %d NaN and %d Inf, ref none, 1 non-finite layer, a finding", ly.Ours, rep.Totals, tm*7, tm)
	}
	if ly.Metrics.FinitePairs != tm*th-tm*8 || 1-*ly.Metrics.Cosine > 1e-12 {
		t.Fatalf("finite pairs: got %+v, want %d pairs with cosine 1", ly.Metrics, tm*th-tm*8)
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || doc["schema"] != Schema {
		t.Fatalf("json: got error %v, schema %v; want none and %s", err, doc["schema"], Schema)
	}
}

func TestSidecarAndLog(t *testing.T) {
	ref, ours := dumps(t, func(l, r, c int) float64 { return 0 })
	sidecars(t, ours)
	sidecar(t, ours, 8, 3, 5)
	// [L] lines: layers 0-2 as the dump's row 0, layer 1 wrong, layer 11 without a dump.
	var log strings.Builder
	log.WriteString("# tally kept trace v1 clock=monotonic unit=ns\n")
	for l := 0; l < 3; l++ {
		mean, mx := genRow0(l)
		if l == 1 {
			mx *= 1.1
		}
		fmt.Fprintf(&log, "%d   [L] %d %.6f %.4f\n", 100+l, l, mean, mx)
	}
	log.WriteString("  [L] 11 0.5 1.0\n")
	lp := writeFile(t, filepath.Join(t.TempDir(), "engine.kept"), log.String())
	rep := run(t, ref, ours, Options{Log: lp})
	if ly := byLayer(rep, 0); ly.HFrom != "ours sidecar" || ly.Log == nil || !ly.Log.Agrees || ly.Log.Line != 2 {
		t.Fatalf("layer 0: got %+v %+v, want H from the ours sidecar and a log line 2 that agrees", ly, ly.Log)
	}
	if ly := byLayer(rep, 1); ly.Log.Agrees || rep.Totals.LogMismatch != 1 {
		t.Fatalf("layer 1: got %+v, want a log mismatch (1 in the totals)", ly.Log)
	}
	if ly := byLayer(rep, 8); ly.Status != "malformed" || !strings.Contains(ly.Problem, "its sidecar says shape [3 5] (15 values)") {
		t.Fatalf("bad sidecar: got %+v, want malformed saying its sidecar says shape [3 5]", ly)
	}
	if rep.Log.WithoutDump != "11" {
		t.Fatalf("log: got %+v, want WithoutDump \"11\"", rep.Log)
	}
}

func TestMapAndErrors(t *testing.T) {
	ref, ours := t.TempDir(), t.TempDir()
	for l := 0; l < 3; l++ {
		writeNpy(t, filepath.Join(ref, fmt.Sprintf("model.layers.%d.out.npy", l)), 1, "<f4", []int{2, 4}, func(i int) float64 { return float64(i) })
		writeF32(t, ours, l, 2, 4, func(r, c int) float64 { return float64(r*4 + c) })
	}
	if _, err := Run(ref, ours, Options{}); err == nil || !strings.Contains(err.Error(), "--map") {
		t.Fatalf("unmatched names: got %v, want an error naming --map", err)
	}
	rep := run(t, ref, ours, Options{Map: "model.layers.{l}.out.npy=layer_{l}.f32"})
	if rep.Totals.Compared != 3 || rep.Findings() {
		t.Fatalf("got totals %+v, want 3 compared and no findings", rep.Totals)
	}
	// Explicit file lists.
	list := filepath.Join(ours, "layer_0.f32") + "," + filepath.Join(ours, "layer_1.f32")
	rep = run(t, filepath.Join(ours, "layer_0.f32")+","+filepath.Join(ours, "layer_1.f32"), list, Options{})
	if rep.Totals.Compared != 2 {
		t.Fatalf("got totals %+v, want 2 compared", rep.Totals)
	}
	if _, err := Run(ref, ours, Options{Map: "a=b{l}{l}"}); err == nil {
		t.Fatal("bad pattern: got no error, want one")
	}
	if _, err := Run(filepath.Join(ref, "nope"), ours, Options{}); err == nil {
		t.Fatal("missing input: got no error, want one")
	}
}

// The log shows layers 10 and 11 ran, past the last dump on either side:
// their dumps were not written, so the comparison is not complete and
// --strict must fail, though no layer between files is missing.
func TestLogLayersPastTheDumps(t *testing.T) {
	ref, ours := dumps(t, func(l, r, c int) float64 { return 0 })
	lp := writeFile(t, filepath.Join(t.TempDir(), "engine.log"), layerLog()+"  [L] 10 0.5 1.0\n  [L] 11 0.5 1.0\n")
	rep := run(t, ref, ours, Options{Hidden: th, Log: lp})
	if rep.Totals.LogMismatch != 0 || rep.Totals.Compared != tl || rep.Log.WithoutDump != "10..11" {
		t.Fatalf("got %+v %+v, want no log mismatch, %d compared, WithoutDump \"10..11\"", rep.Totals, rep.Log, tl)
	}
	if !rep.Findings() {
		t.Fatal("got no finding, want one: the log shows layers that ran without a dump")
	}
	if out := text(t, rep); strings.Contains(out, "COMPLETE") {
		t.Fatalf("got verdict COMPLETE, want a finding:\n%s", out)
	}
	// The negative arm: a log whose layers all have dumps is no finding.
	writeFile(t, lp, layerLog())
	if rep := run(t, ref, ours, Options{Hidden: th, Log: lp}); rep.Findings() || rep.Log.WithoutDump != "none" {
		t.Fatalf("complete log: got %+v %+v, want no finding and WithoutDump \"none\"", rep.Totals, rep.Log)
	}
}

// Asking for the [L] check and getting none must not read as agreement: a
// log that checks no layer, or layers that cannot be checked for want of
// the row width, are findings.
func TestLogThatChecksNothing(t *testing.T) {
	ref, ours := dumps(t, func(l, r, c int) float64 { return 0 })
	lp := writeFile(t, filepath.Join(t.TempDir(), "engine.log"), layerLog())
	// The positive arm: every layer checked, nothing found.
	if rep := run(t, ref, ours, Options{Hidden: th, Log: lp}); rep.Findings() || rep.Log.Checked != tl || rep.Log.Unchecked != 0 {
		t.Fatalf("checked log: got %+v %+v, want no finding, %d checked, 0 unchecked", rep.Totals, rep.Log, tl)
	}
	// No row width: the layers cannot be checked.
	rep := run(t, ref, ours, Options{Log: lp})
	if !rep.Findings() || rep.Log.Unchecked != tl || rep.Log.Checked != 0 {
		t.Fatalf("unchecked log: got %+v %+v, want a finding, %d unchecked, 0 checked", rep.Totals, rep.Log, tl)
	}
	if out := text(t, rep); !strings.Contains(out, "LOG UNCHECKED: ") || strings.Contains(out, "COMPLETE") {
		t.Fatalf("got text without \"LOG UNCHECKED: \" or with COMPLETE, want the first and not the second:\n%s", out)
	}
	// A log without a single [L] line checks nothing.
	writeFile(t, lp, "[prof] npu_gemm n=100 pack=0.1 quant+launch=0.2 wait=0.3 readback=0.1 ms (N=4)\n")
	rep = run(t, ref, ours, Options{Hidden: th, Log: lp})
	if out := text(t, rep); !rep.Findings() || rep.Log.Checked != 0 || !strings.Contains(out, "LOG CHECKED NOTHING") {
		t.Fatalf("empty log: got %+v %+v, want a finding, 0 checked and \"LOG CHECKED NOTHING\" in:\n%s", rep.Totals, rep.Log, out)
	}
}

// genRow0 is mean|x| and max|x| of row 0 of the dump value() generates for
// layer l, as float32: what the engine's [L] line prints.
func genRow0(l int) (meanAbs, absMax float64) {
	var sum float64
	for c := 0; c < th; c++ {
		a := math.Abs(float64(float32(value(l, 0, c))))
		sum += a
		absMax = max(absMax, a)
	}
	return sum / th, absMax
}

// layerLog is the [L] log of the dumps value() generates, printed as the
// engine prints it.
func layerLog() string {
	var log strings.Builder
	for l := 0; l < tl; l++ {
		mean, mx := genRow0(l)
		fmt.Fprintf(&log, "  [L] %d %.6f %.4f\n", l, mean, mx)
	}
	return log.String()
}
