package diff

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/render"
)

// shifted are two samples of 30 runs, B's each shift above A's: at a
// shift of 5 the U test finds a change (p ≈ 0.043) while the sides'
// intervals overlap (the change's interval is -0.6%…+1.6%); from 12 on
// they agree.
func shifted(shift float64) Metric {
	var a, b []float64
	for i := 0; i < 30; i++ {
		a = append(a, 1000+float64(i))
		b = append(b, 1000+float64(i)+shift)
	}
	return compare(a, b, false)
}

// A change is called only when the test and the interval agree.
func TestChangeNeedsTestAndInterval(t *testing.T) {
	for _, c := range []struct {
		shift         float64
		sig, changed  bool
		delta, vsText string
	}{
		{5, true, false, "~", "~ (p=0.043)"},
		{-5, true, false, "~", "~ (p=0.043)"},
		{11, true, false, "~", "~ (p=0.000)"}, // B.Lo = A.Hi: the interval touches 0
		{12, true, true, "+1.18%", "+1.18% (+0.1%…+2.3%)"},
		{-12, true, true, "-1.18%", "-1.18% (-2.3%…-0.1%)"},
		{2, false, false, "~", "~"},
	} {
		m := shifted(c.shift)
		if m.Significant != c.sig || m.Changed() != c.changed {
			t.Errorf("shift %v: significant %v changed %v (p=%.3f, delta %+.4f…%+.4f), want %v %v", c.shift, m.Significant, m.Changed(), m.P, m.DeltaLo, m.DeltaHi, c.sig, c.changed)
		}
		if got := m.FormatDelta(); got != c.delta {
			t.Errorf("shift %v: FormatDelta %q, want %q", c.shift, got, c.delta)
		}
		if got := vs(&m, false); got != c.vsText {
			t.Errorf("shift %v: vs %q, want %q", c.shift, got, c.vsText)
		}
	}
	// The case: significant, its interval through zero: no
	// "faster", not in the count, not a --fail-if-slower failure.
	m := shifted(5)
	r := &Result{A: NewSide("A"), B: NewSide("B"), Programs: []Program{{Name: "p", Status: Matched, Unit: "ns", Total: m,
		Kernels: []Kernel{{Name: "k", Status: Matched, PerDispatch: m, PerRun: m}}}}}
	if ch := r.Programs[0].Kernels[0].Changes(); len(ch) != 0 {
		t.Errorf("kernel changes %q, want none: the interval includes 0", ch)
	}
	if ch := r.Programs[0].Changes(); len(ch) != 0 {
		t.Errorf("program changes %q, want none", ch)
	}
	if s := r.Slower(0); len(s) != 0 {
		t.Errorf("--fail-if-slower 0: %q, want nothing", s)
	}
	out := textOf(t, r)
	for _, want := range []string{"kernels: 1 no change (~), 1 with p < 0.05 whose interval includes 0, not called",
		"~ (p=0.043 n=30; the interval -0.6%…+1.6% includes 0)", "only when the test and the interval agree"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	j := jsonMetric(&m)
	if !j.Significant || j.Changed {
		t.Errorf("json: significant %v changed %v, want true false", j.Significant, j.Changed)
	}
	var cs bytes.Buffer
	if err := r.WriteCSV(&cs); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&cs).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := recs[2][len(CSVHeader)-1]; CSVHeader[len(CSVHeader)-1] != "changed" || recs[2][5] != "time_per_run" || got != "false" {
		t.Errorf("csv changed column %q (header %q), want false", got, CSVHeader[len(CSVHeader)-1])
	}
	// Exact counts: a point interval; a different count is a change.
	if e := compare([]float64{3, 3}, []float64{4, 4}, true); !e.Changed() {
		t.Errorf("exact counts 3 → 4: got no change, want one")
	}
	if e := compare([]float64{3, 3}, []float64{3, 3}, true); e.Changed() || vs(&e, false) != "=" {
		t.Errorf("exact counts 3 → 3: changed %v, vs %q; want false, \"=\"", e.Changed(), vs(&e, false))
	}
}

// benchmath needs 6 runs for an interval at 95%: below, the cells give
// the median alone and say why no change is called.
func TestMinRuns(t *testing.T) {
	if got := MinRuns(); got != 6 {
		t.Fatalf("MinRuns() = %d, want 6 (benchmath at 0.95)", got)
	}
	five := []float64{1, 2, 3, 4, 5}
	six := []float64{1, 2, 3, 4, 5, 6}
	if m := compare(five, five, false); m.A.CI {
		t.Errorf("5 runs: an interval %v…%v, want none", m.A.Lo, m.A.Hi)
	}
	if m := compare(six, six, false); !m.A.CI {
		t.Errorf("6 runs: no interval, want one")
	}
	// Far apart, 5 runs a side: the test alone would call it (p = 0.008).
	m := compare(five, []float64{10, 11, 12, 13, 14}, false)
	if !m.Significant || m.Changed() {
		t.Errorf("5 runs a side far apart: significant %v changed %v, want true false", m.Significant, m.Changed())
	}
	if got := vs(&m, false); got != "~ (needs ≥ 6 runs)" {
		t.Errorf("vs %q, want \"~ (needs ≥ 6 runs)\"", got)
	}
	if got := timeCell(m.A, "ns"); got != "3 ns" {
		t.Errorf("time cell %q, want \"3 ns\" (no ±∞)", got)
	}
}

// One gap of a side is one entry in its program, however many inputs
// have it, and a row's tag names each kind once.
func TestGapOnce(t *testing.T) {
	b := changed()
	b.gaps = []synthGap{{capture.UnfinishedDispatch, "decode", "matmul"}}
	r := Compare(side("A", 1, baseline()), side("B", 100, b, b, b))
	dec := r.program(t, "decode")
	if k := dec.kernel(t, "matmul"); len(k.GapsB) != 1 {
		t.Errorf("matmul gaps on B %v, want one unfinished_dispatch", k.GapsB)
	}
	out := textOf(t, r)
	if n := strings.Count(out, "GAP on B: unfinished_dispatch (3 in 3 inputs); each stated under its input above\n"); n != 1 {
		t.Errorf("the program's gap line %d times, want once:\n%s", n, out)
	}
	if n := strings.Count(out, "a synthetic unfinished_dispatch"); n != 3 {
		t.Errorf("the gap's text printed %d times, want 3 (once under each input):\n%s", n, out)
	}
	if !strings.Contains(out, "matmul [GAP on B: unfinished_dispatch]\n") {
		t.Errorf("got no matmul row with its one tag, want %q in:\n%s", "matmul [GAP on B: unfinished_dispatch]", out)
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js, -1); err != nil {
		t.Fatal(err)
	}
	var doc JSONDiff
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range doc.Programs {
		if p.Name == "decode" && strings.Join(p.GapsB, ",") != "unfinished_dispatch" {
			t.Errorf("json programs[decode].gaps_b %q, want one unfinished_dispatch", p.GapsB)
		}
	}
}

// Every table row keeps to 120 columns by default: names shortened and
// cut as tally report does; --names full leaves them whole.
func TestRowsFitWidth(t *testing.T) {
	r, err := Run([]string{rank0}, []string{rank1}, Options{Reader: format.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	widest := func(opt TextOptions) (int, string) {
		var buf bytes.Buffer
		if err := r.Text(&buf, opt); err != nil {
			t.Fatal(err)
		}
		w, line := 0, ""
		in := false
		for _, l := range strings.Split(buf.String(), "\n") {
			switch {
			case strings.HasPrefix(l, "program "):
				in = true
				continue
			case l == "":
				in = false
			}
			prose := strings.HasPrefix(l, "  GAP ") || strings.HasPrefix(l, "  note") || strings.HasPrefix(l, "  times not") || strings.HasPrefix(l, "  dispatches without")
			if in && !prose && utf8.RuneCountInString(l) > w {
				w, line = utf8.RuneCountInString(l), l
			}
		}
		return w, line
	}
	if w, line := widest(TextOptions{}); w > render.DefaultWidth {
		t.Errorf("a row of %d columns, want ≤ %d:\n%s", w, render.DefaultWidth, line)
	}
	if w, _ := widest(TextOptions{FullNames: true}); w <= render.DefaultWidth {
		t.Errorf("--names full: widest row %d columns; the demangled names should run past %d", w, render.DefaultWidth)
	}
}

// The interval of the change divides by A's interval: with A's low end at
// 0 it would be infinite, so none is stated (the change itself still is).
func TestDeltaIntervalNeedsPositiveA(t *testing.T) {
	for _, c := range []struct {
		aLo    float64
		wantCI bool
	}{
		{1, true},
		{0, false},
	} {
		m := Metric{A: &Summary{Center: 2, Lo: c.aLo, Hi: 3, CI: true}, B: &Summary{Center: 4, Lo: 3.5, Hi: 5, CI: true}}
		m.delta()
		if !m.HasDelta || m.Delta != 1 || m.DeltaCI != c.wantCI {
			t.Errorf("A's low end %v: got delta %v (has %v), interval stated %v; want 1, stated %v", c.aLo, m.Delta, m.HasDelta, m.DeltaCI, c.wantCI)
		}
	}
}
