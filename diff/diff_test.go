package diff

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/internal/golden"
	"github.com/tallyprof/tally/internal/testfile"
)

// compareBuilt is Compare of side A read by buildA and side B by buildB.
func compareBuilt(t *testing.T, buildA, buildB func(capture.Sink) (*capture.Capture, error)) *Result {
	t.Helper()
	a, b := NewSide("A"), NewSide("B")
	if err := a.Add(buildA); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(buildB); err != nil {
		t.Fatal(err)
	}
	return Compare(a, b)
}

// textOf is r's text output.
func textOf(t *testing.T, r *Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func (r *Result) program(t *testing.T, name string) *Program {
	t.Helper()
	for i := range r.Programs {
		if r.Programs[i].Name == name {
			return &r.Programs[i]
		}
	}
	t.Fatalf("got no program %q in the result, want one", name)
	return nil
}

func (p *Program) kernel(t *testing.T, name string) *Kernel {
	t.Helper()
	for i := range p.Kernels {
		if p.Kernels[i].Name == name {
			return &p.Kernels[i]
		}
	}
	t.Fatalf("program %s: got no kernel %q, want one", p.Name, name)
	return nil
}

func injected() *Result {
	return Compare(side("A", 1, baseline()), side("B", 100, changed()))
}

// Every injected change is found, and only where it was injected.
func TestInjectedChanges(t *testing.T) {
	r := injected()
	dec := r.program(t, "decode")
	want := map[string]string{
		"matmul":    "slower",
		"attention": "",
		"copy":      "more dispatches",
		"gather":    "removed",
		"scale":     "added",
		"unary":     "",
		"allreduce": "",
	}
	for name, w := range want {
		k := dec.kernel(t, name)
		if got := strings.Join(k.Changes(), ", "); got != w {
			t.Errorf("decode/%s: changes %q, want %q", name, got, w)
		}
	}
	mm := dec.kernel(t, "matmul")
	if d := mm.PerDispatch.Delta; d < 0.17 || d > 0.23 {
		t.Errorf("matmul time per dispatch changed by %.3f, want about +0.20", d)
	}
	if mm.PerDispatch.A.N != 20 || mm.PerDispatch.B.N != 20 {
		t.Errorf("matmul samples %d+%d, want 20+20 (one per run)", mm.PerDispatch.A.N, mm.PerDispatch.B.N)
	}
	// More dispatches at the same time each: a count change, not a time one.
	cp := dec.kernel(t, "copy")
	if !cp.Dispatches.Exact || cp.Dispatches.Delta != 1 {
		t.Errorf("copy dispatches: exact %v delta %v, want exact +100%%", cp.Dispatches.Exact, cp.Dispatches.Delta)
	}
	if cp.PerDispatch.Significant {
		t.Errorf("copy time per dispatch: got it flagged (p=%.3f), want it not: the count changed, not the speed", cp.PerDispatch.P)
	}
	if !cp.PerRun.Significant || cp.PerRun.Delta < 0.8 {
		t.Errorf("copy time per run: %+v, want about +100%% and significant", cp.PerRun)
	}
	if !dec.Total.Significant || dec.Total.Delta <= 0 {
		t.Errorf("decode total per run: got %+v, want significantly slower", dec.Total)
	}
	if dec.Status != Matched || dec.RunsA != 20 || dec.RunsB != 20 {
		t.Errorf("decode: got %s, runs %d/%d; want %s, 20/20", dec.Status, dec.RunsA, dec.RunsB, Matched)
	}
	// Programs on one side only are listed, never dropped.
	if p := r.program(t, "warmup"); p.Status != Removed || p.RunsA != 1 || p.RunsB != 0 || len(p.Kernels) != 1 || p.Kernels[0].Status != Removed {
		t.Errorf("warmup: got %+v, want removed, runs 1/0, one removed kernel", p)
	}
	if p := r.program(t, "embed"); p.Status != Added || p.RunsB != 5 || p.Kernels[0].Status != Added {
		t.Errorf("embed: got %+v, want added, 5 runs on B, its kernel added", p)
	}
	// Unchanged program: nothing significant.
	pre := r.program(t, "prefill")
	for _, k := range pre.Kernels {
		if ch := k.Changes(); len(ch) > 0 {
			t.Errorf("prefill/%s: %v, want no change", k.Name, ch)
		}
	}
	if pre.Total.Significant {
		t.Errorf("prefill total: got %+v flagged, want no significant change", pre.Total)
	}
}

// Kernels are compared within their program only: the same kernel name in
// two programs is two rows that never meet.
func TestKernelsStayInTheirProgram(t *testing.T) {
	r := injected()
	dm := r.program(t, "decode").kernel(t, "matmul")
	pm := r.program(t, "prefill").kernel(t, "matmul")
	if dm.Dispatches.A.Center != 8 || pm.Dispatches.A.Center != 30 {
		t.Fatalf("matmul dispatches per run: decode %v, prefill %v; want 8 and 30", dm.Dispatches.A.Center, pm.Dispatches.A.Center)
	}
	if len(pm.Changes()) != 0 {
		t.Fatalf("prefill matmul: got decode's change %v, want no change", pm.Changes())
	}
}

// Two samples of one distribution give ~: over many seeds and rows, the
// share of rows flagged stays near alpha.
func TestSameDistributionIsNoChange(t *testing.T) {
	rows, flagged := 0, 0
	for seed := int64(0); seed < 20; seed++ {
		r := Compare(side("A", 1000+seed, baseline()), side("B", 2000+seed, baseline()))
		for _, p := range r.Programs {
			if p.Status != Matched {
				t.Fatalf("program %s: got %s between two samples of one workload, want %s", p.Name, p.Status, Matched)
			}
			for _, k := range p.Kernels {
				if k.Dispatches.Changed() {
					t.Fatalf("%s/%s: got the dispatch count changed between identical workloads, want it unchanged", p.Name, k.Name)
				}
				for _, m := range []*Metric{&k.PerDispatch, &k.PerRun} {
					if !m.Compared {
						continue
					}
					rows++
					if m.Significant {
						flagged++
					}
				}
			}
		}
	}
	if rows < 100 || float64(flagged)/float64(rows) > 0.10 {
		t.Fatalf("%d of %d time comparisons flagged between two samples of one distribution (want ≈5%%, at most 10%%)", flagged, rows)
	}
	// And one seed as printed: every delta column reads ~.
	r := Compare(side("A", 7, baseline()), side("B", 8, baseline()))
	out := textOf(t, r)
	for _, line := range strings.Split(out, "\n") {
		if (strings.HasPrefix(line, "program ") || strings.HasPrefix(line, "kernels: ")) && (strings.Contains(line, "slower") || strings.Contains(line, "faster")) {
			t.Fatalf("identical workloads: got a change printed %q, want none:\n%s", line, out)
		}
	}
}

// An incomplete side is stated in the header, under its program, and
// fails --strict.
func TestIncompleteSide(t *testing.T) {
	b := changed()
	b.gaps = []synthGap{{capture.UnfinishedDispatch, "decode", "matmul"}, {capture.DroppedRecords, "", ""}}
	r := Compare(side("A", 1, baseline()), side("B", 100, b))
	if r.B.Complete() || !r.A.Complete() {
		t.Fatalf("complete: got A %v B %v, want A true B false", r.A.Complete(), r.B.Complete())
	}
	if code := r.ExitCode(true, -1); code != exitcode.Failed {
		t.Errorf("--strict: exit %d, want %d", code, exitcode.Failed)
	}
	if code := r.ExitCode(false, -1); code != exitcode.OK {
		t.Errorf("without --strict: exit %d, want 0", code)
	}
	if dec := r.program(t, "decode"); len(dec.GapsB) != 1 || dec.GapsB[0].Kind != capture.UnfinishedDispatch || len(dec.GapsA) != 0 {
		t.Errorf("decode gaps: got A %v B %v, want none on A, one unfinished_dispatch on B", dec.GapsA, dec.GapsB)
	}
	if k := r.program(t, "decode").kernel(t, "matmul"); len(k.GapsB) != 1 || len(k.GapsA) != 0 {
		t.Errorf("matmul's row: got gaps A %v B %v, want none on A and B's unfinished dispatch", k.GapsA, k.GapsB)
	}
	if k := r.program(t, "decode").kernel(t, "attention"); len(k.GapsB) != 0 {
		t.Errorf("attention's row: got another kernel's gap %v, want none", k.GapsB)
	}
	out := textOf(t, r)
	for _, want := range []string{"B: INCOMPLETE: b.trace", "GAP dropped_records (1)", "GAP unfinished_dispatch (1) [program decode]",
		"GAP on B: unfinished_dispatch (1)", "A: COMPLETE\n", "B: INCOMPLETE: its gaps", "  matmul [GAP on B: unfinished_dispatch]\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	golden.Check(t, "testdata/incomplete.golden", []byte(out))
}

// Times in ns and in ticks are never compared; counts still are.
func TestClockMismatch(t *testing.T) {
	b := changed()
	b.clock = capture.Clock{Domain: "device-ticks", Unit: "ticks", Timed: true}
	r := Compare(side("A", 1, baseline()), side("B", 100, b))
	dec := r.program(t, "decode")
	if dec.TimeRefused == "" || dec.Unit != "" || dec.Total.Compared {
		t.Fatalf("ns vs ticks: got refused %q unit %q, want times refused, no unit, total not compared", dec.TimeRefused, dec.Unit)
	}
	if k := dec.kernel(t, "copy"); !k.Dispatches.Changed() || k.PerDispatch.Compared {
		t.Fatalf("copy: counts must still compare, times must not: %+v", k)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "clocks differ") {
		t.Fatalf("got notes %q, want one saying the clocks differ", r.Notes)
	}
	// Only-on-one-side programs keep their own times.
	if p := r.program(t, "embed"); p.TimeRefused != "" || p.Total.B == nil {
		t.Fatalf("embed: got %+v, want its own times (not refused, B total set)", p)
	}
	// ns on two clock domains: durations compare, and the header says so.
	b.clock = capture.Clock{Domain: "unix-epoch", Unit: "ns", Timed: true}
	r = Compare(side("A", 1, baseline()), side("B", 100, b))
	if dec := r.program(t, "decode"); dec.TimeRefused != "" || !dec.kernel(t, "matmul").PerDispatch.Significant {
		t.Fatalf("ns on two domains: got refused %q, want times compared and matmul significant", dec.TimeRefused)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "unix-epoch") {
		t.Fatalf("got notes %q, want one naming unix-epoch", r.Notes)
	}
	// Ticks of two different clocks: tick rates may differ.
	a := baseline()
	a.clock = capture.Clock{Domain: "device-ticks gpu0", Unit: "ticks", Timed: true}
	b.clock = capture.Clock{Domain: "device-ticks gpu1", Unit: "ticks", Timed: true}
	r = Compare(side("A", 1, a), side("B", 100, b))
	if dec := r.program(t, "decode"); !strings.Contains(dec.TimeRefused, "tick rates") {
		t.Fatalf("ticks of two clocks: got refused %q, want it to name tick rates", dec.TimeRefused)
	}
	// Untimed input: times unavailable, never zero.
	b.clock = capture.Clock{Domain: "none"}
	r = Compare(side("A", 1, baseline()), side("B", 100, b))
	if dec := r.program(t, "decode"); !strings.Contains(dec.TimeRefused, "no times") || dec.Total.Compared {
		t.Fatalf("untimed B: got refused %q, want it to say no times and the total not compared", dec.TimeRefused)
	}
}

// Aggregated records count and add their sums to per-run totals, but give
// no per-dispatch time.
func TestAggregatedRecords(t *testing.T) {
	r := injected()
	k := r.program(t, "decode").kernel(t, "allreduce")
	if k.AggregatedA != 40 || k.AggregatedB != 40 {
		t.Errorf("aggregated dispatches %d/%d, want 40/40", k.AggregatedA, k.AggregatedB)
	}
	if k.PerDispatch.A != nil || k.PerDispatch.B != nil {
		t.Errorf("got a per-dispatch time invented from sums %+v, want none", k.PerDispatch)
	}
	if k.Dispatches.A.Center != 2 || k.PerRun.A == nil || k.PerRun.A.Center < 15000 || k.PerRun.A.Center > 21000 {
		t.Errorf("allreduce per run: got dispatches %+v time %+v, want 2 and 15000–21000", k.Dispatches.A, k.PerRun.A)
	}
	if k.TimeMetric() != &k.PerRun {
		t.Errorf("the speed of an aggregated-only kernel must be its time per run")
	}
}

// --fail-if-slower names what got slower, with significance only.
func TestFailIfSlower(t *testing.T) {
	r := injected()
	slow := r.Slower(10)
	joined := strings.Join(slow, "\n")
	if !strings.Contains(joined, "program decode, kernel matmul: time per dispatch +") || !strings.Contains(joined, "program decode: time per run +") {
		t.Fatalf("slower than 10%%: got %q, want decode/matmul's time per dispatch and decode's time per run", slow)
	}
	for _, s := range slow {
		if strings.Contains(s, "copy") || strings.Contains(s, "prefill") {
			t.Errorf("got %q flagged, want it not: a count change or noise is not a slowdown", s)
		}
	}
	if code := r.ExitCode(false, 10); code != exitcode.Failed {
		t.Errorf("exit %d, want 1", code)
	}
	if s := r.Slower(30); len(s) != 0 {
		t.Errorf("slower than 30%%: got %q, want none (matmul is +20%%)", s)
	}
	if code := r.ExitCode(false, 30); code != exitcode.OK {
		t.Errorf("exit %d at 30%%, want 0", code)
	}
	// Not significant: never a failure, however large the delta.
	same := Compare(side("A", 7, baseline()), side("B", 8, baseline()))
	if s := same.Slower(0); len(s) != 0 {
		t.Errorf("identical workloads: got slower %q, want none", s)
	}
}

func TestEmptyCaptureExit(t *testing.T) {
	a := NewSide("A")
	a.Add(func(capture.Sink) (*capture.Capture, error) {
		c := &capture.Capture{}
		c.Accounting.Gap(capture.EmptyCapture, "").Add(capture.Item{What: "empty file"})
		return c, nil
	})
	r := Compare(a, side("B", 1, changed()))
	if code := r.ExitCode(false, -1); code != exitcode.Error {
		t.Fatalf("empty side: exit %d, want %d", code, exitcode.Error)
	}
	for _, p := range r.Programs {
		if p.Status != Added {
			t.Fatalf("program %s: got %s against an empty side, want %s", p.Name, p.Status, Added)
		}
	}
}

// Repeated inputs on a side pool their runs as samples.
func TestRepeatedInputs(t *testing.T) {
	one := baseline()
	one.progs = one.progs[2:] // warmup: one run per input
	r := Compare(side("A", 1, one, one, one, one, one, one), side("B", 50, one, one, one, one, one, one))
	p := r.program(t, "warmup")
	if p.RunsA != 6 || p.RunsB != 6 || p.Total.A.N != 6 || !p.Total.A.CI {
		t.Fatalf("6 inputs of one run each: got runs %d/%d, total %+v; want 6/6 and a total of 6 with an interval", p.RunsA, p.RunsB, p.Total.A)
	}
}

func TestGoldens(t *testing.T) {
	r := injected()
	var text, js, cs bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js, 10); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteCSV(&cs); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/injected.golden", text.Bytes())
	golden.Check(t, "testdata/injected.json.golden", js.Bytes())
	golden.Check(t, "testdata/injected.csv.golden", cs.Bytes())

	var doc JSONDiff
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != "tally.diff/v1" || len(doc.Sides) != 2 || len(doc.Slower) == 0 {
		t.Fatalf("json: got schema %q sides %d slower %v; want tally.diff/v1, 2 sides, some slower", doc.Schema, len(doc.Sides), doc.Slower)
	}
	recs, err := csv.NewReader(&cs).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != strings.Join(CSVHeader, ",") {
		t.Fatalf("got csv header %v, want %v", recs[0], CSVHeader)
	}
	for _, rec := range recs {
		if len(rec) != len(CSVHeader) {
			t.Fatalf("got csv row of %d fields, want %d: %v", len(rec), len(CSVHeader), rec)
		}
	}
}

// Captures brought from outside a reader get the model checks too.
func TestAddChecksTheModel(t *testing.T) {
	s := NewSide("A")
	err := s.Add(func(sink capture.Sink) (*capture.Capture, error) {
		c := &capture.Capture{Source: capture.Source{Path: "bad.trace"}}
		p := c.AddProgram(capture.Program{Name: "p", Instances: 1})
		k := c.AddKernel(capture.Kernel{Program: p, Name: "k"})
		sink.Dispatch(c, &capture.Dispatch{Program: p, Queue: capture.NoQueue, Kernel: k + 1, Device: capture.Interval{Begin: 1, End: 5, Valid: true}})
		return c, nil
	})
	if err == nil || !strings.Contains(err.Error(), "bad.trace") || len(s.Captures) != 0 {
		t.Fatalf("a kernel outside the tables: got %v, want an error naming bad.trace and no capture kept", err)
	}
	// An impossible time is the input's fault: a gap of the side, not an error.
	err = s.Add(func(sink capture.Sink) (*capture.Capture, error) {
		c := &capture.Capture{Source: capture.Source{Path: "reversed.trace"}}
		p := c.AddProgram(capture.Program{Name: "p", Instances: 1})
		k := c.AddKernel(capture.Kernel{Program: p, Name: "k"})
		sink.Dispatch(c, &capture.Dispatch{Program: p, Queue: capture.NoQueue, Kernel: k, Device: capture.Interval{Begin: 5, End: 1, Valid: true}})
		return c, nil
	})
	if err != nil || len(s.Captures) != 1 || s.Captures[0].Accounting.CountOf(capture.InvalidEvent) != 1 {
		t.Fatalf("a reversed interval: err %v, want a side whose capture has an invalid_event gap", err)
	}
	s = NewSide("A")
	err = s.Add(func(sink capture.Sink) (*capture.Capture, error) {
		c := &capture.Capture{Source: capture.Source{Path: "bad2.trace"}}
		c.Accounting.Gap(capture.DroppedRecords, "nope").AddN(1)
		return c, nil
	})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("a gap of a missing program: got %v, want an error naming nope", err)
	}
}

// A kernel with an id is one kernel whether a side names it or shows its
// anonymous label; without ids, names match.
func TestKernelsMatchByID(t *testing.T) {
	build := func(name string, resolved bool) func(capture.Sink) (*capture.Capture, error) {
		return func(sink capture.Sink) (*capture.Capture, error) {
			c := &capture.Capture{Source: capture.Source{Path: name}, Clock: nsClock}
			p := c.AddProgram(capture.Program{Name: "decode", Instances: 1})
			k := c.AddKernel(capture.Kernel{Program: p, Name: name, ID: 123, HasID: true, Resolved: resolved})
			k2 := c.AddKernel(capture.Kernel{Program: p, Name: "same-name"})
			for _, kid := range []capture.KernelID{k, k2} {
				sink.Dispatch(c, &capture.Dispatch{Program: p, Queue: capture.NoQueue, Kernel: kid, Instance: 0, Device: capture.Interval{Begin: 0, End: 10, Valid: true}})
			}
			return c, nil
		}
	}
	p := compareBuilt(t, build("decode:#123", false), build("hrx:matmul", true)).program(t, "decode")
	if len(p.Kernels) != 2 {
		t.Fatalf("%d kernel rows, want 2: %+v", len(p.Kernels), p.Kernels)
	}
	for _, k := range p.Kernels {
		if k.Status != Matched {
			t.Errorf("%s: got %s, want %s", k.Name, k.Status, Matched)
		}
	}
	p.kernel(t, "hrx:matmul") // the catalog name wins over the label
}

// Every renderer returns the first write error, up to the last byte (a
// buffered writer's final flush).
func TestWriteErrors(t *testing.T) {
	r := injected()
	for name, write := range map[string]func(io.Writer) error{
		"text": r.WriteText,
		"json": func(w io.Writer) error { return r.WriteJSON(w, -1) },
		"csv":  r.WriteCSV,
	} {
		var whole bytes.Buffer
		if err := write(&whole); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, after := range []int{0, 100, 3000, whole.Len() - 1} {
			if err := write(&testfile.FailAfter{N: after}); err == nil {
				t.Errorf("%s: a write failing after %d bytes: got nil, want an error", name, after)
			}
		}
	}
}

// A gap item names a kernel, not its list: with the name on two rows it is
// pinned on neither (the program's gap line still states it).
func TestKernelGapAmbiguous(t *testing.T) {
	build := func(sink capture.Sink) (*capture.Capture, error) {
		c := &capture.Capture{Source: capture.Source{Path: "x"}, Clock: nsClock}
		p := c.AddProgram(capture.Program{Name: "p", Instances: 1})
		for _, list := range []string{"init", "main"} {
			k := c.AddKernel(capture.Kernel{Program: p, Name: "mm", List: list})
			sink.Dispatch(c, &capture.Dispatch{Program: p, Queue: capture.NoQueue, Kernel: k, Device: capture.Interval{End: 5, Valid: true}})
		}
		c.Accounting.Gap(capture.UnfinishedDispatch, "p").Add(capture.Item{What: "cut", Kernel: "mm"})
		return c, nil
	}
	p := compareBuilt(t, build, build).program(t, "p")
	if len(p.Kernels) != 2 || len(p.GapsA) != 1 {
		t.Fatalf("got rows %d, program gaps %d; want 2 and 1", len(p.Kernels), len(p.GapsA))
	}
	for _, k := range p.Kernels {
		if len(k.GapsA) != 0 || len(k.GapsB) != 0 {
			t.Errorf("%s [%s list]: got a gap that may be the other list's, want it on the program only", k.Name, k.List)
		}
	}
}
