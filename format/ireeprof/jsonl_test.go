package ireeprof

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

func readJSONLBytes(t *testing.T, data []byte) (*capture.Capture, *analysis.Tables) {
	t.Helper()
	agg := analysis.NewAggregator()
	in := &format.Input{Path: "test.jsonl", ReaderAt: bytes.NewReader(data), Size: int64(len(data))}
	c, err := ReadJSONL(in, nil, agg)
	if err != nil {
		t.Fatal(err)
	}
	if msg := checkCapture(c); msg != "" {
		t.Fatalf("got %s, want a valid capture", msg)
	}
	return c, agg.Tables(c)
}

func goldenJSONL(t *testing.T, name string) []byte {
	t.Helper()
	b := fixture.Read(t, goldenPath(name, "dispatch_events"))
	return b
}

// tables renders a report's programs as comparable lines: program, unit,
// kernel, dispatches, total, min, max.
func tables(r *analysis.Tables) []string {
	var out []string
	for _, p := range r.Programs {
		for _, k := range p.Kernels {
			out = append(out, fmt.Sprintf("%s [%s] %s: %d dispatches, total %d min %d max %d",
				p.Program.Name, p.Clock.Unit, k.Kernel.Name, k.Dispatches, k.Total, k.Min, k.Max))
		}
	}
	sort.Strings(out)
	return out
}

// TestJSONLMatchesBundle: a user who only has iree-profile's JSONL gets the
// same programs, kernels and dispatch times as from the bundle.
func TestJSONLMatchesBundle(t *testing.T) {
	for _, name := range samples {
		if name == "cut_mid_record" {
			continue // iree-profile printed only an error for it
		}
		t.Run(name, func(t *testing.T) {
			jc, jr := readJSONLBytes(t, goldenJSONL(t, name))
			agg := analysis.NewAggregator()
			bc, err := newReader(inputOf(sampleBytes(t, name)), agg).read()
			if err != nil {
				t.Fatal(err)
			}
			br := agg.Tables(bc)
			jt, bt := tables(jr), tables(br)
			if strings.Join(jt, "\n") != strings.Join(bt, "\n") {
				t.Errorf("got JSONL tables:\n%s\nwant the bundle's:\n%s", strings.Join(jt, "\n"), strings.Join(bt, "\n"))
			}
			if a, b := jc.Accounting.CountOf(capture.InvalidEvent), bc.Accounting.CountOf(capture.InvalidEvent); a != b {
				t.Errorf("invalid events: got JSONL %d, want the bundle's %d", a, b)
			}
			if (jc.Accounting.CountOf(capture.EmptyCapture) > 0) != (bc.Accounting.CountOf(capture.EmptyCapture) > 0) {
				t.Errorf("empty_capture: got JSONL %v, want the bundle's %v", jc.Accounting.CountOf(capture.EmptyCapture) > 0, bc.Accounting.CountOf(capture.EmptyCapture) > 0)
			}
			// The JSONL can never vouch for completeness.
			if jc.Accounting.Complete() || jc.Accounting.Find(LossesUnknown) == nil {
				t.Error("a JSONL capture: got complete, want incomplete with a losses-unknown gap")
			}
		})
	}
}

func TestJSONLGaps(t *testing.T) {
	full := goldenJSONL(t, "dispatch_mode")
	lines := bytes.SplitAfter(full, []byte("\n"))
	// Cut inside the third row: two rows kept, the cut and the missing
	// summary reported.
	cut := append(bytes.Join(lines[:2], nil), lines[2][:40]...)
	c, r := readJSONLBytes(t, cut)
	if r.Dispatches() != 2 || c.Accounting.Find(capture.TruncatedInput) == nil {
		t.Errorf("cut JSONL: got %d dispatches, gaps %+v; want 2 and truncated_input", r.Dispatches(), c.Accounting.Gaps)
	}
	// A dropped row: the summary does not add up.
	c, _ = readJSONLBytes(t, append(bytes.Join(lines[:1], nil), bytes.Join(lines[2:], nil)...))
	if c.Accounting.Find(capture.InconsistentTrace) == nil {
		t.Error("missing row: got no inconsistent_trace, want one")
	}
	// A row iree-profile marks invalid is invalid whatever its ticks.
	c, r = readJSONLBytes(t, bytes.Replace(full, []byte(`"valid":true`), []byte(`"valid":false`), 1))
	if r.Dispatches() != 2 || c.Accounting.CountOf(capture.InvalidEvent) != 2 {
		t.Errorf("valid:false row: got %d dispatches, %d invalid; want 2 and 2", r.Dispatches(), c.Accounting.CountOf(capture.InvalidEvent))
	}
	checkItem(t, c, capture.InvalidEvent, "event 1 (submission 10): start tick 1000100, end tick 1000350, valid false", "device 0 queue 0, line 1")
	// A row written twice: counted once, the repeat named by its line.
	c, r = readJSONLBytes(t, append(append(bytes.Join(lines[:1], nil), lines[0]...), bytes.Join(lines[1:], nil)...))
	if r.Dispatches() != 3 || c.Accounting.CountOf(capture.DuplicateEvent) != 1 {
		t.Errorf("repeated row: %d dispatches, %d duplicates, want 3, 1", r.Dispatches(), c.Accounting.CountOf(capture.DuplicateEvent))
	}
	checkItem(t, c, capture.DuplicateEvent, "event 1 (submission 10) repeats the row on line 1: counted once", "device 0 queue 0, line 2")
	if c, _ := readJSONLBytes(t, full); c.Accounting.Find(capture.InconsistentTrace) != nil || c.Accounting.Find(capture.TruncatedInput) != nil {
		t.Errorf("whole JSONL: got gaps %+v, want no inconsistent_trace or truncated_input", c.Accounting.Gaps)
	}
	// Rows without a name: one unresolved kernel, whose gap counts its
	// rows, the invalid one too (as the bundle's reader does).
	c, _ = readJSONLBytes(t, bytes.ReplaceAll(full, []byte(`"key":"rms_norm_f32"`), []byte(`"key":""`)))
	if g := c.Accounting.Find(capture.UnresolvedName); g == nil || g.Count != 1 || figure(g, "dispatches") != 2 {
		t.Errorf("rows without a key: got unresolved_name gap %+v, want 1 kernel of 2 dispatches", g)
	}
	// iree-profile's error on the cut bundle: a tool error, no dispatches.
	c, _ = readJSONLBytes(t, goldenJSONL(t, "cut_mid_record"))
	if c.Accounting.Find(ToolError) == nil || c.Accounting.Find(capture.EmptyCapture) == nil {
		t.Errorf("tool error: got gaps %+v, want tool_error and empty_capture", c.Accounting.Gaps)
	}
	// Aggregate output is not read as dispatches, and says so.
	agg := fixture.Read(t, goldenPath("dispatch_mode", "dispatch"))
	c, _ = readJSONLBytes(t, agg)
	if c.Accounting.Find(capture.SkippedInput) == nil || c.Accounting.Find(capture.EmptyCapture) == nil {
		t.Errorf("aggregate: got gaps %+v, want skipped_input and empty_capture", c.Accounting.Gaps)
	}
}

// checkItem checks the first item of the first gap of kind k.
func checkItem(t *testing.T, c *capture.Capture, k capture.Kind, what, where string) {
	t.Helper()
	g := c.Accounting.Find(k)
	if g == nil || len(g.Items) == 0 {
		t.Errorf("%s: got no item, want %q at %q", k, what, where)
		return
	}
	if it := g.Items[0]; it.What != what || it.Where != where || it.Program != g.Program || it.Kernel == "" {
		t.Errorf("%s: got item %+v, want %q at %q in %s, kernel named", k, it, what, where, g.Program)
	}
}

func TestSniff(t *testing.T) {
	for _, name := range samples {
		if Sniff(sampleBytes(t, name)) != format.Certain {
			t.Errorf("%s: not sniffed, want Certain", name)
		}
		if name != "cut_mid_record" && SniffJSONL(goldenJSONL(t, name)) != format.Likely {
			t.Errorf("%s JSONL: not sniffed, want Likely", name)
		}
	}
	for _, head := range []string{"", "IRP", `{"traceEvents":[]}`, `{"type":"summary"}`, "hrx debug serial: x\n"} {
		if Sniff([]byte(head)) != format.No || SniffJSONL([]byte(head)) != format.No {
			t.Errorf("%q: sniffed, want No", head)
		}
	}
}
