package layers

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// f64Pair writes layer_0.npy (<f8, 2×4) on both sides with ref(i), ours(i).
func f64Pair(t *testing.T, ref, ours func(i int) float64) (string, string) {
	t.Helper()
	rd, od := t.TempDir(), t.TempDir()
	writeNpy(t, filepath.Join(rd, "layer_0.npy"), 1, "<f8", []int{2, 4}, ref)
	writeNpy(t, filepath.Join(od, "layer_0.npy"), 1, "<f8", []int{2, 4}, ours)
	return rd, od
}

// jsonOf writes rep as JSON and checks it parses (no NaN, no Inf).
func jsonOf(t *testing.T, rep *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatalf("JSON: got %v, want it written", err)
	}
	if !json.Valid(b.Bytes()) {
		t.Fatalf("JSON: got invalid\n%s", b.String())
	}
	return b.String()
}

// Finite <f8 values past about 1e154 overflow the float64 sums: the layer
// read "DIFFERS, REF ZERO" with a reference of 2e200s, and a difference
// past the largest float was printed as 1.8e+308 — a figure that read as
// a measurement. Now the layer is OVERFLOWS, unmeasured (a finding), and
// every figure it touched is n/a (null in JSON).
func TestOverflowIsUnmeasured(t *testing.T) {
	for _, c := range []struct {
		name      string
		ref, ours float64
		wantDiff  string // the text's max |diff| cell
	}{
		{"sums overflow", 2e200, 1e200, "1e+200"},
		{"difference overflows", -1.5e308, 1.5e308, "n/a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rd, od := f64Pair(t, func(int) float64 { return c.ref }, func(int) float64 { return c.ours })
			rep := run(t, rd, od, Options{})
			m := byLayer(rep, 0).Metrics
			if !m.Overflow || rep.Totals.Unmeasured != 1 || !rep.Findings() || m.Cosine != nil || m.RelL2 != nil || m.RowCosineMin != nil {
				t.Fatalf("got metrics %+v, totals %+v; want overflow, no cosine, rel L2 or row minimum, 1 unmeasured layer, a finding", m, rep.Totals)
			}
			out := text(t, rep)
			row := ""
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "0 ") {
					row = l
				}
			}
			if !strings.HasSuffix(row, "OVERFLOWS") || !strings.Contains(row, " "+c.wantDiff+" ") || strings.Contains(out, "REF ZERO") || strings.Contains(out, "e+308") {
				t.Fatalf("got\n%s\nwant layer 0 OVERFLOWS with max |diff| %s, no REF ZERO, no 1.8e+308", out, c.wantDiff)
			}
			js := jsonOf(t, rep)
			if !strings.Contains(js, `"overflow": true`) || strings.Contains(js, "e+308") {
				t.Fatalf("JSON: got\n%s\nwant overflow true and no 1.8e+308", js)
			}
		})
	}
}

// Equal huge values overflow the norms, yet agree: cosine 1, no error,
// no finding (the cosine was n/a in an "ok" row).
func TestEqualHugeValuesAgree(t *testing.T) {
	v := func(i int) float64 { return 1e200 * float64(i+1) }
	rd, od := f64Pair(t, v, v)
	rep := run(t, rd, od, Options{})
	m := byLayer(rep, 0).Metrics
	if m.Overflow || m.Cosine == nil || *m.Cosine != 1 || m.RelL2 == nil || *m.RelL2 != 0 || m.RowCosineMin == nil || *m.RowCosineMin != 1 || rep.Findings() {
		t.Fatalf("got metrics %+v, totals %+v; want cosine 1, rel L2 0, row minimum 1, no overflow, no finding", m, rep.Totals)
	}
}

// A layer with no finite pair has no max |diff|: it was 0, which reads as
// agreement beside n/a cosine and rel L2.
func TestNoFinitePairNoMaxDiff(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1)} {
		rd, od := f64Pair(t, func(int) float64 { return v }, func(int) float64 { return v })
		rep := run(t, rd, od, Options{})
		m := byLayer(rep, 0).Metrics
		if m.FinitePairs != 0 || m.MaxAbsDiff != nil || rep.Totals.NonFinite != 1 {
			t.Fatalf("%v on both sides: got metrics %+v, totals %+v; want 0 finite pairs, no max |diff|, 1 non-finite layer", v, m, rep.Totals)
		}
		if js := jsonOf(t, rep); !strings.Contains(js, `"max_abs_diff": null`) {
			t.Fatalf("%v on both sides: JSON got\n%s\nwant max_abs_diff null", v, js)
		}
	}
}
