package ireeprof

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	gen "github.com/tallyprof/tally/internal/gen/ireeprofgen"
)

// repeatedBundle is good() with its dispatch-events record written twice.
func repeatedBundle() []byte {
	return oneSession(func(b *gen.Bundle, recs [][]byte) {
		b.Repeat(b.Chunk(gen.OnQueue(1, 0, 0), "dispatch-events", "amdgpu.dispatch", recs...))
	})
}

// oneSession is good()'s session with its dispatch events written by
// events (given the encoded events).
func oneSession(events func(b *gen.Bundle, recs [][]byte)) []byte {
	b := gen.New()
	sp := good()
	m := gen.Meta(sp.id)
	b.Begin(sp.id, "amdgpu")
	b.Chunk(m, "devices", "amdgpu", gen.Device(0, 1))
	b.Chunk(m, "queues", "amdgpu", gen.Queue(0, 0, 0), gen.Queue(0, 1, 1))
	b.Chunk(m, "executables", "amdgpu", gen.Executable(1, 2))
	b.Chunk(m, "executable-functions", "amdgpu", gen.Function(1, 0, "alpha"), gen.Function(1, 1, "beta"))
	b.Chunk(m, "clock-correlations", "amdgpu", gen.Clock(0, 1, tick0, ns0))
	var recs [][]byte
	for _, e := range sp.events {
		recs = append(recs, gen.Dispatch(e))
	}
	events(b, recs)
	b.Chunk(m, "clock-correlations", "amdgpu", gen.Clock(0, 2, tick0+span, ns0+span*10))
	b.End(sp.id, "amdgpu", 0)
	return b.Bytes()
}

// A dispatch-events record written twice holds each event id twice: the
// repeats are duplicate_event (counted once), not three more dispatches.
func TestRepeatedRecord(t *testing.T) {
	res := mustRead(t, repeatedBundle())
	if got := len(res.sink.Dispatches); got != 3 {
		t.Fatalf("%d dispatches, want 3 (the repeated record counted once)", got)
	}
	if got := res.count(capture.DuplicateEvent); got != 3 {
		t.Errorf("duplicate_event count %d, want 3; gaps %+v", got, gapList(res.c))
	}
	if res.c.Accounting.Complete() {
		t.Error("a repeated record: got complete, want incomplete")
	}
	var repeated int64
	for _, g := range res.c.Accounting.Gaps {
		if g.Kind == capture.DuplicateEvent {
			v, _ := g.Figure("repeated_ns")
			repeated += v
		}
	}
	if repeated != (250+20+12)*10 {
		t.Errorf("repeated_ns %d, want %d", repeated, (250+20+12)*10)
	}
	if g := res.gap(capture.DuplicateEvent); g.Program == "" || !strings.Contains(g.Items[0].What, "record 1 ") {
		t.Errorf("gap %+v: want it scoped to the program, naming event 1", g)
	}
	// The negative arm: the same bundle without the repeat.
	if res := mustRead(t, build(good())); res.gap(capture.DuplicateEvent) != nil || len(res.sink.Dispatches) != 3 {
		t.Errorf("no repeat: got %d dispatches, gaps %+v; want 3 and no duplicate_event", len(res.sink.Dispatches), gapList(res.c))
	}
}

// Event ids are unique per stream and session occurrence only: the same
// ids in another session, on another queue, never assigned (0), or in an
// ambiguous session (one GPU's events may sit in another's session) are
// not repeats.
func TestRepeatNotAcrossScopes(t *testing.T) {
	two := mustRead(t, build(good(), good()))
	if two.gap(capture.DuplicateEvent) != nil || len(two.sink.Dispatches) != 6 {
		t.Errorf("two sessions with ids 1..3: got %d dispatches, gaps %+v; want 6 and no duplicate_event", len(two.sink.Dispatches), gapList(two.c))
	}

	sp := good()
	for i := range sp.events {
		sp.events[i].EventID = 0
	}
	sp.events = append(sp.events, sp.events[0])
	sp.events[3].Start, sp.events[3].End = tick0+600, tick0+610
	if res := mustRead(t, build(sp)); res.gap(capture.DuplicateEvent) != nil || len(res.sink.Dispatches) != 4 {
		t.Errorf("event ids 0: got %d dispatches, gaps %+v; want 4 and no duplicate_event", len(res.sink.Dispatches), gapList(res.c))
	}

	queues := oneSession(func(b *gen.Bundle, recs [][]byte) {
		b.Chunk(gen.OnQueue(1, 0, 0), "dispatch-events", "amdgpu.dispatch", recs...)
		b.Chunk(gen.OnQueue(1, 0, 1), "dispatch-events", "amdgpu.dispatch", recs...)
	})
	if res := mustRead(t, queues); res.gap(capture.DuplicateEvent) != nil || len(res.sink.Dispatches) != 6 {
		t.Errorf("ids 1..3 on two queues: got %d dispatches, gaps %+v; want 6 and no duplicate_event", len(res.sink.Dispatches), gapList(res.c))
	}

	// Two GPUs' sessions, both id 1, both open: the second GPU's chunk is
	// given to the latest session, where the first's has the same ids.
	b := gen.New()
	b.Begin(1, "amdgpu")
	b.Begin(1, "amdgpu")
	for _, sp := range []spec{good(), good()} {
		var recs [][]byte
		for _, e := range sp.events {
			recs = append(recs, gen.Dispatch(e))
		}
		b.Chunk(gen.OnQueue(1, 0, 0), "dispatch-events", "amdgpu.dispatch", recs...)
	}
	b.End(1, "amdgpu", 0)
	b.End(1, "amdgpu", 0)
	res := mustRead(t, b.Bytes())
	if res.gap(capture.DuplicateEvent) != nil || res.gap(AmbiguousSession) == nil {
		t.Errorf("ambiguous sessions: gaps %+v, want ambiguous_session and no duplicate_event", gapList(res.c))
	}
	if got := res.c.Accounting.CountOf(capture.InvalidEvent) + int64(len(res.sink.Dispatches)); got != 6 {
		t.Errorf("ambiguous sessions: %d events accounted, want 6", got)
	}
}

// In the JSONL an id alone is no identity (no session): a row repeats
// another only with the same stream, id, times and dispatch.
func TestJSONLRepeatedRows(t *testing.T) {
	full := goldenJSONL(t, "dispatch_mode")
	lines := bytes.SplitAfter(full, []byte("\n"))
	rows := bytes.Join(lines[:len(lines)-2], nil) // the dispatch rows
	summary := bytes.Join(lines[len(lines)-2:], nil)
	c, tb := readJSONLBytes(t, bytes.Join([][]byte{rows, rows, summary}, nil))
	_, base := readJSONLBytes(t, full)
	if tb.Dispatches() != base.Dispatches() {
		t.Errorf("rows printed twice: %d dispatches, want %d", tb.Dispatches(), base.Dispatches())
	}
	// Invalid rows have no times, so no identity: they are invalid twice.
	valid := int64(bytes.Count(rows, []byte(`"valid":true`)))
	if got := c.Accounting.CountOf(capture.DuplicateEvent); got != valid {
		t.Errorf("duplicate_event %d, want %d", got, valid)
	}
	if got := lostIn(c, "dispatch events", "repeats a dispatch row already read (same stream, event id, times and dispatch)", capture.DuplicateEvent); got != valid {
		t.Errorf("%d rows lost to duplicate_event, want %d", got, valid)
	}
	// The negative arm: the same ids with other ticks (another GPU's
	// session, which the JSONL cannot tell apart) are dispatches.
	again := bytes.ReplaceAll(rows, []byte(`"start_tick":100`), []byte(`"start_tick":200`))
	again = bytes.ReplaceAll(again, []byte(`"end_tick":100`), []byte(`"end_tick":200`))
	if bytes.Equal(again, rows) {
		t.Fatal("test rows did not change, want the ticks replaced")
	}
	c, tb = readJSONLBytes(t, bytes.Join([][]byte{rows, again, summary}, nil))
	if c.Accounting.Find(capture.DuplicateEvent) != nil || tb.Dispatches() != 2*base.Dispatches() {
		t.Errorf("same ids, other times: got %d dispatches, gaps %+v; want %d and no duplicate_event", tb.Dispatches(), gapList(c), 2*base.Dispatches())
	}
}

// Each JSONL skip has its class: rows that may hold dispatches are lost to
// their gap, blank lines and iree-profile's messages are not device work.
func TestJSONLSkipClassification(t *testing.T) {
	full := goldenJSONL(t, "dispatch_mode")
	lines := bytes.SplitAfter(full, []byte("\n"))
	row := lines[0]
	// The same rows without the one iree-profile marks invalid.
	var clean []byte
	for _, l := range lines {
		if !bytes.Contains(l, []byte(`"valid":false`)) {
			clean = append(clean, l...)
		}
	}
	clean = bytes.Replace(clean, []byte(`"matched_dispatches":4`), []byte(`"matched_dispatches":3`), 1)
	full = clean
	for _, tc := range []struct {
		name, reason string
		data         []byte
		gap          capture.Kind
	}{
		{"not JSON", "not JSON", append(append([]byte{}, full...), "{\"type\":\"dispatch_event\",\n"...), capture.SkippedInput},
		{"cut last line", "cut last line", append(append([]byte{}, full...), row[:40]...), capture.TruncatedInput},
		{"unknown row", "not a dispatch row", append([]byte(`{"type":"frobnication"}`+"\n"), full...), capture.SkippedInput},
		{"aggregate", "aggregate row (per-kernel totals, no per-dispatch times)", append([]byte(`{"type":"dispatch_group","count":3}`+"\n"), full...), capture.SkippedInput},
		{"aggregate, no summary", "aggregate row (per-kernel totals, no per-dispatch times)", append([]byte(`{"type":"dispatch_group","count":3}`+"\n"), lines[0]...), capture.SkippedInput},
		{"invalid", "invalid (zero or reversed ticks)", bytes.Replace(full, []byte(`"valid":true`), []byte(`"valid":false`), 1), capture.InvalidEvent},
	} {
		c, _ := readJSONLBytes(t, tc.data)
		if lostIn(c, "lines", tc.reason, tc.gap)+lostIn(c, "dispatch events", tc.reason, tc.gap) == 0 {
			t.Errorf("%s: got %+v, want skip %q lost to %s", tc.name, c.Accounting.Input, tc.reason, tc.gap)
		}
	}
	// The negative arm: not device work.
	c, _ := readJSONLBytes(t, append(append([]byte("\n"), full...), "iree/hal/utils/profile_file.c:303: DATA_LOSS; x\n"...))
	for _, in := range c.Accounting.Input {
		for _, s := range in.Skipped {
			if s.Class != capture.NotDeviceWork {
				t.Errorf("%s %q: class %s, want %s", in.Unit, s.Reason, s.Class, capture.NotDeviceWork)
			}
		}
	}
}

// gapList names the gaps of c with their counts, for messages.
func gapList(c *capture.Capture) string {
	var parts []string
	for _, g := range c.Accounting.Gaps {
		parts = append(parts, fmt.Sprintf("%s %q %d", g.Kind, g.Program, g.Count))
	}
	return strings.Join(parts, ", ")
}

// Host execution spans that are not dispatches (command-buffer executes,
// copies, fills) are not device work: the smoke sample holds one.
func TestHostSpanNotDeviceWork(t *testing.T) {
	res := mustRead(t, sampleBytes(t, "smoke"))
	found := false
	for _, in := range res.c.Accounting.Input {
		for _, s := range in.Skipped {
			found = found || s.Reason == "not a dispatch span (command-buffer execute, copy, fill, …)"
			if s.Class != capture.NotDeviceWork {
				t.Errorf("%s %q: class %s, want %s", in.Unit, s.Reason, s.Class, capture.NotDeviceWork)
			}
		}
	}
	if !found {
		t.Errorf("got no host span skipped: %+v, want one", res.c.Accounting.Input)
	}
}
