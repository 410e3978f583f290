package kineto

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// result is a synthetic trace read with every dispatch kept.
type result struct {
	c      *capture.Capture
	disp   []capture.Dispatch
	tables *analysis.Tables
}

// tinyConfig makes every buffer refill and every record spill.
var tinyConfig = config{bufSize: 16, logRecords: 4}

func readWith(t testing.TB, data string, opts *format.Options, cfg config) *result {
	t.Helper()
	if opts == nil {
		opts = &format.Options{}
	}
	agg := analysis.NewAggregator()
	var col capture.Collect
	chk := &capture.Checked{Next: capture.Tee{agg, &col}, Ceiling: int64(opts.MaxDuration)}
	c, err := readFrom(strings.NewReader(data), "test.json", opts, chk, cfg)
	if err != nil {
		t.Fatalf("read: got error %v, want none", err)
	}
	chk.Finish(c) // as format.ReadInput does: Checked's gaps are the capture's
	if chk.Err != nil {
		t.Fatalf("got a dispatch that breaks the model: %v; want none", chk.Err)
	}
	if err := c.CheckValid(); err != nil {
		t.Fatalf("got an invalid capture: %v; want a valid one", err)
	}
	return &result{c: c, disp: col.Dispatches, tables: agg.Tables(c)}
}

// read reads a synthetic trace twice, with default and with tiny buffers,
// and checks that both reads agree before returning the first.
func readT(t testing.TB, data string) *result {
	t.Helper()
	return readOpts(t, data, nil)
}

func readOpts(t testing.TB, data string, opts *format.Options) *result {
	t.Helper()
	a := readWith(t, data, opts, config{bufSize: 1 << 16, logRecords: 1 << 10})
	b := readWith(t, data, opts, tinyConfig)
	if d := diffResults(a, b); d != "" {
		t.Fatalf("tiny buffers: got a different result, want the same: %s", d)
	}
	return a
}

// diffResults compares two reads of the same input: dispatches, tables
// and gaps must be identical whatever the buffer sizes.
func diffResults(a, b *result) string {
	if len(a.disp) != len(b.disp) {
		return fmt.Sprintf("%d vs %d dispatches", len(a.disp), len(b.disp))
	}
	for i := range a.disp {
		da, db := a.disp[i], b.disp[i]
		ka, kb := a.c.Kernels[da.Kernel], b.c.Kernels[db.Kernel]
		da.Kernel, db.Kernel = 0, 0
		ca, cb := da.Collective, db.Collective
		da.Collective, db.Collective = nil, nil
		if da != db || ka != kb || (ca == nil) != (cb == nil) || ca != nil && *ca != *cb {
			return fmt.Sprintf("dispatch %d: %+v %+v vs %+v %+v", i, da, ka, db, kb)
		}
	}
	ga, gb := gapText(a.c), gapText(b.c)
	if ga != gb {
		return "gaps differ:\n" + ga + "\nvs\n" + gb
	}
	if a.c.Clock != b.c.Clock {
		return fmt.Sprintf("clock %+v vs %+v", a.c.Clock, b.c.Clock)
	}
	return ""
}

func gapText(c *capture.Capture) string {
	var buf bytes.Buffer
	for _, g := range c.Accounting.Gaps {
		fmt.Fprintf(&buf, "%s %q %d %v %s\n", g.Kind, g.Program, g.Count, g.Figures, g.Summary)
		for _, it := range g.Items {
			tm := "-"
			if it.Time != nil {
				tm = fmt.Sprint(*it.Time)
			}
			fmt.Fprintf(&buf, "  %s|%s|%s|%s|%s\n", it.What, it.Where, it.Program, it.Kernel, tm)
		}
	}
	for _, in := range c.Accounting.Input {
		fmt.Fprintf(&buf, "%s %d %d", in.Unit, in.Read, in.Used)
		for _, s := range in.Skipped {
			fmt.Fprintf(&buf, " [%s %d %s]", s.Reason, s.Count, s.First)
		}
		buf.WriteByte('\n')
	}
	return buf.String()
}

// Event builders for synthetic traces (2024 spelling unless stated).

func kernel(name string, corr, ts, dur string) string {
	return fmt.Sprintf(`{"ph": "X", "cat": "kernel", "name": %q, "pid": 0, "tid": 7, "ts": %s, "dur": %s, "args": {"device": 0, "stream": 7, "correlation": %s, "grid": [1, 2, 3]}}`, name, ts, dur, corr)
}

func kernelOn(name string, stream int, corr, ts, dur string) string {
	return fmt.Sprintf(`{"ph": "X", "cat": "kernel", "name": %q, "pid": 0, "tid": %d, "ts": %s, "dur": %s, "args": {"correlation": %s}}`, name, stream, ts, dur, corr)
}

func call(name string, corr, ts, dur string) string {
	return fmt.Sprintf(`{"ph": "X", "cat": "cuda_runtime", "name": %q, "pid": 100, "tid": 100, "ts": %s, "dur": %s, "args": {"cbid": 211, "correlation": %s}}`, name, ts, dur, corr)
}

func annot(name string, stream int, ts, dur string, ext int) string {
	return fmt.Sprintf(`{"ph": "X", "cat": "gpu_user_annotation", "name": %q, "pid": 0, "tid": %d, "ts": %s, "dur": %s, "args": {"External id": %d}}`, name, stream, ts, dur, ext)
}

func cpuOp(name, ts, dur string) string {
	return fmt.Sprintf(`{"ph": "X", "cat": "cpu_op", "name": %q, "pid": 100, "tid": 100, "ts": %s, "dur": %s, "args": {"External id": 1, "Input Dims": [[1, 2], []], "Concrete Inputs": ["", "x"]}}`, name, ts, dur)
}

const endMarker = `{"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 0}`

// trace wraps events in a Kineto object with the end marker; extra are
// raw top-level members appended after traceEvents.
func trace(events []string, extra ...string) string {
	var b strings.Builder
	b.WriteString(`{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Test GPU"}], "traceEvents": [`)
	for _, e := range events {
		b.WriteString(e)
		b.WriteString(",\n  ")
	}
	b.WriteString(endMarker)
	b.WriteString("]")
	for _, x := range extra {
		b.WriteString(", ")
		b.WriteString(x)
	}
	b.WriteString("}")
	return b.String()
}

func gap(c *capture.Capture, k capture.Kind) *capture.Gap { return c.Accounting.Find(k) }

func mustGap(t testing.TB, c *capture.Capture, k capture.Kind) *capture.Gap {
	t.Helper()
	g := gap(c, k)
	if g == nil || g.Count == 0 {
		t.Fatalf("got no %s gap, want one; gaps:\n%s", k, gapText(c))
	}
	return g
}

func noGap(t testing.TB, c *capture.Capture, k capture.Kind) {
	t.Helper()
	if g := gap(c, k); g != nil && g.Count > 0 {
		t.Fatalf("got a %s gap, want none: %s", k, g.Summary)
	}
}

func fig(t testing.TB, g *capture.Gap, name string) int64 {
	t.Helper()
	v, ok := g.Figure(name)
	if !ok {
		t.Fatalf("gap %s: got figures %v, want one named %q", g.Kind, g.Figures, name)
	}
	return v
}

func field(c *capture.Capture, section, key string) (any, bool) {
	for _, s := range c.Sections() {
		if s.Title != section {
			continue
		}
		for _, f := range s.Fields {
			if f.Key == key {
				return f.Value, true
			}
		}
	}
	return nil, false
}
