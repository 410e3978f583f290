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
		t.Fatalf("a finalised bundle of valid events: got incomplete, gaps %+v; want complete", res.c.Accounting.Gaps)
	}
	if len(res.c.Accounting.Gaps) != 0 {
		t.Errorf("got gaps %+v, want none", res.c.Accounting.Gaps)
	}
	b := res.c.Accounting.InputFor("bytes")
	if b.Read != int64(len(data)) || b.Used != b.Read {
		t.Errorf("got bytes %+v, want all %d read and used", b, len(data))
	}
	want := []int64{2500, 200, 120}
	if len(res.sink.Dispatches) != len(want) {
		t.Fatalf("got %d dispatches, want %d", len(res.sink.Dispatches), len(want))
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
		t.Errorf("got clock %+v, want the fitted ns clock of 2 samples at 10 ns/tick", c)
	}
	if got := res.field("report", "clock"); got != "device ticks converted to ns by a fit over 2 clock samples: 10 ns/tick" {
		t.Errorf("got report clock line %v, want the fit over 2 clock samples at 10 ns/tick", got)
	}
	if len(res.c.Programs) != 2 || res.c.Programs[0].Name != "command buffer 1" || res.c.Programs[1].Name != "direct dispatches" {
		t.Errorf("got programs %+v, want command buffer 1 and direct dispatches", res.c.Programs)
	}
	if res.c.Programs[0].Clock != nil {
		t.Errorf("got program clock %+v, want nil (no repeat of the capture clock)", res.c.Programs[0].Clock)
	}
}

func TestTruncatedInput(t *testing.T) {
	res := mustRead(t, sampleBytes(t, "cut_mid_record"))
	g := res.gap(capture.TruncatedInput)
	if g == nil || g.Count != 1 || res.c.Accounting.Complete() {
		t.Fatalf("cut file: got truncated_input %+v, want one and incomplete", g)
	}
	if at, _ := g.Figure("cut_at_byte"); at != 2887 {
		t.Errorf("cut at %d, want 2887", at)
	}
	if n, _ := g.Figure("bytes_not_parsed"); n != 558 {
		t.Errorf("bytes not parsed %d, want 558", n)
	}
	if !strings.Contains(res.items(capture.TruncatedInput), "608 bytes long, 558 present, 50 missing") {
		t.Errorf("got item %s, want it to say 608 bytes long, 558 present, 50 missing", res.items(capture.TruncatedInput))
	}
	if res.lost("bytes", "cut record at end of file", capture.TruncatedInput) != 558 || res.lost("records", "cut at end of file", capture.TruncatedInput) != 1 {
		t.Errorf("got accounting %+v, want 558 bytes and 1 record lost to truncated_input", res.c.Accounting.Input)
	}
	if len(res.sink.Dispatches) != 3 {
		t.Errorf("records before the cut: got %d dispatches, want 3", len(res.sink.Dispatches))
	}
	// Negative arm: the finalised file has no cut.
	if mustRead(t, sampleBytes(t, "dispatch_mode")).gap(capture.TruncatedInput) != nil {
		t.Error("dispatch_mode: got truncated, want no truncated_input gap")
	}
}

func TestFileShorterThanHeaderSays(t *testing.T) {
	full := sampleBytes(t, "dispatch_mode")
	// Cut on the record boundary before the closing clock sample: every
	// record left is whole, but file_length says more.
	res := mustRead(t, full[:3495])
	if res.c.Accounting.Complete() || !strings.Contains(res.items(capture.TruncatedInput), "file_length says the bundle is 3878 bytes, but the file has 3495") {
		t.Errorf("got truncated_input %s, want incomplete and file_length says 3878 bytes, the file has 3495", res.items(capture.TruncatedInput))
	}
}

func TestHeaderCut(t *testing.T) {
	res := mustRead(t, sampleBytes(t, "smoke")[:10])
	if res.gap(capture.TruncatedInput) == nil || res.gap(capture.EmptyCapture) == nil || res.c.Accounting.Complete() {
		t.Errorf("header cut: got gaps %+v, want truncated_input, empty_capture and incomplete", res.c.Accounting.Gaps)
	}
	if got := res.lost("bytes", "cut file header", capture.TruncatedInput); got != 10 {
		t.Errorf("cut header: %d bytes lost to truncated_input, want 10", got)
	}
}

func TestUnfinalized(t *testing.T) {
	res := mustRead(t, sampleBytes(t, "unfinalized"))
	g := res.gap(capture.UnfinalizedCapture)
	if g == nil || g.Count != 1 || !strings.Contains(g.Items[0].What, "session 1 (amdgpu, id 1) began and never ended") {
		t.Fatalf("got unfinalized_capture %+v, want one saying session 1 (amdgpu, id 1) began and never ended", g)
	}
	if !strings.Contains(g.Summary, "number is unknown") {
		t.Errorf("got summary %q, want it to say the number is unknown", g.Summary)
	}
	if res.c.Clock.Unit != "ticks" || res.c.Clock.Domain != "device-ticks" {
		t.Errorf("no fit must mean ticks: %+v", res.c.Clock)
	}
	if n := res.gap(NoClockFit); n == nil || !n.Note {
		t.Errorf("got no_clock_fit %+v, want a note", n)
	}
	if res.gap(UnendedSession) != nil {
		t.Error("unfinalised file: got unended_session too, want only unfinalized_capture")
	}
	if mustRead(t, sampleBytes(t, "dispatch_mode")).gap(capture.UnfinalizedCapture) != nil {
		t.Error("dispatch_mode: got unfinalized, want no unfinalized_capture gap")
	}
	// Without the session end, a built bundle is unfinalised too.
	sp := good()
	sp.noEnd = true
	if mustRead(t, build(sp)).gap(capture.UnfinalizedCapture) == nil {
		t.Error("built bundle without end: got no unfinalized_capture gap, want one")
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
		t.Fatalf("got dropped_records %+v, want 2 and incomplete", g)
	}
	if n, _ := g.Figure("dropped_records"); n != 5 {
		t.Errorf("got dropped %d, want 5", n)
	}
	items := res.items(capture.DroppedRecords)
	if !strings.Contains(items, "dispatch-events: 1 chunk flagged truncated, 5 records dropped") || !strings.Contains(items, "memory-events: 1 chunk flagged truncated, number of dropped records unknown") {
		t.Errorf("got items %s, want 5 dispatch-events records dropped and an unknown number of memory-events", items)
	}
	if v := res.field("content types", "dispatch-events"); v != "1 chunk, 3 records, 1 truncated (5 records dropped)" {
		t.Errorf("got inventory %v, want 1 chunk, 3 records, 1 truncated (5 records dropped)", v)
	}
	if mustRead(t, build(good())).gap(capture.DroppedRecords) != nil {
		t.Error("got dropped_records without losses, want none")
	}
}

func TestEmptyCapture(t *testing.T) {
	res := mustRead(t, sampleBytes(t, "no_dispatch_events"))
	g := res.gap(capture.EmptyCapture)
	if g == nil || !strings.Contains(g.Items[0].What, "dispatch events requested, none recorded") || !strings.Contains(g.Summary, "PR #677") {
		t.Fatalf("got empty_capture %+v, want dispatch events requested, none recorded, naming PR #677", g)
	}
	// A session that did not end: cannot tell.
	sp := good()
	sp.events, sp.noEnd = nil, true
	res = mustRead(t, build(sp))
	if g := res.gap(capture.EmptyCapture); g == nil || !strings.Contains(g.Items[0].What, "cannot tell") || !strings.Contains(g.Summary, "cannot tell") {
		t.Errorf("unended empty: got %+v, want an empty_capture that cannot tell", g)
	}
	// No clock samples: not requested.
	sp = good()
	sp.events, sp.noClock = nil, true
	res = mustRead(t, build(sp))
	if g := res.gap(capture.EmptyCapture); g == nil || !strings.Contains(g.Summary, "no sign they were requested") {
		t.Errorf("not requested: got %+v, want an empty_capture saying no sign they were requested", g)
	}
	if mustRead(t, sampleBytes(t, "dispatch_mode")).gap(capture.EmptyCapture) != nil {
		t.Error("dispatch_mode: got empty_capture, want none")
	}
}

// smoke_no_dispatch holds a host (CPU) dispatch but no device dispatch event:
// it is not empty (a dispatch with a name and a time is in the tables), but
// the missing device events are a gap.
func TestSmokeNoDispatch(t *testing.T) {
	res := mustRead(t, sampleBytes(t, "smoke_no_dispatch"))
	if res.gap(capture.EmptyCapture) != nil {
		t.Error("a capture with a host dispatch: got empty_capture, want none")
	}
	if len(res.sink.Dispatches) != 1 || res.programName(res.sink.Dispatches[0]) != "command buffer 7 (host execution)" {
		t.Fatalf("got dispatches %+v, want one in command buffer 7 (host execution)", res.sink.Dispatches)
	}
	g := res.gap(MissingDispatchEvents)
	if g == nil || res.c.Accounting.Complete() {
		t.Fatalf("got missing_dispatch_events %+v, want one and incomplete", g)
	}
	if mustRead(t, sampleBytes(t, "smoke")).gap(MissingDispatchEvents) != nil {
		t.Error("smoke: got missing_dispatch_events, want none")
	}
}

func TestInvalidEvent(t *testing.T) {
	sp := good()
	sp.events = append(sp.events,
		gen.DispatchEvent{EventID: 4, Executable: 1, Function: 0, Start: tick0 + 900, End: tick0 + 800}, // reversed
		gen.DispatchEvent{EventID: 5, Executable: 1, Function: 1, Start: 0, End: tick0 + 800})           // zero start
	res := mustRead(t, build(sp))
	if res.count(capture.InvalidEvent) != 2 || len(res.sink.Dispatches) != 3 {
		t.Fatalf("got invalid %d, dispatches %d; want 2 and 3", res.count(capture.InvalidEvent), len(res.sink.Dispatches))
	}
	items := res.items(capture.InvalidEvent)
	if !strings.Contains(items, "event 4 (submission 0): start tick 1900, end tick 1800") || !strings.Contains(items, "event 5 (submission 0): start tick 0") {
		t.Errorf("got items %s, want events 4 (ticks 1900, 1800) and 5 (start tick 0)", items)
	}
	if res.lost("dispatch events", "invalid (zero or reversed ticks)", capture.InvalidEvent) != 2 {
		t.Errorf("got accounting %+v, want 2 dispatch events lost as invalid", res.c.Accounting.Input)
	}
	if mustRead(t, build(good())).gap(capture.InvalidEvent) != nil {
		t.Error("got invalid_event without invalid events, want none")
	}
}

func TestUnresolvedName(t *testing.T) {
	sp := good()
	sp.names = []string{"alpha", ""} // function 1 has an empty name
	sp.events = append(sp.events, gen.DispatchEvent{EventID: 9, CommandBuffer: 1, Executable: 9, Function: 3, Start: tick0 + 600, End: tick0 + 700})
	res := mustRead(t, build(sp))
	if n := res.count(capture.UnresolvedName); n != 2 {
		t.Fatalf("got unresolved %d: %s; want 2", n, res.items(capture.UnresolvedName))
	}
	names := map[string]bool{}
	for _, k := range res.c.Kernels {
		names[k.Name] = k.Resolved
	}
	if r, ok := names["device0/executable9#3"]; !ok || r {
		t.Errorf("got %v, want device0/executable9#3 present and unresolved", names)
	}
	if r, ok := names["device0/executable1#1"]; !ok || r {
		t.Errorf("empty name: got %v, want device0/executable1#1 present and unresolved", names)
	}
	g := res.gap(capture.UnresolvedName)
	if n, _ := g.Figure("dispatches"); n != 2 { // one dispatch of each anonymous kernel
		t.Errorf("got dispatches figure %d, want 2", n)
	}
	if mustRead(t, sampleBytes(t, "dispatch_mode")).gap(capture.UnresolvedName) != nil {
		t.Error("dispatch_mode: got unresolved names, want none")
	}
}

func TestStaleBytes(t *testing.T) {
	clean := build(good())
	data := append(append([]byte{}, clean...), make([]byte, 100)...)
	res := mustRead(t, data)
	g := res.gap(capture.StaleBytes)
	if g == nil || res.c.Accounting.Complete() {
		t.Fatalf("got stale_bytes %+v, want one and incomplete", g)
	}
	if n, _ := g.Figure("bytes"); n != 100 || res.lost("bytes", "beyond file_length", capture.StaleBytes) != 100 {
		t.Errorf("got stale %d, skipped %d; want 100 and 100", n, res.skipped("bytes", "beyond file_length"))
	}
	if len(res.sink.Dispatches) != 3 {
		t.Errorf("got %d dispatches, want 3", len(res.sink.Dispatches))
	}
	if mustRead(t, clean).gap(capture.StaleBytes) != nil {
		t.Error("got stale_bytes without stale bytes, want none")
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
		t.Errorf("got stale item %s, want 1 dispatch-events chunk among them", res.items(capture.StaleBytes))
	}
}

func TestFailedSession(t *testing.T) {
	sp := good()
	sp.status = 8
	res := mustRead(t, build(sp))
	g := res.gap(capture.FailedSession)
	if g == nil || !strings.Contains(g.Items[0].What, "ended with status 8 RESOURCE_EXHAUSTED") {
		t.Fatalf("got failed_session %+v, want one ended with status 8 RESOURCE_EXHAUSTED", g)
	}
	if len(res.c.Programs[0].Notes) == 0 {
		t.Error("got no program note, want one")
	}
	if mustRead(t, build(good())).gap(capture.FailedSession) != nil {
		t.Error("got failed_session on an OK end, want none")
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
		t.Fatalf("got gaps %+v, want unended_session for session 2 (amdgpu, id 2)", res.c.Accounting.Gaps)
	}
	if res.gap(capture.UnfinalizedCapture) != nil {
		t.Error("finalised file: got unfinalized_capture, want none")
	}
	if mustRead(t, build(good())).gap(UnendedSession) != nil {
		t.Error("got unended_session on an ended session, want none")
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
		t.Fatalf("want complete, got gaps %+v", res.c.Accounting.Gaps)
	}
	if len(res.sink.Dispatches) != 2 {
		t.Fatalf("got %d dispatches, want 2", len(res.sink.Dispatches))
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
		t.Errorf("got report lines %+v, want a clock line per session", res.c.Inventory)
	}
	if v := res.field("file", "sessions"); !strings.Contains(v.(string), "repeated session ids: 1") {
		t.Errorf("got sessions field %v, want it to name repeated session ids: 1", v)
	}
	if res.c.Clock.Domain != fittedDomain || res.c.Clock.Unit != "ns" {
		t.Errorf("got capture clock %+v, want the fitted ns clock", res.c.Clock)
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
		t.Fatalf("got gaps %+v, want ambiguous_session and incomplete", res.c.Accounting.Gaps)
	}
	// The rule: records go to the most recently begun open session.
	if len(res.sink.Dispatches) != 3 || res.programName(res.sink.Dispatches[0]) != "session 2: command buffer 1" {
		t.Errorf("attribution: got programs %+v, want 3 dispatches, the first in session 2: command buffer 1", res.c.Programs)
	}
	if mustRead(t, build(good(), good())).gap(AmbiguousSession) != nil {
		t.Error("sequential sessions: got ambiguous_session, want none")
	}
}

func TestExecutableExports(t *testing.T) {
	sp := good()
	sp.funcCT = "executable-exports"
	res := mustRead(t, build(sp))
	if res.gap(capture.UnresolvedName) != nil || res.kernelName(res.sink.Dispatches[0]) != "alpha" {
		t.Fatalf("exports not read: got kernels %+v, want alpha resolved", res.c.Kernels)
	}
	if v := res.field("session 1 (amdgpu, id 1)", "function metadata"); v != "executable-exports (older name): 2 functions" {
		t.Errorf("got inventory %v, want executable-exports (older name): 2 functions", v)
	}
	if v := mustRead(t, build(good())).field("session 1 (amdgpu, id 1)", "function metadata"); v != "executable-functions: 2 functions" {
		t.Errorf("got inventory %v, want executable-functions: 2 functions", v)
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
		t.Fatal("padding bytes changed the result, want the same rows, dispatches and gaps")
	}
	for i := range a.rows {
		if a.rows[i] != b.rows[i] {
			t.Errorf("row %d: got %+v, want %+v as without padding", i, b.rows[i], a.rows[i])
		}
	}
}

func TestUnknownQueue(t *testing.T) {
	sp := good()
	sp.noQueues = true
	res := mustRead(t, build(sp))
	g := res.gap(UnknownQueue)
	if g == nil || len(res.sink.Dispatches) != 3 {
		t.Fatalf("got unknown_queue %+v and %d dispatches, want one and 3", g, len(res.sink.Dispatches))
	}
	if n, _ := g.Figure("events"); n != 3 {
		t.Errorf("got events %d, want 3", n)
	}
	if mustRead(t, build(good())).gap(UnknownQueue) != nil {
		t.Error("got unknown_queue with a queue record, want none")
	}
}

func TestRecordsOutsideSession(t *testing.T) {
	b := gen.New()
	b.Chunk(gen.Meta(5), "devices", "x", gen.Device(0, 1)) // before any begin
	good().session(b)
	res := mustRead(t, b.Bytes())
	if res.count(RecordsOutsideSession) != 1 || res.lost("records", "outside any session", RecordsOutsideSession) != 1 || res.lost("bytes", "outside any session", RecordsOutsideSession) == 0 {
		t.Fatalf("got accounting %+v, want one records_outside_session: 1 record and some bytes lost", res.c.Accounting)
	}
	if len(res.sink.Dispatches) != 3 {
		t.Errorf("session after the stray chunk: got %d dispatches, want 3", len(res.sink.Dispatches))
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
		t.Fatalf("malformed: got %s / %+v; want one malformed record lost and 3 dispatches", res.items(MalformedRecord), res.c.Accounting.Input)
	}
	// record_length below the header size: the walk stops there.
	b = gen.New()
	good().session(b)
	n := b.Len()
	b.Record(gen.Header{Type: gen.Chunk, SessionID: 1, RecordLength: 50}, gen.ContentPrefix+"devices", "", nil)
	b.SetFileLength(uint64(b.Len()))
	res = mustRead(t, b.Bytes())
	if !strings.Contains(res.items(MalformedRecord), "shorter than the 104-byte record header") || res.lost("bytes", "malformed record (rest of file not parsed)", MalformedRecord) != int64(b.Len()-n) {
		t.Errorf("short record: got %s, want shorter than the 104-byte record header, the rest lost", res.items(MalformedRecord))
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
		t.Fatalf("bad typed record: got %d dispatches, %s; want 1 and typed record 1: record_length 50", len(res.sink.Dispatches), res.items(MalformedRecord))
	}
	if res.lost("bytes", "malformed typed record (rest of its chunk)", MalformedRecord) != 176 {
		t.Errorf("got accounting %+v, want 176 bytes lost as the rest of the chunk", res.c.Accounting.Input[0])
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
		t.Fatalf("got unknown_record %s, want 2 naming frobnications and record type 9", items)
	}
	// Either may have held dispatches: lost, to unknown_record.
	if res.lost("records", "unknown content type", UnknownRecord) != 1 || res.lost("records", "unknown record type", UnknownRecord) != 1 {
		t.Errorf("got accounting %+v, want the unknown content type and record type lost to unknown_record", res.c.Accounting.Input)
	}
	if mustRead(t, build(good())).gap(UnknownRecord) != nil {
		t.Error("got unknown_record on known records, want none")
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
		t.Fatalf("got clock %+v, %s; want ticks and no_clock_fit naming DEVICE_TICK_UNALIGNED", res.c.Clock, res.items(NoClockFit))
	}
	if d, _ := res.sink.Dispatches[0].Device.Duration(); d != 250 {
		t.Errorf("got duration %d ticks, want 250", d)
	}
	if !res.c.Accounting.Complete() {
		t.Error("got incomplete, want complete: no_clock_fit must be a note")
	}
}

func TestClockExtrapolated(t *testing.T) {
	sp := good()
	sp.events = append(sp.events, ev(7, 1, 0, tick0+span+10, 5)) // after the last sample
	res := mustRead(t, build(sp))
	g := res.gap(ClockExtrapolated)
	if g == nil || g.Count != 1 || !g.Note {
		t.Fatalf("got clock_extrapolated %+v, want one note", g)
	}
}

func TestHeaderErrors(t *testing.T) {
	data := append([]byte{}, sampleBytes(t, "smoke")...)
	data[4] = 2
	if _, err := readBundle(t, data); err == nil || !strings.Contains(err.Error(), "test.ireeprof: byte 4: bundle format version 2") {
		t.Errorf("got %v, want test.ireeprof: byte 4: bundle format version 2", err)
	}
	data = append([]byte{}, sampleBytes(t, "smoke")...)
	data[0] = 'X'
	if _, err := readBundle(t, data); err == nil || !strings.Contains(err.Error(), "byte 0: not an IREE HAL profile bundle") {
		t.Errorf("got %v, want byte 0: not an IREE HAL profile bundle", err)
	}
}
