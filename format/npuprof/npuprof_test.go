package npuprof

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/golden"
	"github.com/tallyprof/tally/render"
)

type result struct {
	c   *capture.Capture
	all capture.Collect
	tab *analysis.Tables
}

func readLog(t *testing.T, log string) *result {
	t.Helper()
	r := &result{}
	agg := analysis.NewAggregator()
	c, err := ReadStream(strings.NewReader(log), "run.log", capture.Tee{agg, &r.all})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckValid(); err != nil {
		t.Fatal(err)
	}
	r.c, r.tab = c, agg.Tables(c)
	return r
}

func (r *result) program(t *testing.T, name string) *analysis.ProgramTable {
	t.Helper()
	for i := range r.tab.Programs {
		if r.tab.Programs[i].Program.Name == name {
			return &r.tab.Programs[i]
		}
	}
	t.Fatalf("got no program %q in %+v, want one", name, r.c.Programs)
	return nil
}

func (r *result) gap(kind capture.Kind) *capture.Gap {
	for _, g := range r.c.Accounting.Gaps {
		if g.Kind == kind && g.Count > 0 {
			return g
		}
	}
	return nil
}

// engine writes generated engine output.
type engine struct{ b strings.Builder }

func (e *engine) layers(from, to int) *engine {
	for l := from; l <= to; l++ {
		fmt.Fprintf(&e.b, "  [L] %d %.6f %.4f\n", l, 0.5+float64(l)/100, 3+float64(l))
	}
	return e
}

func (e *engine) line(s string) *engine { e.b.WriteString(s + "\n"); return e }

// window writes one 100-launch window: rows split between families.
func (e *engine) window(pre, dec int) *engine {
	if pre > 0 {
		fmt.Fprintf(&e.b, "[prof] pre D 128 %d 0.30 0.21 3.806 0.011 4.328\n", pre)
	}
	if dec > 0 {
		fmt.Fprintf(&e.b, "[prof] dec QKV 1 %d 0.05 0.10 1.200 0.020 1.370\n", dec)
	}
	return e
}

func (e *engine) String() string { return e.b.String() }

// TestStall is the case the reader exists for: a prefill that stalled
// before its first window prints [L] lines and no row. It must read as
// "no window completed", never as "no launches".
func TestStall(t *testing.T) {
	log := (&engine{}).line("loading model q4.bin").layers(-1, 5).line("  [mla] pre-norm x: mean|x|=0.1 absmax=2.0").String()
	r := readLog(t, log)
	g := r.gap(capture.EmptyCapture)
	if g == nil || !strings.HasPrefix(g.Summary, StallSummary) {
		t.Fatalf("got gaps %+v, want an empty_capture stating the stall", r.c.Accounting.Gaps)
	}
	if !strings.Contains(StallSummary, "no profiler window completed (fewer than W launches, or the run stalled before the first window); the absence of rows is not an absence of launches") {
		t.Fatalf("got StallSummary %q, want the documented wording", StallSummary)
	}
	if len(r.all.Dispatches) != 0 || r.c.Clock.Timed {
		t.Fatalf("stalled log: got %d dispatches, timed %v; want none and untimed", len(r.all.Dispatches), r.c.Clock.Timed)
	}
	// Without any engine line it is a plain empty capture.
	r = readLog(t, "hello\nworld\n")
	if g := r.gap(capture.EmptyCapture); g == nil || strings.Contains(g.Summary, "stalled") || !strings.Contains(g.Summary, "2 lines read") {
		t.Fatalf("not an engine log: got %+v, want a plain empty_capture saying 2 lines read, not stalled", g)
	}
	if r.c.Accounting.InputFor("lines").Skipped[0].Count != 2 {
		t.Fatalf("got %d foreign lines skipped, want 2", r.c.Accounting.InputFor("lines").Skipped[0].Count)
	}
}

func TestBothFamilies(t *testing.T) {
	e := (&engine{}).layers(-1, 1).window(100, 0).line("some engine chatter").window(40, 60).window(0, 100)
	r := readLog(t, e.String())
	if r.gap(capture.EmptyCapture) != nil || r.gap(OpenWindow) != nil {
		t.Fatalf("got gaps %+v, want no empty_capture and no open window", r.c.Accounting.Gaps)
	}
	pre, dec := r.program(t, "prefill"), r.program(t, "decode")
	if pre.Dispatches != 140 || dec.Dispatches != 160 || pre.Program.Instances != 2 || dec.Program.Instances != 2 {
		t.Fatalf("got prefill %d/%d runs, decode %d/%d runs; want 140/2 and 160/2", pre.Dispatches, pre.Program.Instances, dec.Dispatches, dec.Program.Instances)
	}
	k := pre.Kernels[0]
	if k.Kernel.Name != "D M=128" || k.Total != 140*3_806_000 || k.LaunchTotal != 140*210_000 || k.MinMaxKnown || k.Aggregated != 140 {
		t.Fatalf("prefill row: got %+v, want \"D M=128\", total 140×3.806 ms, launch 140×0.21 ms, min/max unknown, 140 aggregated", k)
	}
	if dec.Kernels[0].Kernel.Name != "QKV M=1" || dec.Kernels[0].Total != 160*1_200_000 {
		t.Fatalf("decode row: got %+v, want \"QKV M=1\", total 160×1.2 ms", dec.Kernels[0])
	}
	for _, d := range r.all.Dispatches {
		if d.Aggregate == nil || d.Device.Valid || d.Launch.Valid {
			t.Fatalf("got a profiler row sent as a single dispatch %+v, want an aggregate without times", d)
		}
	}
	if !strings.Contains(fmt.Sprint(r.c.Inventory), "100 launches ×3") {
		t.Fatalf("window sizes: got %v, want \"100 launches ×3\"", r.c.Inventory)
	}
	if !strings.Contains(strings.Join(pre.Program.Notes, "\n"), "row totals 605.92 ms") {
		t.Fatalf("notes: got %v, want \"row totals 605.92 ms\"", pre.Program.Notes)
	}
	// The text report prints min and max as unknown, never computed.
	var b bytes.Buffer
	if err := render.Text(&b, r.c, r.tab, render.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/families.golden", b.Bytes())
	if !strings.Contains(b.String(), "unknown") {
		t.Fatal("got no \"unknown\" in the text, want min/max shown unknown")
	}
}

func TestRowsThatDoNotSum(t *testing.T) {
	log := (&engine{}).window(100, 0).
		line("[prof] dec O 1 100 0.05 0.10 1.200 0.020 1.382"). // parts 1.370: off by 0.012 > 0.0115
		line("[prof] dec G 1 100 0.05 0.10 1.200 0.020 1.380"). // off by 0.010 ≤ 0.0115: within rounding
		String()
	r := readLog(t, log)
	g := r.gap(capture.InconsistentTrace)
	if g == nil || g.Count != 1 || g.Program != "decode" || g.Items[0].Where != "run.log:2" || !strings.Contains(g.Items[0].What, "±0.0115") {
		t.Fatalf("non-summing row: got gaps %+v, want one inconsistent_trace of decode at run.log:2 naming ±0.0115", r.c.Accounting.Gaps)
	}
	if r.c.Accounting.Complete() {
		t.Fatal("got the capture complete after a non-summing row, want it incomplete")
	}
	// The spec's example sums within 0.0115.
	pr, ok := parseRow([]byte("[prof] pre D 128 4 0.30 0.21 3.806 0.011 4.328"))
	if _, tol2, sums := pr.sums(); !ok || !sums || tol2 != 23_000_000 {
		t.Fatalf("spec example: got sums %v, tolerance %d (parsed %v); want true, 23000000, true", sums, tol2, ok)
	}
}

func TestTwoProcessesAndExactDifferencing(t *testing.T) {
	log := (&engine{}).
		line("[prof] npu_gemm n=50 pack=0.0 quant+launch=0.2 wait=3.8 readback=0.0 ms (N=2048)").
		line("[prof] npu_gemm n=100 pack=0.0 quant+launch=0.2 wait=4.0 readback=0.1 ms (N=4096)").
		line("[prof] npu_gemm n=150 pack=0.1 quant+launch=0.1 wait=4.0 readback=0.1 ms (N=2048)").
		line("second run starting").
		line("[prof] npu_gemm n=50 pack=0.0 quant+launch=0.3 wait=2.0 readback=0.0 ms (N=2048)").
		line("[prof] npu_gemm n=100 pack=0.0 quant+launch=0.3 wait=2.5 readback=0.0 ms (N=2048)").String()
	r := readLog(t, log)
	one, two := r.program(t, "npu_gemm run 1"), r.program(t, "npu_gemm run 2")
	if one.Dispatches != 150 || two.Dispatches != 100 {
		t.Fatalf("got runs of %d and %d dispatches, want 150 and 100 (not merged or lost)", one.Dispatches, two.Dispatches)
	}
	// Windows of run 1: wait 3.8·50 = 190 ms; 4.0·100 − 190 = 210 ms; 4.0·150 − 400 = 200 ms.
	var waits, launches []int64
	for _, d := range r.all.Dispatches {
		if d.Program == one.ID {
			waits = append(waits, d.Aggregate.Device)
			launches = append(launches, d.Aggregate.Launch)
		}
	}
	if fmt.Sprint(waits) != "[190000000 210000000 200000000]" {
		t.Fatalf("got wait windows %v, want [190000000 210000000 200000000]", waits)
	}
	// quant+launch: 10 ms, 20 − 10 = 10 ms, then 15 − 20 < 0: sent as 0, and
	// the run's total stays the cumulative 15 + (20 − 15 carried) = 20 ms.
	if fmt.Sprint(launches) != "[10000000 10000000 0]" || one.Kernels[0].LaunchTotal != 20_000_000 {
		t.Fatalf("got launch windows %v (run total %d), want [10000000 10000000 0] and 20000000", launches, one.Kernels[0].LaunchTotal)
	}
	if two.Kernels[0].Total != 250_000_000 { // 2.5 ms × 100
		t.Fatalf("run 2: got total %d, want 250000000", two.Kernels[0].Total)
	}
	notes := strings.Join(one.Program.Notes, "\n")
	if !strings.Contains(notes, "precision is limited by the printed decimal") || !strings.Contains(notes, "below zero") {
		t.Fatalf("got notes %q, want the decimal-precision and below-zero notes", notes)
	}
	inv := fmt.Sprint(r.c.Inventory)
	if !strings.Contains(inv, "n 50-100: pack 0.0000, quant+launch 0.2000, wait 4.2000, readback 0.2000 ms (±0.150)") {
		t.Fatalf("window means: got %s, want the n 50-100 means line", inv)
	}
	if !strings.Contains(inv, "widths N 2048 4096") {
		t.Fatalf("widths: got %s, want \"widths N 2048 4096\"", inv)
	}
	// The same n twice, with the same means, is one line written twice: a
	// duplicate_event counted once, not a window.
	const line50 = "[prof] npu_gemm n=50 pack=0.0 quant+launch=0.2 wait=3.8 readback=0.0 ms (N=1)\n"
	r = readLog(t, line50+line50)
	if g := r.gap(capture.DuplicateEvent); g == nil || g.Count != 1 || g.Program != "npu_gemm run 1" || len(r.all.Dispatches) != 1 || r.gap(capture.InconsistentTrace) != nil {
		t.Fatalf("repeated line: gaps %+v, %d records; want one duplicate_event and 1 record", r.c.Accounting.Gaps, len(r.all.Dispatches))
	}
	// The same n with other means is an inconsistency, not a repeat.
	r = readLog(t, line50+"[prof] npu_gemm n=50 pack=0.0 quant+launch=0.2 wait=3.9 readback=0.0 ms (N=1)\n")
	if g := r.gap(capture.InconsistentTrace); g == nil || len(r.all.Dispatches) != 1 || r.gap(capture.DuplicateEvent) != nil {
		t.Fatalf("repeated n, other means: got gaps %+v, %d records; want an inconsistent_trace, no duplicate_event, 1 record", r.c.Accounting.Gaps, len(r.all.Dispatches))
	}
}

func TestOpenWindowAndLayers(t *testing.T) {
	e := (&engine{}).layers(-1, 2).layers(4, 6).window(100, 0).layers(-1, 0)
	r := readLog(t, e.String())
	g := r.gap(OpenWindow)
	if g == nil || !strings.Contains(g.Items[0].What, "2 engine lines after the last row (line 8)") {
		t.Fatalf("open window: got gaps %+v, want one naming 2 engine lines after the last row (line 8)", r.c.Accounting.Gaps)
	}
	inv := fmt.Sprint(r.c.Inventory)
	if !strings.Contains(inv, "{layers seen ([L], -1 = embedding) -1..2, 4..6}") || !strings.Contains(inv, "{layers missing between seen ones 3}") || !strings.Contains(inv, "MoE and MLA") {
		t.Fatalf("layers: got %s, want layers seen -1..2, 4..6, missing 3, and MoE and MLA", inv)
	}
	// A log ending on a row has no open window.
	r = readLog(t, (&engine{}).layers(0, 1).window(50, 50).String())
	if r.gap(OpenWindow) != nil {
		t.Fatal("got an open window without engine lines after the last row, want none")
	}
}

func TestKeptTraceAndEdges(t *testing.T) {
	kept := "# tally kept trace v1 clock=monotonic unit=ns pid=1 cmd=\"./engine\"\n" +
		"100 [prof] pre D 128 100 0.30 0.21 3.806 0.011 4.328\n" +
		"200   [L] 0 0.5 1.0\n" +
		"300 [prof] pre D 128 4 0.30 0.21 3.8" // cut mid-line
	if Sniff([]byte(kept)) != format.Certain || Sniff([]byte("  [L] 0 0.5 1.0\n")) != format.Likely || Sniff([]byte("hrx debug serial: x")) != format.No {
		t.Fatal("Sniff: got the wrong answer, want Certain for a kept log, Likely for an [L] line, No for an hrx line")
	}
	r := readLog(t, kept)
	if r.program(t, "prefill").Dispatches != 100 {
		t.Fatalf("prefill: got %d dispatches, want 100 (stamped rows read, the cut row not used)", r.program(t, "prefill").Dispatches)
	}
	if g := r.gap(capture.TruncatedInput); g == nil || g.Items[0].Where != "run.log:4" {
		t.Fatalf("cut line: got gaps %+v, want a truncated_input at run.log:4", r.c.Accounting.Gaps)
	}
	in := r.c.Accounting.InputFor("lines")
	if in.Read != 4 || in.Used != 3 {
		t.Fatalf("got lines %+v, want 4 read, 3 used", in)
	}
	if b := r.c.Accounting.InputFor("bytes"); b.Read != int64(len(kept)) {
		t.Fatalf("got %d bytes read, want %d", b.Read, len(kept))
	}
	_, err := ReadStream(strings.NewReader("# tally kept trace v2 clock=monotonic unit=ns\n"), "x.kept", nil)
	var fe *format.Error
	if !errors.As(err, &fe) || fe.Line != 1 || !errors.Is(err, errVersion) {
		t.Fatalf("v2: got %v, want a *format.Error at line 1 wrapping errVersion", err)
	}
	r = readLog(t, "[prof] pre D 128\n  [L] x 1 2\n[prof] npu_gemm n=50 wait=1.0\n"+strings.Repeat("x", maxLine+10)+"\n")
	in = r.c.Accounting.InputFor("lines")
	if r.c.Accounting.CountOf(capture.SkippedInput) != 3 || in.Used != 0 || in.Read != 4 {
		t.Fatalf("malformed: got %+v %+v, want 3 skipped_input, 4 lines read, 0 used", r.c.Accounting.Gaps, in)
	}
	if !Claims([]byte("  [L] 3 1 2")) || !Claims([]byte("[prof] dec D 1 1 1 1 1 1 1")) || Claims([]byte("hello")) {
		t.Fatal("Claims: got the wrong answer, want an [L] line and a [prof] row claimed, \"hello\" not")
	}
}

func TestParseMs(t *testing.T) {
	for _, c := range []struct {
		in     string
		ps     int64
		places int
		ok     bool
	}{{"3.806", 3_806_000_000, 3, true}, {"0.0", 0, 1, true}, {"12", 12_000_000_000, 0, true},
		{"0.1234567891", 123_456_789, 10, true}, {"", 0, 0, false}, {".5", 0, 0, false}, {"1.", 0, 0, false},
		{"-1", 0, 0, false}, {"1e3", 0, 0, false}, {"99999999999", 0, 0, false}} {
		ps, places, ok := parseMs([]byte(c.in))
		if ok != c.ok || ok && (ps != c.ps || places != c.places) {
			t.Errorf("%q: got %d %d %v, want %d %d %v", c.in, ps, places, ok, c.ps, c.places, c.ok)
		}
	}
}

// A row whose time × launches overflows is malformed, not a row of zero
// time: 10000 launches of 3000000 ms (each below the one-hour ceiling)
// cannot be summed in ps, nor can a family's running sum past 2^63 ps.
func TestRowOverflowIsMalformed(t *testing.T) {
	r := readLog(t, "[prof] pre D 128 10000 3000000.00 0.21 3.806 0.011 3000004.03\n"+
		"[prof] pre O 128 4 0.30 0.21 3.806 0.011 4.328\n"+
		"[prof] pre G 128 2000 3000000.0 0.0 0.0 0.0 3000000.0\n"+
		"[prof] pre U 128 2000 3000000.0 0.0 0.0 0.0 3000000.0\n")
	in := r.c.Accounting.InputFor("lines")
	if in.Read != 4 || in.Used != 2 || r.c.Accounting.CountOf(capture.SkippedInput) != 2 {
		t.Fatalf("got lines %+v, gaps %+v; want 4 read, 2 used, 2 skipped_input", in, r.c.Accounting.Gaps)
	}
	if p := r.program(t, "prefill"); p.Dispatches != 2004 {
		t.Fatalf("prefill dispatches %d, want 2004", p.Dispatches)
	}
}

// Sniff claims a log only on a line of the engine's grammar, indented or
// not, raw or stamped: a tag alone, or a line of another program, is not
// evidence.
func TestSniffEvidence(t *testing.T) {
	const kept = "# tally kept trace v1 clock=monotonic unit=ns pid=1 cmd=\"./engine\"\n"
	for _, c := range []struct {
		head string
		want format.Confidence
	}{
		{"[L] -1 0.012345 0.4521\n", format.Likely}, // unindented (the stalled log's lines)
		{"  [L] 0 0.5 1.0\n", format.Likely},
		{"loading\n912 [L] 0 0.5 1.0", format.Likely},
		{"[mla] L3 attn_absmax=1.2345 mlp_absmax=2.3456 x_absmax=3.4567\n", format.Likely},
		{"  [mla] final xn: mean|x|=0.1 absmax=2.0 (n=7168)\n", format.Likely},
		{"  [mla] pre-norm x: mean|x|=0.1 absmax=2.0\r\n", format.Likely},
		{"  [G] l=4 attn 0.1 0.2\n", format.Likely},
		{"  [debug] hidden pos 3 mean=0.1 absmax=2.0 -> /tmp/h.f32\n", format.Likely},
		{"[prof] npu_gemm n=50 pack=0.0 quant+launch=0.2 wait=3.8 readback=0.0 ms (N=2048)\n", format.Likely},
		{"[prof] pre D 128 4 0.30 0.21 3.806 0.011 4.328\n", format.Likely},
		{kept + "100 [L] 0 0.5 1.0\n", format.Certain},
		{kept, format.No}, // the header alone is hrx-serial's
		{kept + "100 [info] loading\n", format.No},
		{"[prof] started\n[prof] pre D 128\n", format.No},
		{"[L] layer x\n[L] 0 0.5\n[mla] hello\n[G] foo\n[G] l=x\n", format.No},
		{"hello\nworld\n", format.No},
		{"hrx debug serial: begin phase=command-program\n", format.No},
		{"", format.No},
	} {
		if got := Sniff([]byte(c.head)); got != c.want {
			t.Errorf("Sniff(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}
