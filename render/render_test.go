package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// sample builds a capture with one program, one unfinished dispatch and an
// anonymous kernel.
func sample() (*capture.Capture, *analysis.Tables) {
	c := &capture.Capture{Source: capture.Source{Path: "x.kept", Format: "test", Bytes: 10},
		Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true, Description: "ns on a test clock"}}
	p := c.AddProgram(capture.Program{Name: "p1", Instances: 2})
	k := c.AddKernel(capture.Kernel{Program: p, Name: "fam:matmul", Resolved: true, Category: "kernel"})
	anon := c.AddKernel(capture.Kernel{Program: p, Name: "p1:#42", ID: 42, HasID: true, Category: "kernel"})
	in := c.Accounting.InputFor("lines")
	in.Read, in.Used = 5, 4
	in.Ignore("not a trace line", 1, "")
	g := c.Accounting.Gap(capture.UnfinishedDispatch, "p1")
	g.Summary = "launched, never finished"
	g.Add(capture.Item{What: "launched", Program: "p1", Kernel: "fam:matmul", Time: capture.TimeOf(77), LastCompleted: "p1 main[0]"})
	a := analysis.NewAggregator()
	a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k, Device: capture.Interval{Begin: 0, End: 3000, Valid: true}})
	a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: anon, Device: capture.Interval{Begin: 0, End: 1000, Valid: true}})
	return c, a.Tables(c)
}

func TestTextStatesClockFirstAndGapsBelow(t *testing.T) {
	c, r := sample()
	out := text(t, c, r, TextOptions{})
	if !strings.HasPrefix(out, "times: ns on a test clock\n") {
		t.Fatalf("first line: got %q, want \"times: ns on a test clock\"", strings.SplitN(out, "\n", 2)[0])
	}
	table := strings.Index(out, "fam:matmul")
	gap := strings.Index(out, "GAP unfinished_dispatch")
	if table < 0 || gap < table || !strings.Contains(out, "75.0%") || !strings.Contains(out, "p1:#42") {
		t.Fatalf("got\n%s\nwant the table (fam:matmul at 75.0%%, p1:#42) above GAP unfinished_dispatch", out)
	}
	if !strings.Contains(out, "at 77 ns") || !strings.Contains(out, "last completed before it: p1 main[0]") {
		t.Fatalf("got\n%s\nwant the unfinished item at 77 ns, after p1 main[0]", out)
	}
	if !strings.Contains(out, "INCOMPLETE") || strings.Contains(out, "COMPLETE: every") {
		t.Fatalf("got\n%s\nwant the INCOMPLETE verdict and no COMPLETE one", out)
	}
	// Negative arm: without the gap the verdict is COMPLETE.
	c.Accounting.Gaps = nil
	if out := text(t, c, r, TextOptions{}); !strings.Contains(out, "COMPLETE: every input unit is accounted for") {
		t.Fatalf("without gaps: got\n%s\nwant \"COMPLETE: every input unit is accounted for\"", out)
	}
}

func TestJSONCarriesAccounting(t *testing.T) {
	c, r := sample()
	var b bytes.Buffer
	if err := JSON(&b, c, r); err != nil {
		t.Fatal(err)
	}
	var doc JSONReport
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != ReportSchema || doc.Accounting.Complete || len(doc.Accounting.Gaps) != 1 {
		t.Fatalf("got schema %q, accounting %+v; want %q, incomplete, one gap", doc.Schema, doc.Accounting, ReportSchema)
	}
	k := doc.Programs[0].Kernels[0]
	if k.Name != "fam:matmul" || *k.TotalNS != 3000 || *k.Share != 0.75 || k.TotalTicks != nil {
		t.Fatalf("first kernel: got %+v, want fam:matmul, 3000 ns, share 0.75, no ticks", k)
	}
	if doc.Programs[0].Kernels[1].ID == nil || *doc.Programs[0].Kernels[1].ID != 42 {
		t.Fatalf("anonymous kernel: got id %v, want 42", doc.Programs[0].Kernels[1].ID)
	}
}

// A kernel with aggregated dispatches states them and no min/max (they
// cannot be computed from sums); a gap of count 0 is not listed; a gap
// past MaxItems states the items it left out.
func TestJSONAggregatedAndGapItems(t *testing.T) {
	c, _ := sample()
	k := c.Kernels[0]
	a := analysis.NewAggregator()
	a.Dispatch(c, &capture.Dispatch{Program: k.Program, Kernel: 0, Device: capture.Interval{Begin: 0, End: 3000, Valid: true}})
	a.Dispatch(c, &capture.Dispatch{Program: k.Program, Kernel: 0, Aggregate: &capture.Aggregate{Count: 4, Device: 400, DeviceValid: true}})
	c.Accounting.Gap(capture.ClockDecrease, "")
	g := c.Accounting.Gap(capture.InvalidEvent, "")
	for range capture.MaxItems + 3 {
		g.Add(capture.Item{What: "end before start"})
	}
	doc := BuildJSON(c, a.Tables(c))
	jk := doc.Programs[0].Kernels[0]
	if jk.AggregatedDispatches != 4 || jk.MinNS != nil || jk.MaxNS != nil || jk.TotalNS == nil || *jk.TotalNS != 3400 {
		t.Errorf("aggregated kernel: got aggregated %d, min %v, max %v, total %v; want 4, no min, no max, 3400 ns", jk.AggregatedDispatches, jk.MinNS, jk.MaxNS, jk.TotalNS)
	}
	kinds := map[capture.Kind]JSONGap{}
	for _, jg := range doc.Accounting.Gaps {
		kinds[jg.Kind] = jg
	}
	if _, ok := kinds[capture.ClockDecrease]; ok {
		t.Errorf("gaps: got clock_decrease of count 0 listed, want it left out")
	}
	if jg := kinds[capture.InvalidEvent]; jg.Count != capture.MaxItems+3 || len(jg.Items) != capture.MaxItems || jg.ItemsOmitted != 3 {
		t.Errorf("invalid_event: got count %d, %d items, %d omitted; want %d, %d, 3", jg.Count, len(jg.Items), jg.ItemsOmitted, capture.MaxItems+3, capture.MaxItems)
	}
}

func TestJSONTicksAndUntimed(t *testing.T) {
	c, r := sample()
	c.Programs[0].Clock = &capture.Clock{Domain: "device-ticks", Unit: "ticks", Timed: true}
	r = analysisAgain(c, r)
	doc := BuildJSON(c, r)
	k := doc.Programs[0].Kernels[0]
	if k.TotalNS != nil || k.TotalTicks == nil || *k.TotalTicks != 3000 || *doc.Programs[0].Unit != "ticks" {
		t.Fatalf("ticks program: got %+v, want 3000 ticks and no ns", k)
	}
	c.Programs[0].Clock = &capture.Clock{}
	r = analysisAgain(c, r)
	doc = BuildJSON(c, r)
	if doc.Programs[0].Unit != nil || doc.Programs[0].Kernels[0].TotalNS != nil || doc.Programs[0].Kernels[0].Share != nil {
		t.Fatalf("untimed program: got unit %v, first kernel %+v; want no unit, time or share", doc.Programs[0].Unit, doc.Programs[0].Kernels[0])
	}
}

// analysisAgain rebuilds the tables after a clock change.
func analysisAgain(c *capture.Capture, r *analysis.Tables) *analysis.Tables {
	for i := range r.Programs {
		r.Programs[i].Clock = c.ProgramClock(r.Programs[i].ID)
	}
	return r
}

type brokenWriter struct{ after int }

func (w *brokenWriter) Write(p []byte) (int, error) {
	if w.after <= 0 {
		return 0, errors.New("disk full")
	}
	w.after--
	return len(p), nil
}

func TestWriteErrorsReturned(t *testing.T) {
	c, r := sample()
	if err := Text(&brokenWriter{}, c, r, TextOptions{}); err == nil {
		t.Fatal("text to a failing writer: got no error, want the write error")
	}
	if err := JSON(&brokenWriter{}, c, r); err == nil {
		t.Fatal("json to a failing writer: got no error, want the write error")
	}
	if err := InspectText(&brokenWriter{}, c); err == nil {
		t.Fatal("inspect to a failing writer: got no error, want the write error")
	}
	if err := InspectJSON(&brokenWriter{}, c); err == nil {
		t.Fatal("inspect json to a failing writer: got no error, want the write error")
	}
}

func TestDurations(t *testing.T) {
	for _, c := range []struct {
		v    int64
		unit string
		want string
	}{{820, "ns", "820 ns"}, {84700, "ns", "84.700 µs"}, {24_000_000, "ns", "24.000 ms"}, {3_500_000_000, "ns", "3.500 s"}, {1234, "ticks", "1234 ticks"}} {
		if got := Duration(c.v, c.unit); got != c.want {
			t.Errorf("Duration(%d, %s) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

func TestMoreItemsLine(t *testing.T) {
	c, r := sample()
	counted := c.Accounting.Gap(capture.SkippedInput, "")
	counted.Summary = "counted"
	counted.Add(capture.Item{What: "12 malformed lines"})
	counted.Count = 12 // one item stands for all of them
	listed := c.Accounting.Gap(capture.InvalidEvent, "")
	listed.Summary = "listed"
	for i := 0; i < 15; i++ {
		listed.Add(capture.Item{What: "event"})
	}
	out := text(t, c, r, TextOptions{})
	if strings.Count(out, "… and") != 1 || !strings.Contains(out, "… and 5 more (--json lists 15)") {
		t.Fatalf("got\n%s\nwant one \"… and 5 more (--json lists 15)\" line", out)
	}
}

// A gap scoped to a program the tables do not show is still printed.
func TestGapOfUnshownProgramPrinted(t *testing.T) {
	c, r := sample()
	g := c.Accounting.Gap(capture.DroppedRecords, "session 2: command buffer 9")
	g.Summary = "records the producer dropped"
	g.AddN(4)
	if out := text(t, c, r, TextOptions{}); !strings.Contains(out, "[program session 2: command buffer 9] GAP dropped_records (4)") {
		t.Fatalf("got\n%s\nwant the gap of the unshown program printed", out)
	}
}

func TestRuns(t *testing.T) {
	for _, tc := range []struct {
		n      int64
		states []capture.Count
		want   string
	}{
		{1, nil, "1 run"},
		{0, nil, "0 runs"},
		{3, []capture.Count{{Name: "complete", Count: 2}, {Name: "failed", Count: 1}}, "3 runs (2 complete, 1 failed)"},
	} {
		if got := Runs(tc.n, tc.states); got != tc.want {
			t.Errorf("Runs(%d, %v) = %q, want %q", tc.n, tc.states, got, tc.want)
		}
	}
}

// A program's head says how many of its dispatches were timed when not
// all were; a gap of count 0 scoped to a program is not written under it.
func TestTextProgramHeadAndScopedGaps(t *testing.T) {
	c, _ := sample()
	a := analysis.NewAggregator()
	a.Dispatch(c, &capture.Dispatch{Program: 0, Kernel: 0, Device: capture.Interval{Begin: 0, End: 3000, Valid: true}})
	a.Dispatch(c, &capture.Dispatch{Program: 0, Kernel: 1, Device: capture.Interval{Begin: 0, End: 1000, Valid: true}})
	a.Dispatch(c, &capture.Dispatch{Program: 0, Kernel: 0})
	c.Accounting.Gap(capture.ClockDecrease, "p1")
	out := text(t, c, a.Tables(c), TextOptions{})
	if !strings.Contains(out, "over 2 timed dispatches") {
		t.Errorf("got\n%s\nwant the program head to say \"over 2 timed dispatches\" (3 dispatches, 2 timed)", out)
	}
	if strings.Contains(out, "clock_decrease") {
		t.Errorf("got\n%s\nwant no clock_decrease (its count is 0)", out)
	}
}

// The short verdict of a complete capture without an end marker says it is
// complete only up to its last unit.
func TestShortVerdictNoEndMarker(t *testing.T) {
	c := &capture.Capture{}
	if got := ShortVerdict(c); got != "complete" {
		t.Errorf("got %q, want \"complete\"", got)
	}
	c.Accounting.CutUnit = "line"
	if got, want := ShortVerdict(c), "complete up to the last line ("; !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want it to begin %q", got, want)
	}
}
