package kineto

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

func TestGenerationCBaseAfterEvents(t *testing.T) {
	// The base comes after traceEvents, as in the HTA MI250 sample: times
	// stay relative until the end, then the base is added exactly.
	data := trace([]string{
		call("cudaLaunchKernel", "5", "1428625731610.000", "2.5"),
		kernel("k", "5", "1428625731622.250", "3.001"),
	}, `"displayTimeUnit": "ms"`, `"baseTimeNanoseconds": 1751410836000000000`)
	r := readT(t, data)
	if len(r.disp) != 1 {
		t.Fatalf("got %d dispatches, want 1", len(r.disp))
	}
	d := r.disp[0]
	if want := int64(1751410836000000000 + 1428625731622250); d.Device.Begin != want || d.Device.End != want+3001 {
		t.Errorf("device %+v, want begin %d dur 3001", d.Device, want)
	}
	if d.Launch.Begin != 1751410836000000000+1428625731610000 || d.Launch.End-d.Launch.Begin != 2500 || !d.Launch.Valid {
		t.Errorf("got launch %+v, want begin %d, 2500 ns, valid", d.Launch, int64(1751410836000000000+1428625731610000))
	}
	if d.Link != capture.LinkLaunched {
		t.Errorf("got link %v, want %v", d.Link, capture.LinkLaunched)
	}
	if r.c.Clock.Domain != "unix-epoch" || !strings.Contains(r.c.Clock.Description, "generation C") || !strings.Contains(r.c.Clock.Description, "1751410836000000000") {
		t.Errorf("got clock %+v, want unix-epoch, described as generation C with its base", r.c.Clock)
	}
	if !r.c.Accounting.Complete() {
		t.Errorf("got an incomplete capture, want complete:\n%s", gapText(r.c))
	}
}

func TestGenerationBExactNanoseconds(t *testing.T) {
	// 19 significant digits: float64 would move these by up to 256 ns.
	data := trace([]string{
		call("cudaLaunchKernel", "9", "1712195495519689.047", "4.999"),
		kernel("k", "9", "1712195495519699.001", "1.003"),
	})
	r := readT(t, data)
	d := r.disp[0]
	if d.Device.Begin != 1712195495519699001 || d.Device.End != 1712195495519700004 {
		t.Errorf("got device %+v, want 1712195495519699001..1712195495519700004", d.Device)
	}
	if d.Launch.Begin != 1712195495519689047 {
		t.Errorf("got launch %+v, want begin 1712195495519689047", d.Launch)
	}
	if !strings.Contains(r.c.Clock.Description, "generation B") {
		t.Errorf("got clock %q, want generation B", r.c.Clock.Description)
	}
}

func TestGenerationAIntegerMicros(t *testing.T) {
	data := trace([]string{call("cudaLaunchKernel", "1", "1623142623531625", "7"), kernel("k", "1", "1623142623531640", "3")})
	r := readT(t, data)
	if r.disp[0].Device.Begin != 1623142623531640000 {
		t.Errorf("got device %+v, want begin 1623142623531640000", r.disp[0].Device)
	}
	if !strings.Contains(r.c.Clock.Description, "generation A") {
		t.Errorf("got clock %q, want generation A", r.c.Clock.Description)
	}
}

func TestRelativeWithoutBase(t *testing.T) {
	// Relative times and no base at all: durations are fine, absolute
	// times are not claimed.
	data := trace([]string{call("cudaLaunchKernel", "1", "10.0", "1"), kernel("k", "1", "20.5", "1.5")})
	r := readT(t, data)
	if r.c.Clock.Domain == "unix-epoch" {
		t.Errorf("relative times without base: got clock %+v, want one that is not unix-epoch", r.c.Clock)
	}
	if d, _ := r.disp[0].Device.Duration(); d != 1500 {
		t.Errorf("got dur %d, want 1500", d)
	}
}

func TestBaseWithAbsoluteTimes(t *testing.T) {
	data := trace([]string{call("cudaLaunchKernel", "1", "1712195495519689", "1"), kernel("k", "1", "1712195495519690", "1")},
		`"baseTimeNanoseconds": 1751410836000000000`)
	r := readT(t, data)
	g := mustGap(t, r.c, capture.InconsistentTrace)
	if !strings.Contains(g.Items[0].What, "not added") {
		t.Errorf("got item %q, want it to say \"not added\"", g.Items[0].What)
	}
	if r.disp[0].Device.Begin != 1712195495519690000 {
		t.Errorf("got device %+v, want begin 1712195495519690000 (the base not added)", r.disp[0].Device)
	}
}

func TestNumberForms(t *testing.T) {
	// Exponents, strings, more than 3 decimals (rounded half-even).
	data := trace([]string{
		kernel("a", "1", "1e3", "1.5e0"),
		kernel("b", "2", `"2000.25"`, `"0.0025"`),
		kernel("c", "3", "3000.0000005", "0.0035"),
	})
	r := readT(t, data)
	want := [][2]int64{{1000000, 1500}, {2000250, 2}, {3000000, 4}}
	for i, d := range r.disp {
		dur, _ := d.Device.Duration()
		if d.Device.Begin != want[i][0] || dur != want[i][1] {
			t.Errorf("event %d: begin %d dur %d, want %v", i, d.Device.Begin, dur, want[i])
		}
	}
	if v, ok := field(r.c, "events", "ts/dur written as strings"); !ok || v.(int64) != 2 {
		t.Errorf("got strings counted %v, want 2", v)
	}
	if v, ok := field(r.c, "events", "times with digits below 1 ns (rounded half-even)"); !ok || v.(int64) != 3 {
		t.Errorf("got rounded counted %v, want 3", v)
	}
}

func Test2021Spellings(t *testing.T) {
	// Categories Kernel/Runtime/Memcpy, string tids, lower-case external id.
	data := `{"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "Operator", "name": "ProfilerStep#3", "pid": 25738, "tid": "25738", "ts": 1623142623531600, "dur": 100},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 25738, "tid": "25738", "ts": 1623142623531625, "dur": 7, "args": {"cbid": 211, "correlation": 34417, "external id": 537}},
  {"ph": "X", "cat": "Kernel", "name": "volta_sgemm", "pid": 0, "tid": "stream 7", "ts": 1623142623531640, "dur": 0, "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 34417, "external id": 537}},
  {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": "stream 7", "ts": 1623142623531650, "dur": 2, "args": {"correlation": 34418}},
  {"ph": "X", "cat": "Runtime", "name": "cudaMemcpyAsync", "pid": 25738, "tid": "25738", "ts": 1623142623531645, "dur": 3, "args": {"correlation": 34418}},
  {"ph": "f", "id": 34417, "pid": 0, "tid": "stream 7", "ts": 1623142623531640, "cat": "async", "name": "launch", "bp": "e"},
  {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 1623142624633484}
]}`
	r := readT(t, data)
	if len(r.disp) != 2 {
		t.Fatalf("got %d dispatches, want 2", len(r.disp))
	}
	// The Memcpy event carries no args.stream: its queue comes from the
	// tid "stream 7" alone.
	for _, d := range r.disp {
		if q := r.c.Queues[d.Queue]; q.Name != "stream 7" || q.Device != "device 0" {
			t.Errorf("got queue %+v, want stream 7 on device 0", q)
		}
	}
	k0, k1 := r.c.Kernels[r.disp[0].Kernel], r.c.Kernels[r.disp[1].Kernel]
	if k0.Category != "kernel" || k0.Name != "volta_sgemm" || k1.Category != "memcpy" {
		t.Errorf("got kernels %+v %+v, want kernel volta_sgemm and a memcpy", k0, k1)
	}
	for _, d := range r.disp {
		if d.Link != capture.LinkLaunched {
			t.Errorf("got link %v, want %v", d.Link, capture.LinkLaunched)
		}
	}
	g := mustGap(t, r.c, capture.ZeroDuration)
	if fig(t, g, "dur_0") != 1 || !strings.Contains(g.Summary, "generation A") {
		t.Errorf("got zero_duration gap %+v, want dur_0 1, generation A", g)
	}
	if v, _ := field(r.c, "steps and annotations", "ProfilerStep host annotations"); v != "1 (#3–#3)" {
		t.Errorf("got steps %v, want 1 (#3–#3)", v)
	}
}

func TestLinkOrders(t *testing.T) {
	data := trace([]string{
		// CUDA order: kernel, then its call.
		kernel("gpu_first", "10", "100", "1"),
		call("cudaLaunchKernel", "10", "90", "2"),
		// ROCm order: call, then kernel.
		call("hipLaunchKernel", "11", "95", "2"),
		kernel("call_first", "11", "110", "1"),
		// A graph: replayed kernels before and after the launch call.
		kernel("g1", "12", "120", "1"),
		call("cudaGraphLaunch", "12", "100", "5"),
		kernel("g2", "12", "122", "1"),
		kernel("g3", "12", "124", "1"),
		// A call that is not on the launch list still links.
		kernel("odd", "13", "130", "1"),
		call("cudaMemcpy", "13", "125", "10"),
	})
	r := readT(t, data)
	links := map[string]capture.Link{}
	for _, d := range r.disp {
		links[r.c.Kernels[d.Kernel].Name] = d.Link
		if !d.Launch.Valid {
			t.Errorf("%s: got no launch time, want one", r.c.Kernels[d.Kernel].Name)
		}
	}
	want := map[string]capture.Link{"gpu_first": capture.LinkLaunched, "call_first": capture.LinkLaunched,
		"g1": capture.LinkGraph, "g2": capture.LinkGraph, "g3": capture.LinkGraph, "odd": capture.LinkLaunched}
	for k, v := range want {
		if links[k] != v {
			t.Errorf("%s: link %v, want %v", k, links[k], v)
		}
	}
	g := mustGap(t, r.c, capture.GraphLaunch)
	if g.Count != 1 || fig(t, g, "device_events") != 3 || fig(t, g, "events_per_launch_max") != 3 || !g.Note {
		t.Errorf("got graph_launch gap %+v, want a note: 1 launch, 3 device events, at most 3 per launch", g)
	}
	if !r.c.Accounting.Complete() {
		t.Errorf("got an incomplete capture, want complete:\n%s", gapText(r.c))
	}
	if v, _ := field(r.c, "launch linkage", "calls not on the launch list that launched device work"); v != "cudaMemcpy" {
		t.Errorf("got unlisted launch names %v, want cudaMemcpy", v)
	}
	p := r.c.Programs[r.disp[0].Program]
	if !strings.Contains(strings.Join(p.Notes, "\n"), "per-op attribution is unavailable") {
		t.Errorf("got program notes %q, want one saying per-op attribution is unavailable", p.Notes)
	}
}

func TestDeviceEventsWithoutLaunch(t *testing.T) {
	data := trace([]string{
		kernel("early1", "3", "10", "4"), // below every call id: launched before the window
		kernel("early2", "4", "20", "6"),
		call("cudaLaunchKernel", "100", "30", "1"),
		kernel("ok", "100", "40", "1"),
		`{"ph": "X", "cat": "kernel", "name": "nocorr", "pid": 0, "tid": 7, "ts": 50, "dur": 2, "args": {}}`,
		kernel("rccl", "0", "60", "3"),
	})
	r := readT(t, data)
	g := mustGap(t, r.c, capture.GPUEventWithoutLaunch)
	if g.Count != 4 || fig(t, g, "total_ns") != 15000 || fig(t, g, "unmatched_correlation") != 2 ||
		fig(t, g, "no_correlation") != 1 || fig(t, g, "correlation_0") != 1 || fig(t, g, "max_correlation") != 4 {
		t.Errorf("got gap %+v, want 4 (15000 ns): 2 unmatched correlations, 1 without, 1 of 0, max correlation 4", g)
	}
	if !strings.Contains(g.Summary, "before the profiler's CPU window opened") {
		t.Errorf("got summary %q, want it to say \"before the profiler's CPU window opened\"", g.Summary)
	}
	n := 0
	for _, d := range r.disp {
		if d.Link == capture.LinkNoLaunch {
			n++
			if d.Launch.Valid {
				t.Errorf("got an orphan with a launch time, want none")
			}
		}
	}
	if n != 4 {
		t.Errorf("got %d no-launch dispatches, want 4", n)
	}
	if r.c.Accounting.Complete() {
		t.Error("got a complete capture despite orphans, want incomplete")
	}
}

func TestLaunchWithoutDeviceEvent(t *testing.T) {
	data := trace([]string{
		call("cudaLaunchKernel", "1", "10", "1"),
		kernel("k", "1", "20", "5"),
		call("cudaMemsetAsync", "2", "12", "1"),  // within the activity: cause unknown
		call("cudaLaunchKernel", "3", "40", "1"), // after the last device event
		call("cudaEventQuery", "4", "41", "1"),   // not a launch: no device work expected
		call("cudaStreamBeginCapture", "5", "50", "1"),
		call("cudaLaunchKernel", "6", "51", "1"), // recorded into a graph: no device event expected
		call("cudaStreamEndCapture", "7", "52", "1"),
	})
	r := readT(t, data)
	g := mustGap(t, r.c, capture.LaunchWithoutGPUEvent)
	if g.Count != 2 || fig(t, g, "cudaLaunchKernel") != 1 || fig(t, g, "cudaMemsetAsync") != 1 ||
		fig(t, g, "after_last_device_event") != 1 || fig(t, g, "elsewhere") != 1 {
		t.Errorf("got gap %+v, want 2: cudaLaunchKernel after the last device event, cudaMemsetAsync elsewhere", g)
	}
	if v, _ := field(r.c, "launch linkage", "call cudaLaunchKernel"); !strings.Contains(v.(string), "1 inside stream capture") {
		t.Errorf("got call cudaLaunchKernel %v, want it to say \"1 inside stream capture\"", v)
	}
}

func TestNames(t *testing.T) {
	data := trace([]string{
		call("INVALID", "1", "10", "1"),
		kernel("k", "1", "20", "1"),
		`{"ph": "X", "cat": "kernel", "name": "", "pid": 0, "tid": 7, "ts": 30, "dur": 1, "args": {"correlation": 5}}`,
		call("cudaLaunchKernel", "5", "25", "1"),
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bad\xff\xfename\", \"pid\": 0, \"tid\": 7, \"ts\": 40, \"dur\": 1, \"args\": {\"correlation\": 6}}",
		call("cudaLaunchKernel", "6", "35", "1"),
		`{"ph": "X", "cat": "kernel", "name": "esc\"aped\u00e9", "pid": 0, "tid": 7, "ts": 50, "dur": 1, "args": {"correlation": 7}}`,
		call("cudaLaunchKernel", "7", "45", "1"),
		`{"ph": "X", "cat": "kernel", "name": "was\ufffdreplaced", "pid": 0, "tid": 7, "ts": 60, "dur": 1, "args": {"correlation": 8}}`,
		call("cudaLaunchKernel", "8", "55", "1"),
	})
	r := readT(t, data)
	g := mustGap(t, r.c, capture.UnresolvedName)
	if g.Count != 4 || fig(t, g, "invalid_runtime_calls") != 1 || fig(t, g, "unnamed_device_events") != 1 || fig(t, g, "device_events_invalid_utf8") != 2 {
		t.Errorf("got gap %+v, want 4: 1 invalid runtime call, 1 unnamed device event, 2 invalid UTF-8", g)
	}
	names := map[string]bool{}
	for _, k := range r.c.Kernels {
		names[k.Name] = k.Resolved
	}
	if resolved, ok := names["esc\"aped\u00e9"]; !ok || !resolved {
		t.Errorf("got names %v, want the escaped one decoded and resolved", names)
	}
	if resolved, ok := names["bad\xff\xfename"]; !ok || resolved {
		t.Errorf("got names %v, want the invalid UTF-8 one kept as found, unresolved", names)
	}
	if _, ok := names["(unnamed kernel)"]; !ok {
		t.Errorf("got names %v, want (unnamed kernel) among them", names)
	}
}

func TestOverlapsAndZeroDurations(t *testing.T) {
	data := trace([]string{
		kernelOn("a", 7, "0", "100", "10"),
		kernelOn("b", 7, "0", "105", "10"), // overlaps a by 5 µs
		kernelOn("c", 7, "0", "120", "0"),
		kernelOn("d", 8, "0", "100", "10"), // another stream: no overlap
		kernelOn("e", 7, "0", "99", "1"),   // out of file order, no overlap
	})
	r := readT(t, data)
	g := mustGap(t, r.c, capture.OverlappingEvents)
	if g.Count != 1 || fig(t, g, "total_ns") != 5000 {
		t.Errorf("got overlapping_events gap %+v, want 1 of 5000 ns", g)
	}
	z := mustGap(t, r.c, capture.ZeroDuration)
	if z.Count != 1 || fig(t, z, "dur_0") != 1 {
		t.Errorf("got zero_duration gap %+v, want 1, dur_0 1", z)
	}
}

func TestEmptyCaptures(t *testing.T) {
	cpuOnly := `{"schemaVersion": 1, "deviceProperties": [], "traceEvents": [` + cpuOp("aten::add", "1", "2") + `, ` + endMarker + `]}`
	r := readT(t, cpuOnly)
	g := mustGap(t, r.c, capture.EmptyCapture)
	if !strings.Contains(g.Summary, "cpu_op 1") || !strings.Contains(g.Summary, "CPU-only") {
		t.Errorf("got summary %q, want it to say cpu_op 1 and CPU-only", g.Summary)
	}
	counters := trace([]string{
		`{"ph": "X", "cat": "cuda_profiler_range", "name": "k", "pid": 0, "tid": 7, "ts": 0, "dur": 0, "args": {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum": 0}}`,
		call("cudaLaunchKernel", "1", "10", "1"),
	})
	r = readT(t, counters)
	if g := mustGap(t, r.c, capture.EmptyCapture); !strings.Contains(g.Summary, "range-profiler") {
		t.Errorf("got empty_capture summary %q, want it to say range-profiler", g.Summary)
	}
	if g := mustGap(t, r.c, capture.LaunchWithoutGPUEvent); !strings.Contains(g.Summary, "range-profiler") {
		t.Errorf("got launch_without_gpu_event summary %q, want it to say range-profiler", g.Summary)
	}
	r = readT(t, `{"schemaVersion": 1}`)
	mustGap(t, r.c, capture.EmptyCapture)
	r = readT(t, " \n")
	mustGap(t, r.c, capture.EmptyCapture)
}

func TestTruncatedAndMalformed(t *testing.T) {
	full := trace([]string{call("cudaLaunchKernel", "1", "10", "1"), kernel("k", "1", "20", "5"), cpuOp("x", "1", "1"), kernel("k", "2", "30", "5")})
	cut := full[:strings.LastIndex(full, `{"ph": "X", "cat": "kernel"`)+30]
	r := readT(t, cut)
	g := mustGap(t, r.c, capture.TruncatedInput)
	if fig(t, g, "events_read") != 3 || !strings.Contains(g.Summary, "ends early") {
		t.Errorf("got gap %+v, want 3 events read and \"ends early\"", g)
	}
	// A cut between tokens is a cut too, not a syntax error.
	for _, c := range []string{full[:strings.Index(full, `"traceEvents": [`)+16], full[:strings.Index(full, `,`)+1] + "\n  "} {
		g := mustGap(t, readT(t, c).c, capture.TruncatedInput)
		if !strings.Contains(g.Summary, "ends early") {
			t.Errorf("cut %q: got %q, want it to say \"ends early\"", c, g.Summary)
		}
	}
	if len(r.disp) != 1 {
		t.Errorf("got %d dispatches, want the 1 before the cut", len(r.disp))
	}
	bad := strings.Replace(full, `"name": "x"`, `"name": "x"y"`, 1)
	r = readT(t, bad)
	g = mustGap(t, r.c, capture.TruncatedInput)
	at := int64(strings.Index(bad, `y"`))
	if fig(t, g, "byte") != at || !strings.Contains(g.Summary, "malformed") {
		t.Errorf("gap at %d, want %d: %+v", fig(t, g, "byte"), at, g)
	}
	in := r.c.Accounting.InputFor("bytes")
	if in.Read != int64(len(bad)) {
		t.Errorf("got %d bytes read, want all %d", in.Read, len(bad))
	}
	// Syntax errors in skipped values are errors too.
	for _, b := range []string{
		strings.Replace(full, `[[1, 2], []]`, `[[1 2], []]`, 1),
		strings.Replace(full, `[[1, 2], []]`, `[[1, 2], ]]`, 1),
		strings.Replace(full, `"Input Dims"`, `"Input Dims" `+"\x01", 1),
		strings.Replace(full, `[[1, 2], []]`, `[[01, 2], []]`, 1),
		strings.Replace(full, `[[1, 2], []]`, `[[1, 2}, []]`, 1),
		// Numbers: an exponent or a fraction without digits, on the
		// plain-digit path and on the signed one.
		strings.Replace(full, `[[1, 2], []]`, `[[1e, 2], []]`, 1),
		strings.Replace(full, `[[1, 2], []]`, `[[-1e+, 2], []]`, 1),
		strings.Replace(full, `[[1, 2], []]`, `[[1.5e, 2], []]`, 1),
		strings.Replace(full, `[[1, 2], []]`, `[[-1., 2], []]`, 1),
		strings.Replace(full, `"grid": [1, 2, 3]`, `"grid": [1, 2, tru]`, 1),
		strings.Replace(full, `"Input Dims": [[1, 2], []]`, `"Input Dims": [[1, 2], []], "a" 1`, 1),
		strings.Replace(full, `"Input Dims": [[1, 2], []]`, `"Input Dims": [[1, 2], []], "a" 1 2`, 1),
		strings.Replace(full, `"Input Dims": [[1, 2], []]`, `"Input Dims": [[1, 2], []], "a": {"b" 1}`, 1),
		strings.Replace(full, `"Input Dims": [[1, 2], []]`, `"Input Dims": [[1, 2], []], "a": {"b": 1]}`, 1),
	} {
		r = readT(t, b)
		mustGap(t, r.c, capture.TruncatedInput)
	}
}

func TestNoEndMarkerAndTrailingData(t *testing.T) {
	data := `{"schemaVersion": 1, "traceEvents": [` + kernel("k", "1", "1", "1") + `]}`
	r := readT(t, data)
	if g := mustGap(t, r.c, capture.TruncatedInput); !strings.Contains(g.Summary, "no end marker") {
		t.Errorf("got summary %q, want it to say \"no end marker\"", g.Summary)
	}
	// A generic Chrome trace (bare array) has no such marker to miss.
	r = readT(t, `[`+kernel("k", "1", "1", "1")+`]`)
	noGap(t, r.c, capture.TruncatedInput)
	r = readT(t, trace([]string{kernel("k", "1", "1", "1")})+`{"traceEvents": []}`)
	mustGap(t, r.c, capture.SkippedInput)
}

func TestUnknownCategoriesAndPhases(t *testing.T) {
	data := trace([]string{
		`{"ph": "X", "cat": "npu_kernel", "name": "x", "pid": 0, "tid": 1, "ts": 1, "dur": 1}`,
		`{"ph": "X", "cat": "npu_kernel", "name": "y", "pid": 0, "tid": 1, "ts": 2, "dur": 1}`,
		`{"ph": "B", "cat": "cpu_op", "name": "z", "pid": 0, "tid": 1, "ts": 3}`,
		kernel("k", "1", "1", "1"),
	})
	r := readT(t, data)
	g := mustGap(t, r.c, capture.UnknownInput)
	if g.Count != 3 || fig(t, g, "npu_kernel") != 2 || fig(t, g, "phase B") != 1 {
		t.Errorf("got gap %+v, want 3: npu_kernel 2, phase B 1", g)
	}
}

func TestProducerLog(t *testing.T) {
	data := trace([]string{kernel("k", "1", "1", "1")},
		`"INFO": ["INFO:2024 x.cpp:1] Record counts: Out-of-range = 3829, Blocklisted runtime = 56517, Invalid ext correlations = 0, CUPTI stopped early? = 1"]`,
		`"ERROR": ["ERROR:2024 DeviceProperties.cpp:47] gpuGetDeviceCount failed with code 35"]`)
	r := readT(t, data)
	g := mustGap(t, r.c, capture.ProducerWarnings)
	if g.Count != 3 || fig(t, g, "Out-of-range") != 3829 || fig(t, g, "Blocklisted runtime") != 56517 || fig(t, g, "CUPTI stopped early?") != 1 {
		t.Errorf("got gap %+v, want 3: Out-of-range 3829, Blocklisted runtime 56517, CUPTI stopped early? 1", g)
	}
	found := false
	for _, it := range g.Items {
		if it.What == "ERROR:2024 DeviceProperties.cpp:47] gpuGetDeviceCount failed with code 35" {
			found = true
		}
	}
	if !found {
		t.Errorf("got items %+v, want the ERROR line verbatim among them", g.Items)
	}
	// Blocklisted runtime alone is the profiler's own filter, not a loss.
	r = readT(t, trace([]string{kernel("k", "1", "1", "1")}, `"INFO": ["Record counts: Out-of-range = 0, Blocklisted runtime = 9"]`))
	noGap(t, r.c, capture.ProducerWarnings)
}

func TestValuesAboveInt64(t *testing.T) {
	data := trace([]string{
		`{"ph": "X", "cat": "kernel", "name": "ncclKernel", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"Comms Id": 18446744073709551616000, "Seq": 1.5e400, "correlation": 1}}`,
		call("cudaLaunchKernel", "1", "0", "1"),
	})
	r := readT(t, data)
	if len(r.disp) != 1 || r.disp[0].Link != capture.LinkLaunched || !r.c.Accounting.Complete() {
		t.Errorf("got %d dispatches, gaps\n%s\nwant 1, launched, and a complete capture", len(r.disp), gapText(r.c))
	}
}

func TestPrograms(t *testing.T) {
	events := []string{
		annot("ProfilerStep#550", 7, "100", "100", 1),
		annot("ProfilerStep#551", 7, "200", "100", 2),
		annot("Optimizer.step#SGD.step", 7, "150", "20", 3), // nested in step 550
		annot("ProfilerStep#550", 8, "100", "100", 9),       // the same step on another stream
		annot("forward", 9, "100", "50", 4),                 // same start, longer: outer
		annot("layer", 9, "100", "10", 5),                   // same start, shorter: inner
		kernelOn("a", 7, "0", "110", "1"),
		kernelOn("b", 7, "0", "160", "1"),
		kernelOn("a", 7, "0", "210", "1"),
		kernelOn("a", 8, "0", "120", "1"),
		kernelOn("z", 7, "0", "400", "1"),
		kernelOn("l", 9, "0", "105", "1"),
		kernelOn("f", 9, "0", "120", "1"),
	}
	r := readT(t, trace(events))
	byName := map[string]capture.Program{}
	for _, p := range r.c.Programs {
		byName[p.Name] = p
	}
	if p := byName["ProfilerStep"]; p.Instances != 2 {
		t.Errorf("got ProfilerStep %+v, want 2 instances", p)
	}
	if _, ok := byName["Optimizer.step#SGD.step"]; !ok {
		t.Errorf("got programs %v, want Optimizer.step#SGD.step among them", byName)
	}
	if _, ok := byName[unannotated]; !ok {
		t.Errorf("got programs %v, want %s among them", byName, unannotated)
	}
	got := map[string][]int64{}
	for _, d := range r.disp {
		key := r.c.Programs[d.Program].Name + "/" + r.c.Kernels[d.Kernel].Name
		got[key] = append(got[key], d.Instance)
		if r.c.Kernels[d.Kernel].Program != d.Program {
			t.Errorf("got a kernel scoped to another program, want its dispatch's")
		}
	}
	want := map[string][]int64{
		"ProfilerStep/a":            {0, 1, 0},
		"Optimizer.step#SGD.step/b": {0},
		unannotated + "/z":          {-1},
		"layer/l":                   {0},
		"forward/f":                 {0},
	}
	for k, v := range want {
		if len(got[k]) != len(v) {
			t.Errorf("%s: %v, want %v (all %v)", k, got[k], v, got)
			continue
		}
		for i := range v {
			if got[k][i] != v[i] {
				t.Errorf("%s: %v, want %v", k, got[k], v)
			}
		}
	}

	r = readOpts(t, trace(events), &format.Options{ProgramBy: "stream"})
	if len(r.c.Programs) != 3 || r.c.Programs[0].Name != "device 0 stream 7" {
		t.Errorf("by stream: got %+v, want 3 programs, the first device 0 stream 7", r.c.Programs)
	}
	r = readOpts(t, trace(events), &format.Options{ProgramBy: "none"})
	if len(r.c.Programs) != 1 || r.c.Programs[0].Name != "all" {
		t.Errorf("none: got %+v, want one program, all", r.c.Programs)
	}
	if _, err := readFrom(strings.NewReader(trace(events)), "x", &format.Options{ProgramBy: "steps"}, nil, defaultConfig); err == nil || !strings.Contains(err.Error(), "annotation, gpu-annotation, stream or none") {
		t.Errorf("bad mode: got error %v, want one naming annotation, gpu-annotation, stream or none", err)
	}
}

func TestNotJSON(t *testing.T) {
	_, err := readFrom(strings.NewReader("hrx debug serial: x"), "f.txt", &format.Options{}, nil, defaultConfig)
	if err == nil || !strings.Contains(err.Error(), "f.txt") || !strings.Contains(err.Error(), "byte 0") {
		t.Errorf("got error %v, want one naming f.txt at byte 0", err)
	}
}

func TestSniff(t *testing.T) {
	cases := map[string]format.Confidence{
		`{"schemaVersion": 1, "traceEvents": [`:     format.Certain,
		"\n  {\n  \"traceEvents\": [{\"ph\": \"X\"": format.Likely,
		`[{"ph": "X", "ts": 1, "name": "a"}`:        format.Likely,
		`{"metadata": {}, "x": 1}`:                  format.No,
		"hrx debug serial: a":                       format.No,
		"":                                          format.No,
		"\xef\xbb\xbf{\"schemaVersion\": 1, \"traceEvents\": [": format.Certain,
	}
	for head, want := range cases {
		if got := Sniff([]byte(head)); got != want {
			t.Errorf("Sniff(%q) = %v, want %v", head, got, want)
		}
	}
}

func TestAccountingCoversEveryEvent(t *testing.T) {
	data := trace([]string{
		cpuOp("a", "1", "1"),
		`{"ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 1, "cat": "ac2g", "name": "ac2g", "bp": "e"}`,
		`{"name": "process_labels", "ph": "M", "ts": 0, "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}}`,
		`{"name": "process_labels", "ph": "M", "ts": 0, "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}}`,
		`{"name": "thread_sort_index", "ph": "M", "ts": 0, "pid": 0, "tid": 7, "args": {"sort_index": 7}}`,
		`{"ph": "X", "cat": "kernel", "name": "nodur", "pid": 0, "tid": 7, "ts": 1}`,
		`17`,
		kernel("k", "1", "1", "1"),
	})
	r := readT(t, data)
	ev := r.c.Accounting.InputFor("events")
	if ev.Read != 9 {
		t.Errorf("got %d events read, want 9", ev.Read)
	}
	skipped := map[string]int64{}
	for _, s := range ev.Skipped {
		skipped[s.Reason] = s.Count
	}
	for why, n := range map[reason]int64{rsHostOp: 1, rsFlow: 1, rsMeta: 2, rsBadDevice: 1, rsNotObject: 1} {
		if skipped[reasonText[why]] != n {
			t.Errorf("%q: %d, want %d (%v)", reasonText[why], skipped[reasonText[why]], n, skipped)
		}
	}
	if q := r.c.Queues[r.disp[0].Queue]; q.Device != "GPU 0" {
		t.Errorf("got device label %q, want GPU 0", q.Device)
	}
	mustGap(t, r.c, capture.InvalidEvent)
}

func TestReportHeaderAndROCmDeviceIDs(t *testing.T) {
	s := readSample(t, "testdata/hta__amd_mi250_minitoy_train_rocm6.2.json.gz", nil)
	v, ok := field(s.c, "report", "device ids")
	if !ok || !strings.Contains(v.(string), "HSA agent indices") || !strings.Contains(v.(string), "the offset is 2") {
		t.Errorf("device ids: got %v, want HSA agent indices and the offset is 2", v)
	}
	if v, ok := field(s.c, "report", "programs"); !ok || !strings.Contains(v.(string), "gpu_user_annotation") {
		t.Errorf("programs: got %v, want gpu_user_annotation", v)
	}
	if q := s.c.Queues[0]; q.Device != "GPU 2" || q.Name != "stream 0" {
		t.Errorf("queue %+v: ids must be shown as found", q)
	}
	if v, _ := field(s.c, "format", "keys after traceEvents"); v != "traceName, displayTimeUnit, baseTimeNanoseconds" {
		t.Errorf("keys after traceEvents: got %v, want traceName, displayTimeUnit, baseTimeNanoseconds", v)
	}
	// A NVIDIA trace whose device ids are all in deviceProperties says
	// nothing about ids.
	s = readSample(t, "testdata/hta__cuda_event_sync.json.gz", nil)
	if v, ok := field(s.c, "report", "device ids"); ok {
		t.Errorf("got a device-id statement %v, want none", v)
	}
	if v, _ := field(s.c, "report", "rank"); v != "0" {
		t.Errorf("got rank %v, want 0", v)
	}
}
