package kineto

import (
	"strings"
	"testing"
	"time"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// Every skip reason is classified where it is recorded: the events that
// may have held device work are lost and name the gap that counts them;
// host events, flows and metadata are not device work.
func TestSkipClassification(t *testing.T) {
	lost := []struct {
		name   string
		events []string
		why    reason
		gap    capture.Kind
	}{
		{"unknown category", []string{`{"ph": "X", "cat": "npu_kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5, "dur": 1}`}, rsUnknownCat, capture.UnknownInput},
		{"unknown phase", []string{`{"ph": "B", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5}`}, rsBadDevice, capture.InvalidEvent},
		{"unknown phase, no category", []string{`{"ph": "Q", "name": "k", "pid": 0, "tid": 7, "ts": 5}`}, rsUnknownPhase, capture.UnknownInput},
		{"kernel without dur", []string{`{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5, "args": {"correlation": 9}}`}, rsBadDevice, capture.InvalidEvent},
		{"not an object", []string{`"{\"ph\": \"X\", \"cat\": \"kernel\"}"`, `[1, 2]`}, rsNotObject, capture.SkippedInput},
		{"repeat", []string{kernel("k", "3", "20", "2"), kernel("k", "3", "20", "2")}, rsRepeat, capture.DuplicateEvent},
	}
	for _, tc := range lost {
		t.Run(tc.name, func(t *testing.T) {
			events := append([]string{call("cudaLaunchKernel", "1", "1", "1"), kernel("ok", "1", "2", "1")}, tc.events...)
			r := readT(t, trace(events))
			s := r.c.Accounting.FindSkip("events", reasonText[tc.why])
			if s == nil {
				t.Fatalf("got no skip %q, want one; gaps:\n%s", reasonText[tc.why], gapText(r.c))
			}
			if s.Class != capture.DeviceWorkLost || s.Gap != tc.gap {
				t.Errorf("skip %q: class %s gap %s, want %s gap %s", s.Reason, s.Class, s.Gap, capture.DeviceWorkLost, tc.gap)
			}
			if r.c.Accounting.Complete() {
				t.Errorf("got a complete capture with a lost event, want it incomplete; gaps:\n%s", gapText(r.c))
			}
			mustGap(t, r.c, tc.gap)
		})
	}
	// The negative arm: host ops, host events, flows, counters and
	// metadata are not device work, and leave the capture complete.
	r := readT(t, trace([]string{
		call("cudaLaunchKernel", "1", "1", "1"), kernel("ok", "1", "2", "1"),
		cpuOp("aten::add", "1", "1"),
		`{"ph": "X", "cat": "overhead", "name": "Buffer flush", "pid": 100, "tid": 100, "ts": 1, "dur": 1}`,
		`{"ph": "s", "id": 1, "pid": 100, "tid": 100, "ts": 1, "cat": "ac2g", "name": "launch"}`,
		`{"ph": "C", "cat": "cuda_profiler_range", "name": "c", "pid": 0, "tid": 7, "ts": 1, "args": {"x": 1}}`,
		`{"ph": "M", "name": "thread_sort_index", "pid": 0, "tid": 7, "args": {"sort_index": 7}}`,
	}))
	for _, in := range r.c.Accounting.Input {
		for _, s := range in.Skipped {
			if s.Class != capture.NotDeviceWork {
				t.Errorf("%s skipped for %q: class %s, want %s", in.Unit, s.Reason, s.Class, capture.NotDeviceWork)
			}
		}
	}
	if !r.c.Accounting.Complete() {
		t.Errorf("got an incomplete capture from host events, want it complete:\n%s", gapText(r.c))
	}
}

// Bytes that were not read are lost: a cut, data after the document, and
// data after the gzip stream may each have held events.
func TestByteSkipClassification(t *testing.T) {
	doc := trace([]string{call("cudaLaunchKernel", "1", "1", "1"), kernel("ok", "1", "2", "1")})
	for name, tc := range map[string]struct {
		c      *capture.Capture
		unit   string
		reason string
		gap    capture.Kind
	}{
		"cut":      {readT(t, doc[:len(doc)-20]).c, "bytes", "after the last complete event: the input is cut or malformed there", capture.TruncatedInput},
		"trailing": {readWith(t, doc+"\n"+doc, nil, config{bufSize: 1 << 16, logRecords: 1 << 10}).c, "bytes", "after the end of the JSON document", capture.SkippedInput},
		"gzip":     {readGz(t, append(gz(t, doc), "junk"...)), "compressed bytes", "after the end of the gzip stream: not gzip data", capture.SkippedInput},
	} {
		s := tc.c.Accounting.FindSkip(tc.unit, tc.reason)
		if s == nil || s.Class != capture.DeviceWorkLost || s.Gap != tc.gap {
			t.Errorf("%s: skip %+v, want %s for %s", name, s, capture.DeviceWorkLost, tc.gap)
		}
		if err := tc.c.CheckValid(); err != nil {
			t.Errorf("%s: got an invalid capture: %v; want a valid one", name, err)
		}
	}
}

// A device event written twice (same stream, start, duration, name and
// correlation) is one event: a duplicate_event, counted once, not a
// contained event, nor a graph replay of its launch.
func TestRepeatedDeviceEvent(t *testing.T) {
	k := kernel("gemm", "1", "20", "5")
	r := readT(t, trace([]string{call("cudaLaunchKernel", "1", "10", "2"), k, k, call("cudaLaunchKernel", "2", "30", "2"), kernel("add", "2", "40", "1")}))
	if len(r.disp) != 2 || r.tables.Dispatches() != 2 {
		t.Fatalf("%d dispatches (tables %d), want 2: the repeat counted once", len(r.disp), r.tables.Dispatches())
	}
	g := mustGap(t, r.c, capture.DuplicateEvent)
	if g.Count != 1 || fig(t, g, "repeated_ns") != 5000 || len(g.Items) != 1 || g.Items[0].Kernel != "gemm" {
		t.Errorf("duplicate_event %+v, want 1 repeat of gemm, repeated_ns 5000", g)
	} else if it := g.Items[0]; !strings.Contains(it.What, "byte ") || it.Where == "" || it.Time == nil || *it.Time != 20_000 {
		t.Errorf("item %+v: want the repeat's byte, the first's byte and the time", it)
	}
	noGap(t, r.c, capture.ContainedEvents)
	noGap(t, r.c, capture.GraphLaunch)
	if s := r.c.Accounting.FindSkip("events", reasonText[rsRepeat]); s == nil || s.Count != 1 {
		t.Errorf("repeat skip %+v, want 1", s)
	}
	if r.disp[0].Link != capture.LinkLaunched {
		t.Errorf("link %v, want launched", r.disp[0].Link)
	}

	// A repeat out of time order, with later events between, is found
	// while its first reading is in the stream's window.
	var evs []string
	for i := 0; i < 50; i++ {
		evs = append(evs, kernelOn("k", 7, itoa(int64(100+i)), itoa(int64(1000+10*i)), "5"))
	}
	evs = append(evs, kernelOn("k", 7, "110", "1100", "5"))
	r = readT(t, trace(evs))
	if got := r.c.Accounting.CountOf(capture.DuplicateEvent); got != 1 || len(r.disp) != 50 {
		t.Errorf("late repeat: %d duplicates and %d dispatches, want 1 and 50", got, len(r.disp))
	}
}

// What is not a repeat: the same times and name with another correlation
// (impossible on one stream: contained_events), another stream, another
// name, times that may be clamped or rounded (0), and graph replays, which
// share the correlation but not the times.
func TestRepeatNegative(t *testing.T) {
	for name, tc := range map[string]struct {
		events []string
		gap    capture.Kind
	}{
		"other correlation": {[]string{kernel("k", "1", "20", "5"), kernel("k", "2", "20", "5")}, capture.ContainedEvents},
		"other stream":      {[]string{kernelOn("k", 7, "1", "20", "5"), kernelOn("k", 8, "1", "20", "5")}, ""},
		"other name":        {[]string{kernel("k", "1", "20", "5"), kernel("j", "1", "20", "5")}, capture.ContainedEvents},
		"dur 0":             {[]string{kernel("k", "1", "20", "0"), kernel("k", "1", "20", "0")}, capture.ZeroDuration},
		"ts 0":              {[]string{kernel("k", "1", "0", "3"), kernel("k", "1", "0", "3")}, capture.ContainedEvents},
		"graph replay":      {[]string{call("cudaGraphLaunch", "1", "1", "1"), kernel("k", "1", "20", "5"), kernel("k", "1", "25", "5"), kernel("k", "1", "30", "5")}, capture.GraphLaunch},
	} {
		r := readT(t, trace(tc.events))
		devices := 0
		for _, e := range tc.events {
			if strings.Contains(e, `"cat": "kernel"`) {
				devices++
			}
		}
		if len(r.disp) != devices {
			t.Errorf("%s: %d dispatches, want %d", name, len(r.disp), devices)
		}
		if g := gap(r.c, capture.DuplicateEvent); g != nil {
			t.Errorf("%s: duplicate_event %+v, want none", name, g)
		}
		if tc.gap != "" {
			mustGap(t, r.c, tc.gap)
		}
	}
	// A repeat whose first reading has left the window (more than
	// repeatWindow later events on its stream) is not found: it reads as
	// an event inside earlier work, still a gap.
	var evs []string
	for i := 0; i <= repeatWindow+1; i++ {
		evs = append(evs, kernelOn("k", 7, itoa(int64(100+i)), itoa(int64(1000+10*i)), "5"))
	}
	evs = append(evs, kernelOn("k", 7, "100", "1000", "5"))
	r := readT(t, trace(evs))
	if got := r.c.Accounting.CountOf(capture.DuplicateEvent); got != 0 || len(r.disp) != repeatWindow+3 {
		t.Errorf("repeat past the window: %d duplicates, %d dispatches; want 0 and %d", got, len(r.disp), repeatWindow+3)
	}
	mustGap(t, r.c, capture.ContainedEvents)
}

// A dispatch with an impossible time is out of the tables (the model
// check's invalid_event) and out of the reader's own figures: a 2 h
// "kernel" does not contain the rest of its stream, count as an orphan or
// a graph replay, or lie longer than the window while "in the tables".
func TestImpossibleLeftOut(t *testing.T) {
	events := []string{
		`{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 1, "dur": 100}`,
		call("cudaLaunchKernel", "1", "1", "1"), kernel("long", "1", "2", "7200000000"),
		call("cudaLaunchKernel", "2", "3", "1"), kernel("inside", "2", "10", "5"),
		kernel("orphan", "99", "20", "7200000000"),
	}
	r := readT(t, trace(events))
	if len(r.disp) != 1 || r.c.Kernels[r.disp[0].Kernel].Name != "inside" {
		t.Fatalf("dispatches %+v, want only \"inside\"", r.disp)
	}
	if got := r.c.Accounting.CountOf(capture.InvalidEvent); got != 2 {
		t.Errorf("invalid_event %d, want 2 (the model check's)\n%s", got, gapText(r.c))
	}
	for _, k := range []capture.Kind{capture.ContainedEvents, capture.GPUEventWithoutLaunch, capture.ZeroDuration} {
		noGap(t, r.c, k)
	}
	for _, g := range r.c.Accounting.Gaps {
		if _, ok := g.Figure("longer_than_window"); ok {
			t.Errorf("got a longer_than_window figure (the reader's invalid_event counting an impossible dispatch as kept), want none: %s", g.Summary)
		}
	}
	// The negative arm: with the ceiling raised they are dispatches, and
	// the reader's figures hold them.
	r = readOpts(t, trace(events), &format.Options{MaxDuration: 3 * time.Hour})
	if len(r.disp) != 3 {
		t.Fatalf("%d dispatches with a 3 h ceiling, want 3", len(r.disp))
	}
	mustGap(t, r.c, capture.ContainedEvents)
	mustGap(t, r.c, capture.GPUEventWithoutLaunch)
	if g := mustGap(t, r.c, capture.InvalidEvent); fig(t, g, "longer_than_window") != 2 {
		t.Errorf("longer_than_window %d, want 2", fig(t, g, "longer_than_window"))
	}
}
