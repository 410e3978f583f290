package ireeprof

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	gen "github.com/tallyprof/tally/internal/gen/ireeprofgen"
)

func TestCompleteBundle(t *testing.T) {
	data := build(good())
	res := mustRead(t, data)
	if !res.c.Accounting.Complete() {
		t.Fatalf("a finalised bundle of valid events is incomplete: %+v", res.c.Accounting.Gaps)
	}
	if len(res.c.Accounting.Gaps) != 0 {
		t.Errorf("gaps: %+v", res.c.Accounting.Gaps)
	}
	b := res.c.Accounting.InputFor("bytes")
	if b.Read != int64(len(data)) || b.Used != b.Read {
		t.Errorf("bytes: %+v", b)
	}
	want := []int64{2500, 200, 120}
	if len(res.sink.Dispatches) != len(want) {
		t.Fatalf("%d dispatches", len(res.sink.Dispatches))
	}
	for i, d := range res.sink.Dispatches {
		if dur, _ := d.Device.Duration(); dur != want[i] {
			t.Errorf("dispatch %d: %d ns, want %d", i, dur, want[i])
		}
	}
	// Begin is on the host CPU timeline: first sample + 100 ticks × 10 ns.
	if d := res.sink.Dispatches[0]; d.Device.Begin != ns0+1000 {
		t.Errorf("begin %d, want %d", d.Device.Begin, ns0+1000)
	}
	c := res.c.Clock
	if c.Domain != fittedDomain || c.Unit != "ns" || !c.Timed ||
		c.Description != "ns: device ticks converted by a per-session fit over 2 clock samples (10 ns/tick); durations are device execution times" {
		t.Errorf("clock %+v", c)
	}
	if got := res.field("report", "clock"); got != "device ticks converted to ns by a fit over 2 clock samples: 10 ns/tick" {
		t.Errorf("report clock line %v", got)
	}
	if len(res.c.Programs) != 2 || res.c.Programs[0].Name != "command buffer 1" || res.c.Programs[1].Name != "direct dispatches" {
		t.Errorf("programs %+v", res.c.Programs)
	}
	if res.c.Programs[0].Clock != nil {
		t.Errorf("program repeats the capture clock")
	}
}

func TestTruncatedInput(t *testing.T) {
	res := mustRead(t, sampleBytes(t, "cut_mid_record"))
	g := res.gap(capture.TruncatedInput)
	if g == nil || g.Count != 1 || res.c.Accounting.Complete() {
		t.Fatalf("cut file: truncated_input %+v", g)
	}
	if at, _ := g.Figure("cut_at_byte"); at != 2887 {
		t.Errorf("cut at %d, want 2887", at)
	}
	if n, _ := g.Figure("bytes_not_parsed"); n != 558 {
		t.Errorf("bytes not parsed %d, want 558", n)
	}
	if !strings.Contains(res.items(capture.TruncatedInput), "608 bytes long, 558 present, 50 missing") {
		t.Errorf("item: %s", res.items(capture.TruncatedInput))
	}
	if res.lost("bytes", "cut record at end of file", capture.TruncatedInput) != 558 || res.lost("records", "cut at end of file", capture.TruncatedInput) != 1 {
		t.Errorf("accounting %+v", res.c.Accounting.Input)
	}
	if len(res.sink.Dispatches) != 3 {
		t.Errorf("records before the cut not all used: %d dispatches", len(res.sink.Dispatches))
	}
	// Negative arm: the finalised file has no cut.
	if mustRead(t, sampleBytes(t, "dispatch_mode")).gap(capture.TruncatedInput) != nil {
		t.Error("dispatch_mode reported truncated")
	}
}

func TestFileShorterThanHeaderSays(t *testing.T) {
	full := sampleBytes(t, "dispatch_mode")
	// Cut on the record boundary before the closing clock sample: every
	// record left is whole, but file_length says more.
	res := mustRead(t, full[:3495])
	if res.c.Accounting.Complete() || !strings.Contains(res.items(capture.TruncatedInput), "file_length says the bundle is 3878 bytes, but the file has 3495") {
		t.Errorf("truncated_input: %s", res.items(capture.TruncatedInput))
	}
}

func TestHeaderCut(t *testing.T) {
	res := mustRead(t, sampleBytes(t, "smoke")[:10])
	if res.gap(capture.TruncatedInput) == nil || res.gap(capture.EmptyCapture) == nil || res.c.Accounting.Complete() {
		t.Errorf("header cut: %+v", res.c.Accounting.Gaps)
	}
	if got := res.lost("bytes", "cut file header", capture.TruncatedInput); got != 10 {
		t.Errorf("cut header: %d bytes lost to truncated_input, want 10", got)
	}
}

func TestUnfinalized(t *testing.T) {
	res := mustRead(t, sampleBytes(t, "unfinalized"))
	g := res.gap(capture.UnfinalizedCapture)
	if g == nil || g.Count != 1 || !strings.Contains(g.Items[0].What, "session 1 (amdgpu, id 1) began and never ended") {
		t.Fatalf("unfinalized_capture %+v", g)
	}
	if !strings.Contains(g.Summary, "number is unknown") {
		t.Errorf("summary %q", g.Summary)
	}
	if res.c.Clock.Unit != "ticks" || res.c.Clock.Domain != "device-ticks" {
		t.Errorf("no fit must mean ticks: %+v", res.c.Clock)
	}
	if n := res.gap(NoClockFit); n == nil || !n.Note {
		t.Errorf("no_clock_fit note %+v", n)
	}
	if res.gap(UnendedSession) != nil {
		t.Error("unfinalised file also reported unended_session")
	}
	if mustRead(t, sampleBytes(t, "dispatch_mode")).gap(capture.UnfinalizedCapture) != nil {
		t.Error("dispatch_mode reported unfinalized")
	}
	// Without the session end, a built bundle is unfinalised too.
	sp := good()
	sp.noEnd = true
	if mustRead(t, build(sp)).gap(capture.UnfinalizedCapture) == nil {
		t.Error("built bundle without end not unfinalised")
	}
}

func TestDroppedRecords(t *testing.T) {
	sp := good()
	h := gen.OnQueue(1, 0, 0)
	h.StreamID = 0
	h.ChunkFlags, h.Dropped = 1, 5
	sp.dispatchHeader = &h
	b := gen.New()
	sp.noEnd = true
	sp.session(b)
	lossOnly := gen.OnQueue(1, 0, 0)
	lossOnly.ChunkFlags = 1
	b.Chunk(lossOnly, "memory-events", "amdgpu.memory")
	b.End(1, "amdgpu", 0)
	res := mustRead(t, b.Bytes())
	g := res.gap(capture.DroppedRecords)
	if g == nil || g.Count != 2 || res.c.Accounting.Complete() {
		t.Fatalf("dropped_records %+v", g)
	}
	if n, _ := g.Figure("dropped_records"); n != 5 {
		t.Errorf("dropped %d", n)
	}
	items := res.items(capture.DroppedRecords)
	if !strings.Contains(items, "dispatch-events: 1 chunk flagged truncated, 5 records dropped") || !strings.Contains(items, "memory-events: 1 chunk flagged truncated, number of dropped records unknown") {
		t.Errorf("items %s", items)
	}
	if v := res.field("content types", "dispatch-events"); v != "1 chunk, 3 records, 1 truncated (5 records dropped)" {
		t.Errorf("inventory %v", v)
	}
	if mustRead(t, build(good())).gap(capture.DroppedRecords) != nil {
		t.Error("dropped_records without losses")
	}
}

func TestEmptyCapture(t *testing.T) {
	res := mustRead(t, sampleBytes(t, "no_dispatch_events"))
	g := res.gap(capture.EmptyCapture)
	if g == nil || !strings.Contains(g.Items[0].What, "dispatch events requested, none recorded") || !strings.Contains(g.Summary, "PR #677") {
		t.Fatalf("empty_capture %+v", g)
	}
	// A session that did not end: cannot tell.
	sp := good()
	sp.events, sp.noEnd = nil, true
	res = mustRead(t, build(sp))
	if g := res.gap(capture.EmptyCapture); g == nil || !strings.Contains(g.Items[0].What, "cannot tell") || !strings.Contains(g.Summary, "cannot tell") {
		t.Errorf("unended empty %+v", g)
	}
	// No clock samples: not requested.
	sp = good()
	sp.events, sp.noClock = nil, true
	res = mustRead(t, build(sp))
	if g := res.gap(capture.EmptyCapture); g == nil || !strings.Contains(g.Summary, "no sign they were requested") {
		t.Errorf("not requested %+v", g)
	}
	if mustRead(t, sampleBytes(t, "dispatch_mode")).gap(capture.EmptyCapture) != nil {
		t.Error("dispatch_mode reported empty")
	}
}

// smoke_no_dispatch holds a host (CPU) dispatch but no device dispatch event:
// it is not empty (a dispatch with a name and a time is in the tables), but
// the missing device events are a gap.
func TestSmokeNoDispatch(t *testing.T) {
	res := mustRead(t, sampleBytes(t, "smoke_no_dispatch"))
	if res.gap(capture.EmptyCapture) != nil {
		t.Error("a capture with a host dispatch reported empty")
	}
	if len(res.sink.Dispatches) != 1 || res.programName(res.sink.Dispatches[0]) != "command buffer 7 (host execution)" {
		t.Fatalf("dispatches %+v", res.sink.Dispatches)
	}
	g := res.gap(MissingDispatchEvents)
	if g == nil || res.c.Accounting.Complete() {
		t.Fatalf("missing_dispatch_events %+v", g)
	}
	if mustRead(t, sampleBytes(t, "smoke")).gap(MissingDispatchEvents) != nil {
		t.Error("smoke reported missing dispatch events")
	}
}

func TestInvalidEvent(t *testing.T) {
	sp := good()
	sp.events = append(sp.events,
		gen.DispatchEvent{EventID: 4, Executable: 1, Function: 0, Start: tick0 + 900, End: tick0 + 800}, // reversed
		gen.DispatchEvent{EventID: 5, Executable: 1, Function: 1, Start: 0, End: tick0 + 800})           // zero start
	res := mustRead(t, build(sp))
	if res.count(capture.InvalidEvent) != 2 || len(res.sink.Dispatches) != 3 {
		t.Fatalf("invalid %d, dispatches %d", res.count(capture.InvalidEvent), len(res.sink.Dispatches))
	}
	items := res.items(capture.InvalidEvent)
	if !strings.Contains(items, "event 4 (submission 0): start tick 1900, end tick 1800") || !strings.Contains(items, "event 5 (submission 0): start tick 0") {
		t.Errorf("items %s", items)
	}
	if res.lost("dispatch events", "invalid (zero or reversed ticks)", capture.InvalidEvent) != 2 {
		t.Errorf("accounting %+v", res.c.Accounting.Input)
	}
	if mustRead(t, build(good())).gap(capture.InvalidEvent) != nil {
		t.Error("invalid_event without invalid events")
	}
}

func TestUnresolvedName(t *testing.T) {
	sp := good()
	sp.names = []string{"alpha", ""} // function 1 has an empty name
	sp.events = append(sp.events, gen.DispatchEvent{EventID: 9, CommandBuffer: 1, Executable: 9, Function: 3, Start: tick0 + 600, End: tick0 + 700})
	res := mustRead(t, build(sp))
	if n := res.count(capture.UnresolvedName); n != 2 {
		t.Fatalf("unresolved %d: %s", n, res.items(capture.UnresolvedName))
	}
	names := map[string]bool{}
	for _, k := range res.c.Kernels {
		names[k.Name] = k.Resolved
	}
	if r, ok := names["device0/executable9#3"]; !ok || r {
		t.Errorf("anonymous label missing or resolved: %v", names)
	}
	if r, ok := names["device0/executable1#1"]; !ok || r {
		t.Errorf("empty name not anonymous: %v", names)
	}
	g := res.gap(capture.UnresolvedName)
	if n, _ := g.Figure("dispatches"); n != 2 { // one dispatch of each anonymous kernel
		t.Errorf("dispatches figure %d", n)
	}
	if mustRead(t, sampleBytes(t, "dispatch_mode")).gap(capture.UnresolvedName) != nil {
		t.Error("dispatch_mode reported unresolved names")
	}
}

func TestStaleBytes(t *testing.T) {
	clean := build(good())
	data := append(append([]byte{}, clean...), make([]byte, 100)...)
	res := mustRead(t, data)
	g := res.gap(capture.StaleBytes)
	if g == nil || res.c.Accounting.Complete() {
		t.Fatalf("stale_bytes %+v", g)
	}
	if n, _ := g.Figure("bytes"); n != 100 || res.lost("bytes", "beyond file_length", capture.StaleBytes) != 100 {
		t.Errorf("stale %d, skipped %d", n, res.skipped("bytes", "beyond file_length"))
	}
	if len(res.sink.Dispatches) != 3 {
		t.Errorf("dispatches %d", len(res.sink.Dispatches))
	}
	if mustRead(t, clean).gap(capture.StaleBytes) != nil {
		t.Error("stale_bytes without stale bytes")
	}
	// A session still running after file_length was patched: its records
	// are past the logical end, and the item says they hold dispatches.
	b := gen.New()
	good().session(b)
	sp := good()
	sp.id, sp.noEnd = 2, true
	sp.session(b)
	res = mustRead(t, b.Bytes())
	if !strings.Contains(res.items(capture.StaleBytes), "1 dispatch-events chunk among them") {
		t.Errorf("stale item: %s", res.items(capture.StaleBytes))
	}
}

func TestFailedSession(t *testing.T) {
	sp := good()
	sp.status = 8
	res := mustRead(t, build(sp))
	g := res.gap(capture.FailedSession)
	if g == nil || !strings.Contains(g.Items[0].What, "ended with status 8 RESOURCE_EXHAUSTED") {
		t.Fatalf("failed_session %+v", g)
	}
	if len(res.c.Programs[0].Notes) == 0 {
		t.Error("program note missing")
	}
	if mustRead(t, build(good())).gap(capture.FailedSession) != nil {
		t.Error("failed_session on an OK end")
	}
}

func TestUnendedSession(t *testing.T) {
	// Session 2 begins and writes its dispatches before session 1 ends (so
	// file_length covers them), and never ends.
	b := gen.New()
	b.Begin(1, "amdgpu")
	two := good()
	two.id, two.noEnd = 2, true
	two.session(b)
	b.End(1, "amdgpu", 0)
	res := mustRead(t, b.Bytes())
	g := res.gap(UnendedSession)
	if g == nil || !strings.Contains(g.Items[0].What, "session 2 (amdgpu, id 2) began and never ended") {
		t.Fatalf("unended_session %+v", res.c.Accounting.Gaps)
	}
	if res.gap(capture.UnfinalizedCapture) != nil {
		t.Error("finalised file reported unfinalised")
	}
	if mustRead(t, build(good())).gap(UnendedSession) != nil {
		t.Error("unended_session on an ended session")
	}
}

// TestMultiSession: two sessions that share session id 1 and device 0 (two
// GPUs, one shared sink) with different clock rates are kept apart: each has
// its own fit and its own function names.
func TestMultiSession(t *testing.T) {
	one := spec{id: 1, nsPerTick: 10, events: []gen.DispatchEvent{ev(1, 1, 0, tick0+100, 100)}}
	two := spec{id: 1, nsPerTick: 4, names: []string{"gamma", "delta"}, events: []gen.DispatchEvent{ev(1, 1, 0, tick0+100, 100)}}
	res := mustRead(t, build(one, two))
	if !res.c.Accounting.Complete() {
		t.Fatalf("gaps %+v", res.c.Accounting.Gaps)
	}
	if len(res.sink.Dispatches) != 2 {
		t.Fatalf("%d dispatches", len(res.sink.Dispatches))
	}
	want := []struct {
		prog, kernel string
		ns           int64
		rate         string
	}{{"session 1: command buffer 1", "alpha", 1000, "10 ns/tick"}, {"session 2: command buffer 1", "gamma", 400, "4 ns/tick"}}
	for i, d := range res.sink.Dispatches {
		dur, _ := d.Device.Duration()
		clk := res.c.ProgramClock(d.Program)
		if res.programName(d) != want[i].prog || res.kernelName(d) != want[i].kernel || dur != want[i].ns || !strings.Contains(clk.Description, want[i].rate) {
			t.Errorf("dispatch %d: %s %s %d ns (%s), want %+v", i, res.programName(d), res.kernelName(d), dur, clk.Description, want[i])
		}
	}
	if res.field("report", "clock (session 1, device 0)") == nil || res.field("report", "clock (session 2, device 0)") == nil {
		t.Errorf("report lines: %+v", res.c.Inventory)
	}
	if v := res.field("file", "sessions"); !strings.Contains(v.(string), "repeated session ids: 1") {
		t.Errorf("sessions field %v", v)
	}
	if res.c.Clock.Domain != fittedDomain || res.c.Clock.Unit != "ns" {
		t.Errorf("capture clock %+v", res.c.Clock)
	}
}

// Two sessions with one id open at once: attribution is a guess, and said so.
func TestAmbiguousSession(t *testing.T) {
	b := gen.New()
	b.Begin(1, "amdgpu")
	good().session(b) // begins a second id-1 session inside the first
	b.End(1, "amdgpu", 0)
	res := mustRead(t, b.Bytes())
	if g := res.gap(AmbiguousSession); g == nil || res.c.Accounting.Complete() {
		t.Fatalf("ambiguous_session %+v", res.c.Accounting.Gaps)
	}
	// The rule: records go to the most recently begun open session.
	if len(res.sink.Dispatches) != 3 || res.programName(res.sink.Dispatches[0]) != "session 2: command buffer 1" {
		t.Errorf("attribution: %+v", res.c.Programs)
	}
	if mustRead(t, build(good(), good())).gap(AmbiguousSession) != nil {
		t.Error("sequential sessions reported ambiguous")
	}
}

func TestExecutableExports(t *testing.T) {
	sp := good()
	sp.funcCT = "executable-exports"
	res := mustRead(t, build(sp))
	if res.gap(capture.UnresolvedName) != nil || res.kernelName(res.sink.Dispatches[0]) != "alpha" {
		t.Fatalf("exports not read: %+v", res.c.Kernels)
	}
	if v := res.field("session 1 (amdgpu, id 1)", "function metadata"); v != "executable-exports (older name): 2 functions" {
		t.Errorf("inventory %v", v)
	}
	if v := mustRead(t, build(good())).field("session 1 (amdgpu, id 1)", "function metadata"); v != "executable-functions: 2 functions" {
		t.Errorf("inventory %v", v)
	}
}

// The four bytes at 76..79 of each record header are stack garbage: any
// value must give the same result.
func TestPaddingIgnored(t *testing.T) {
	orig := sampleBytes(t, "dispatch_mode")
	data := append([]byte{}, orig...)
	for off := uint64(24); off+104 <= uint64(len(data)); {
		copy(data[off+76:off+80], []byte{0xff, 0x00, 0xde, 0xad})
		off += le.Uint64(data[off:])
	}
	a, b := mustRead(t, orig), mustRead(t, data)
	if len(a.rows) != len(b.rows) || len(a.sink.Dispatches) != len(b.sink.Dispatches) || len(a.c.Accounting.Gaps) != len(b.c.Accounting.Gaps) {
		t.Fatal("padding bytes changed the result")
	}
	for i := range a.rows {
		if a.rows[i] != b.rows[i] {
			t.Errorf("row %d differs", i)
		}
	}
}

func TestUnknownQueue(t *testing.T) {
	sp := good()
	sp.noQueues = true
	res := mustRead(t, build(sp))
	g := res.gap(UnknownQueue)
	if g == nil || len(res.sink.Dispatches) != 3 {
		t.Fatalf("unknown_queue %+v", g)
	}
	if n, _ := g.Figure("events"); n != 3 {
		t.Errorf("events %d", n)
	}
	if mustRead(t, build(good())).gap(UnknownQueue) != nil {
		t.Error("unknown_queue with a queue record")
	}
}

func TestRecordsOutsideSession(t *testing.T) {
	b := gen.New()
	b.Chunk(gen.Meta(5), "devices", "x", gen.Device(0, 1)) // before any begin
	good().session(b)
	res := mustRead(t, b.Bytes())
	if res.count(RecordsOutsideSession) != 1 || res.lost("records", "outside any session", RecordsOutsideSession) != 1 || res.lost("bytes", "outside any session", RecordsOutsideSession) == 0 {
		t.Fatalf("records_outside_session: %+v", res.c.Accounting)
	}
	if len(res.sink.Dispatches) != 3 {
		t.Error("session after the stray chunk not read")
	}
}

func TestMalformedRecord(t *testing.T) {
	// A record with reserved flags set is skipped; the next one is read.
	b := gen.New()
	b.Begin(1, "amdgpu")
	b.Record(gen.Header{Type: gen.Chunk, SessionID: 1, Flags: 1}, gen.ContentPrefix+"devices", "", gen.Device(0, 1))
	sp := good()
	sp.session(b)
	b.End(1, "amdgpu", 0)
	res := mustRead(t, b.Bytes())
	if res.count(MalformedRecord) != 1 || res.lost("records", "malformed record", MalformedRecord) != 1 || len(res.sink.Dispatches) != 3 {
		t.Fatalf("malformed: %s / %+v", res.items(MalformedRecord), res.c.Accounting.Input)
	}
	// record_length below the header size: the walk stops there.
	b = gen.New()
	good().session(b)
	n := b.Len()
	b.Record(gen.Header{Type: gen.Chunk, SessionID: 1, RecordLength: 50}, gen.ContentPrefix+"devices", "", nil)
	b.SetFileLength(uint64(b.Len()))
	res = mustRead(t, b.Bytes())
	if !strings.Contains(res.items(MalformedRecord), "shorter than the 104-byte record header") || res.lost("bytes", "malformed record (rest of file not parsed)", MalformedRecord) != int64(b.Len()-n) {
		t.Errorf("short record: %s", res.items(MalformedRecord))
	}
}

func TestBadTypedRecord(t *testing.T) {
	sp := good()
	bad := gen.Dispatch(ev(2, 1, 1, tick0+400, 20))
	le.PutUint32(bad, 50) // shorter than a dispatch event
	b := gen.New()
	sp.events = nil
	sp.noEnd = true
	sp.session(b)
	h := gen.OnQueue(1, 0, 0)
	h.StreamID = 0
	b.Chunk(h, "dispatch-events", "amdgpu.dispatch", gen.Dispatch(ev(1, 1, 0, tick0+100, 250)), bad, gen.Dispatch(ev(3, 0, 0, tick0+500, 12)))
	b.End(1, "amdgpu", 0)
	res := mustRead(t, b.Bytes())
	if len(res.sink.Dispatches) != 1 || !strings.Contains(res.items(MalformedRecord), "typed record 1: record_length 50") {
		t.Fatalf("bad typed record: %d dispatches, %s", len(res.sink.Dispatches), res.items(MalformedRecord))
	}
	if res.lost("bytes", "malformed typed record (rest of its chunk)", MalformedRecord) != 176 {
		t.Errorf("accounting %+v", res.c.Accounting.Input[0])
	}
}

func TestUnknownRecord(t *testing.T) {
	b := gen.New()
	good().session(b)
	b.Begin(2, "amdgpu")
	b.Record(gen.Header{Type: gen.Chunk, SessionID: 2}, gen.ContentPrefix+"frobnications", "", []byte{1, 2, 3})
	b.Record(gen.Header{Type: 9, SessionID: 2}, gen.ContentPrefix+"session", "", nil)
	b.End(2, "amdgpu", 0)
	res := mustRead(t, b.Bytes())
	items := res.items(UnknownRecord)
	if res.count(UnknownRecord) != 2 || !strings.Contains(items, "frobnications") || !strings.Contains(items, "record type 9") {
		t.Fatalf("unknown_record: %s", items)
	}
	// Either may have held dispatches: lost, to unknown_record.
	if res.lost("records", "unknown content type", UnknownRecord) != 1 || res.lost("records", "unknown record type", UnknownRecord) != 1 {
		t.Errorf("unknown records not lost to unknown_record: %+v", res.c.Accounting.Input)
	}
	if mustRead(t, build(good())).gap(UnknownRecord) != nil {
		t.Error("unknown_record on known records")
	}
}

func TestNoClockFitUnaligned(t *testing.T) {
	b := gen.New()
	sp := good()
	sp.noEnd = true
	sp.session(b)
	b.Chunk(gen.Meta(1), "clock-correlations", "amdgpu", gen.ClockFlags(gen.ClockDeviceTick|gen.ClockHostCPU|gen.ClockTickUnaligned, 0, 3, tick0+2*span, ns0+2*span*10))
	b.End(1, "amdgpu", 0)
	res := mustRead(t, b.Bytes())
	if res.c.Clock.Unit != "ticks" || !strings.Contains(res.items(NoClockFit), "DEVICE_TICK_UNALIGNED") {
		t.Fatalf("clock %+v, %s", res.c.Clock, res.items(NoClockFit))
	}
	if d, _ := res.sink.Dispatches[0].Device.Duration(); d != 250 {
		t.Errorf("duration %d ticks", d)
	}
	if !res.c.Accounting.Complete() {
		t.Error("no_clock_fit must be a note")
	}
}

func TestClockExtrapolated(t *testing.T) {
	sp := good()
	sp.events = append(sp.events, ev(7, 1, 0, tick0+span+10, 5)) // after the last sample
	res := mustRead(t, build(sp))
	g := res.gap(ClockExtrapolated)
	if g == nil || g.Count != 1 || !g.Note {
		t.Fatalf("clock_extrapolated %+v", g)
	}
}

func TestHeaderErrors(t *testing.T) {
	data := append([]byte{}, sampleBytes(t, "smoke")...)
	data[4] = 2
	if _, err := readBundle(t, data); err == nil || !strings.Contains(err.Error(), "test.ireeprof: byte 4: bundle format version 2") {
		t.Errorf("version error: %v", err)
	}
	data = append([]byte{}, sampleBytes(t, "smoke")...)
	data[0] = 'X'
	if _, err := readBundle(t, data); err == nil || !strings.Contains(err.Error(), "byte 0: not an IREE HAL profile bundle") {
		t.Errorf("magic error: %v", err)
	}
}
