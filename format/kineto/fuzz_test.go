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

// FuzzRead feeds arbitrary input to the reader, with tiny buffers so every
// refill path runs. It must never panic, its accounting must hold, and it
// must agree with the reference validator: input that is not JSON is
// never reported complete, and valid input is never called cut.
//
//	go test -run '^$' -fuzz FuzzRead ./format/kineto/
func FuzzRead(f *testing.F) {
	seeds := []string{
		trace([]string{call("cudaLaunchKernel", "1", "10", "1"), kernel("k", "1", "20", "5"), cpuOp("x", "1", "1")}, `"baseTimeNanoseconds": 1751410836000000000`),
		trace([]string{kernel("g", "12", "120", "1"), call("cudaGraphLaunch", "12", "100", "5"), annot("ProfilerStep#1", 7, "100", "50", 1)}),
		`[{"ph": "X", "cat": "Kernel", "name": "a", "pid": 0, "tid": "stream 7", "ts": 1623142623531640, "dur": 0, "args": {"correlation": 1}}]`,
		`{"traceEvents": [{"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}}], "INFO": ["Record counts: Out-of-range = 1"]}`,
		`{"traceEvents": [{"ph": "X", "cat": "kernel", "ts": "1.5e3", "dur": 1e-05, "args": {"correlation": 18446744073709551615}}]}`,
		"{\"traceEvents\": [{\"name\": \"bad\\u00e9\xff\"}]}",
		// An idle wait before the first kernel, steps by launch, a contained event.
		trace([]string{hostStepEv(3, "900", "2000"), callOn("cudaLaunchKernel", 200, "1", "1000", "5"), kernelOn("a", 7, "1", "301005", "10"), kernelOn("b", 7, "0", "301006", "2")}),
		`[{"name": "aten::add", "ph": "X", "ts": 1.5, "dur": 2.0, "tid": 1, "pid": "CPU functions", "args": {}}]`,
		// Collective kernels: args past the correlation, of every type.
		`{"distributedInfo": {"rank": 3}, "traceEvents": [{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"correlation": 1, "Collective name": "allreduce", "Seq": -4, "In msg nelems": "12", "Out msg nelems": 9223372036854775807, "dtype": {"a": 1}, "Group size": 1e3, "Process Group Name": 17, "Process Group Ranks": "[0, 1, ...]", "Rank": "x", "Process Group ID": -1}}]}`,
		`[{"ph": "X", "cat": "kernel", "name": "ncclKernel_", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"Collective name": "\u0061llgather", "dtype": "BFloat16", "In msg nelems": 4611686018427387904}}]`,
		// A negative correlation, then more events (TestNegativeCorrelation).
		`[{"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 30, "dur": 5, "args": {"correlation": -1, "x": 1}}, {"ph": "X", "cat": "kernel", "name": "c", "pid": 0, "tid": 7, "ts": 50, "dur": 5, "args": {"correlation": -12345, "stream": 7}}]`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	// The small real samples, whole: every key order and spelling they use.
	for _, name := range []string{"hta__triton_example", "hta__cuda_event_sync", "hta__cpu_only_rank-34.pt.trace", "hta__amd_mi250_minitoy_train_rocm6.2"} {
		f.Add(decompress(f, "testdata/"+name+".json.gz"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		chk := &capture.Checked{Next: capture.Discard}
		c, err := readFrom(bytes.NewReader(data), "fuzz.json", &format.Options{}, chk, config{bufSize: 16, logRecords: 3})
		valid := refValid(data)
		if err != nil {
			// Only input that does not even start as JSON is refused.
			if valid && len(bytes.TrimLeft(data, " \t\r\n")) > 0 && strings.ContainsAny(string(bytes.TrimLeft(data, " \t\r\n")[:1]), "{[") {
				t.Fatalf("got valid JSON refused: %v; want it read", err)
			}
			return
		}
		if err := c.CheckValid(); err != nil {
			t.Fatalf("got an invalid capture: %v; want a valid one", err)
		}
		if chk.Err != nil {
			t.Fatalf("got a dispatch that breaks the model: %v; want none", chk.Err)
		}
		fuzzOps(t, data)
		if len(bytes.Trim(data, " \t\r\n")) == 0 {
			// Nothing at all: an empty capture, not a cut one.
			if c.Accounting.CountOf(capture.EmptyCapture) == 0 || c.Accounting.Complete() {
				t.Fatalf("blank input: got gaps\n%s\nwant an empty_capture gap and an incomplete capture", gapText(c))
			}
			return
		}
		// Reading stops at the first syntax error, or notes data after the
		// end of the document.
		stopped := false
		for _, g := range c.Accounting.Gaps {
			for _, it := range g.Items {
				stopped = stopped || stopItem(g.Kind, it)
			}
		}
		if !valid && !stopped {
			t.Fatalf("got invalid JSON read without a stop, want one: %s", gapText(c))
		}
		if valid && stopped {
			t.Fatalf("got valid JSON reported cut, want no stop: %s", gapText(c))
		}
		if !valid && c.Accounting.Complete() {
			t.Fatal("got invalid JSON reported complete, want incomplete")
		}
		if valid {
			checkPrefix(t, data)
		}
	})
}

// stopItem reports a gap item that says reading stopped: at a syntax error
// or a cut (truncated_input, positioned), or at data after the end of the
// document or of the gzip stream. Values of traceEvents that are not event
// objects are skipped_input items too, with a byte, and no stop.
func stopItem(k capture.Kind, it capture.Item) bool {
	switch k {
	case capture.TruncatedInput:
		return it.Where != "" && !tallyItem(it)
	case capture.SkippedInput:
		return it.What == "data after the end of the JSON document" || it.What == "bytes after the end of the gzip stream"
	}
	return false
}

// checkPrefix cuts valid JSON before its last byte: the cut must be
// diagnosed as a cut ("ends early"), never as malformed or complete.
func checkPrefix(t *testing.T, data []byte) {
	end := len(bytes.TrimRight(data, " \t\r\n")) - 1
	if end <= 0 {
		return
	}
	k := end * 7 / 11
	prefix := data[:k]
	c, err := readFrom(bytes.NewReader(prefix), "cut.json", &format.Options{}, capture.Discard, config{bufSize: 16, logRecords: 3})
	if err != nil {
		return // the prefix does not start as a trace at all
	}
	if c.Accounting.Complete() {
		t.Fatalf("prefix of %d bytes: got a complete capture, want incomplete", k)
	}
	if g := c.Accounting.Find(capture.TruncatedInput); g != nil && !strings.Contains(g.Summary, "ends early") {
		t.Fatalf("prefix of %d bytes: got %q, want it to say \"ends early\"", k, g.Summary)
	}
}

// TestDepthLimit checks that tally and the reference validator agree on
// where nesting becomes too deep, skipped values and parsed ones alike.
func TestDepthLimit(t *testing.T) {
	for _, n := range []int{maxDepth - 4, maxDepth - 3, maxDepth - 2, maxDepth - 1, maxDepth, maxDepth + 1} {
		for _, where := range []string{`"args": {"x": %s}`, `"cat": "cpu_op", "args": %s`} {
			deep := strings.Repeat("[", n) + strings.Repeat("]", n)
			data := `{"traceEvents": [{"ph": "X", ` + strings.Replace(where, "%s", deep, 1) + `}]}`
			c, err := readFrom(strings.NewReader(data), "deep.json", &format.Options{}, capture.Discard, config{bufSize: 64, logRecords: 4})
			if err != nil {
				t.Fatal(err)
			}
			stopped := c.Accounting.CountOf(capture.TruncatedInput) > 0 && strings.Contains(c.Accounting.Find(capture.TruncatedInput).Summary, "malformed")
			if stopped == refValid([]byte(data)) {
				t.Errorf("depth %d (%s): got stopped %v with reference valid %v, want a stop exactly when the reference finds it invalid", n, where, stopped, refValid([]byte(data)))
			}
		}
	}
}

// fuzzOps reads data again with host-op attribution: a valid capture and
// op table, and the op table's partition of device time holds.
func fuzzOps(t *testing.T, data []byte) {
	var col capture.Collect
	ops := analysis.NewOpAggregator()
	chk := &capture.Checked{Next: capture.Tee{&col, ops}}
	c, err := readFrom(bytes.NewReader(data), "fuzz.json", &format.Options{Ops: true}, chk, config{bufSize: 16, logRecords: 3})
	if err != nil {
		t.Fatalf("with ops: got error %v, want none (as without)", err)
	}
	if err := c.CheckValid(); err != nil {
		t.Fatalf("with ops: got an invalid capture: %v; want a valid one", err)
	}
	if chk.Err != nil {
		t.Fatalf("with ops: got a dispatch that breaks the model: %v; want none", chk.Err)
	}
	// (The dispatches may differ from a read without ops on hostile input:
	// an event naming its category twice, "cat": "cpu_op", "cat":
	// "kernel", is skipped at the first without ops and read to the last
	// with them; testdata/fuzz/FuzzRead/d23cb89075ad5d16.)
	tb := ops.Table(c, analysis.OpOptions{})
	if tb.Modelled+tb.Unmodelled+tb.Unattributed.Device != tb.Device {
		t.Fatalf("op table: got modelled %d + unmodelled %d + unattributed %d, want a sum of device %d", tb.Modelled, tb.Unmodelled, tb.Unattributed.Device, tb.Device)
	}
	// With a large buffer the record_shapes args take the cache of raw
	// spellings (opargs.go) instead of canon: the same ops, the same stop.
	var big capture.Collect
	cb, err := readFrom(bytes.NewReader(data), "fuzz.json", &format.Options{Ops: true}, &capture.Checked{Next: &big}, config{bufSize: 1 << 16, logRecords: 3})
	if err != nil {
		t.Fatalf("with ops and a large buffer: got error %v, want none", err)
	}
	// (Only the stop is compared: how much trailing data a tiny buffer
	// counts differs, ops or not.)
	if a, b := fmt.Sprintf("%+v", c.Accounting.Find(capture.TruncatedInput)), fmt.Sprintf("%+v", cb.Accounting.Find(capture.TruncatedInput)); a != b {
		t.Fatalf("with ops and a tiny buffer: got the stop\n%s\nwant the large buffer's\n%s", a, b)
	}
	if len(col.Dispatches) != len(big.Dispatches) || len(c.Ops) != len(cb.Ops) {
		t.Fatalf("with ops and a tiny buffer: got %d dispatches, %d ops; want the large buffer's %d, %d", len(col.Dispatches), len(c.Ops), len(big.Dispatches), len(cb.Ops))
	}
	for i, d := range col.Dispatches {
		e := big.Dispatches[i]
		for _, p := range [][2]capture.OpID{{d.Op, e.Op}, {d.OuterOp, e.OuterOp}} {
			if x, y := c.Op(p[0]), cb.Op(p[1]); (x == nil) != (y == nil) || x != nil && *x != *y {
				t.Fatalf("dispatch %d: got op %+v with a tiny buffer, want the large buffer's %+v", i, x, y)
			}
		}
	}
}
