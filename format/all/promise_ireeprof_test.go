package all

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/format/ireeprof"
	gen "github.com/tallyprof/tally/internal/gen/ireeprofgen"
)

// IREE HAL profile bundles: one session of three dispatch events on one
// queue, with a clock fit of 10 ns per tick. A record is a bundle record;
// the header's file_length (patched at each session end) is the end marker.
//
// iree-jsonl: the rows `iree-profile --format=jsonl --dispatch_events
// dispatch` prints for such a bundle. A record is a row; the closing
// dispatch_summary row is the end marker. Every JSONL capture carries
// losses_unknown (the JSONL cannot show the bundle's losses).

const (
	ireeTick0 = 1000
	ireeNS0   = 1_000_000_000
	ireeSpan  = 100_000 // ticks between the two clock samples
)

// ireeEvents are the base's dispatch events: ids 1–3, all valid.
func ireeEvents() []gen.DispatchEvent {
	var evs []gen.DispatchEvent
	for i, d := range []uint64{250, 20, 12} {
		evs = append(evs, gen.DispatchEvent{EventID: uint64(i + 1), Submission: 1, CommandBuffer: 1, Executable: 1,
			CommandIndex: uint32(i), Function: uint32(i % 2), Start: ireeTick0 + 100*uint64(i+1), End: ireeTick0 + 100*uint64(i+1) + d})
	}
	return evs
}

// ireeBundle builds the bundle; repeat writes the dispatch-events record
// twice, cut drops the last record (SESSION_END) after finalising.
func ireeBundle(evs []gen.DispatchEvent, repeat, cut bool) []byte {
	b := gen.New()
	m := gen.Meta(1)
	b.Begin(1, "amdgpu")
	b.Chunk(m, "devices", "amdgpu", gen.Device(0, 1))
	b.Chunk(m, "queues", "amdgpu", gen.Queue(0, 0, 0))
	b.Chunk(m, "executables", "amdgpu", gen.Executable(1, 2))
	b.Chunk(m, "executable-functions", "amdgpu", gen.Function(1, 0, "matmul_f32"), gen.Function(1, 1, "softmax_f32"))
	b.Chunk(m, "command-buffers", "amdgpu", gen.CommandBuffer(1, 0))
	b.Chunk(m, "clock-correlations", "amdgpu", gen.Clock(0, 1, ireeTick0, ireeNS0))
	var recs [][]byte
	for _, e := range evs {
		recs = append(recs, gen.Dispatch(e))
	}
	off := b.Chunk(gen.OnQueue(1, 0, 0), "dispatch-events", "amdgpu.dispatch", recs...)
	if repeat {
		b.Repeat(off)
	}
	b.Chunk(m, "clock-correlations", "amdgpu", gen.Clock(0, 2, ireeTick0+ireeSpan, ireeNS0+ireeSpan*10))
	end := b.End(1, "amdgpu", 0)
	if cut {
		return b.Bytes()[:end]
	}
	return b.Bytes()
}

// ireeJSONL prints evs as iree-profile does; cut leaves out the summary.
func ireeJSONL(evs []gen.DispatchEvent, cut bool) []byte {
	var b strings.Builder
	names := []string{"matmul_f32", "softmax_f32"}
	var valid, invalid int
	for _, e := range evs {
		ok := e.Start != 0 && e.End != 0 && e.End >= e.Start
		dt := uint64(0)
		if ok {
			dt = e.End - e.Start
			valid++
		} else {
			invalid++
		}
		fmt.Fprintf(&b, `{"type":"dispatch_event","physical_device_ordinal":0,"queue_ordinal":0,"stream_id":0,"event_id":%d,"submission_id":%d,"command_buffer_id":%d,"command_index":%d,"executable_id":%d,"function_ordinal":%d,"key":%q,"flags":1,"workgroup_count":[1,1,1],"workgroup_size":[1,1,1],"start_tick":%d,"end_tick":%d,"duration_ticks":%d,"valid":%v,"clock_fit_available":true,"device_tick_domain":"device_tick","duration_time_domain":"device_tick_duration_ns","duration_ns":%d}`+"\n",
			e.EventID, e.Submission, e.CommandBuffer, e.CommandIndex, e.Executable, e.Function, names[e.Function], e.Start, e.End, dt, ok, dt*10)
	}
	if !cut {
		fmt.Fprintf(&b, `{"type":"dispatch_summary","mode":"events","filter":"*","total_dispatches":%d,"matched_dispatches":%d,"valid_dispatches":%d,"invalid_dispatches":%d,"aggregate_groups":0,"total_host_dispatches":0,"matched_host_dispatches":0,"valid_host_dispatches":0,"invalid_host_dispatches":0,"host_aggregate_groups":0}`+"\n",
			len(evs), len(evs), valid, invalid)
	}
	return []byte(b.String())
}

// ireeUnreadable: event 2's completion never timestamped (end tick 0).
func ireeUnreadable() []gen.DispatchEvent {
	evs := ireeEvents()
	evs[1].End = 0
	return evs
}

// ireeImpossible: event 2 lasting 4e11 ticks, 4e12 ns (1.1 h).
func ireeImpossible() []gen.DispatchEvent {
	evs := ireeEvents()
	evs[1].End = evs[1].Start + 400_000_000_000
	return evs
}

func init() {
	bundle := func(evs func() []gen.DispatchEvent, repeat, cut bool) func(t *testing.T, dir string) string {
		return func(t *testing.T, dir string) string {
			return fixture.Write(t, dir, "run.ireeprof", ireeBundle(evs(), repeat, cut))
		}
	}
	promiseFixtures[ireeprof.Name] = append(promiseFixtures[ireeprof.Name], promiseFixture{
		base:       bundle(ireeEvents, false, false),
		unreadable: bundle(ireeUnreadable, false, false),
		impossible: bundle(ireeImpossible, false, false),
		// The dispatch-events record written twice: each event id twice.
		repeated:   bundle(ireeEvents, true, false),
		repeatKind: capture.DuplicateEvent,
		// SESSION_END dropped: the file is shorter than its file_length.
		cut:       bundle(ireeEvents, false, true),
		endMarker: true,
		// Records are the dispatch events of the dispatch-events record.
		records: picked(ireeEvents, func(t *testing.T, dir string, evs []gen.DispatchEvent) string {
			return fixture.Write(t, dir, "run.ireeprof", ireeBundle(evs, false, false))
		}),
	})

	jsonl := func(evs func() []gen.DispatchEvent, cut bool) func(t *testing.T, dir string) string {
		return func(t *testing.T, dir string) string {
			return fixture.Write(t, dir, "run.jsonl", ireeJSONL(evs(), cut))
		}
	}
	promiseFixtures[ireeprof.JSONLName] = append(promiseFixtures[ireeprof.JSONLName], promiseFixture{
		base:       jsonl(ireeEvents, false),
		unreadable: jsonl(ireeUnreadable, false),
		impossible: jsonl(ireeImpossible, false),
		// What iree-profile prints for a bundle whose dispatch-events
		// record is written twice: every row twice.
		repeated: func(t *testing.T, dir string) string {
			evs := ireeEvents()
			return fixture.Write(t, dir, "run.jsonl", ireeJSONL(append(evs, evs...), false))
		},
		repeatKind: capture.DuplicateEvent,
		// The closing dispatch_summary row dropped.
		cut:       jsonl(ireeEvents, true),
		endMarker: true,
		inherent:  []capture.Kind{ireeprof.LossesUnknown},
		// Records are the dispatch_event rows (the summary closes them).
		records: picked(ireeEvents, func(t *testing.T, dir string, evs []gen.DispatchEvent) string {
			return fixture.Write(t, dir, "run.jsonl", ireeJSONL(evs, false))
		}),
	})
}
