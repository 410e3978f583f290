package all

import (
	"encoding/binary"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/internal/probefile"
)

// probe: a closed session (end record) with one events record of two
// dispatches on one queue. Events carry no id: a dispatch's identity is
// its queue, kernel, begin and end, and an events record repeating its
// queue's previous one (count and first event) is the record written twice
// (docs/probe-format.md).
func init() {
	two := []probeEvent{{0, 10, 20}, {0, 30, 40}}
	promiseFixtures["probe"] = append(promiseFixtures["probe"], promiseFixture{
		base: probeFile(func(b *probeBuilder) { b.events(two...).end() }),
		// The second event names kernel 7, which the file never defined.
		unreadable: probeFile(func(b *probeBuilder) { b.events(two[0], probeEvent{7, 30, 40}).end() }),
		impossible: probeFile(func(b *probeBuilder) { b.events(two[0], probeEvent{0, 30, 1<<63 - 1}).end() }),
		repeated:   probeFile(func(b *probeBuilder) { b.events(two...).events(two...).end() }),
		repeatKind: capture.DuplicateEvent,
		// The end record, the file's last, dropped: a session never closed.
		cut:       probeFile(func(b *probeBuilder) { b.events(two...) }),
		endMarker: true,
		// Records are the events of the one events record.
		records: picked(func() []probeEvent { return two }, func(t *testing.T, dir string, evs []probeEvent) string {
			return probeFile(func(b *probeBuilder) { b.events(evs...).end() })(t, dir)
		}),
	})
}

// probeBuilder writes a probe file record by record (docs/probe-format.md).
type probeBuilder struct{ b []byte }

func (p *probeBuilder) rec(typ byte, fields ...any) *probeBuilder {
	var body []byte
	for _, f := range fields {
		switch v := f.(type) {
		case uint32:
			body = binary.LittleEndian.AppendUint32(body, v)
		case int64:
			body = binary.LittleEndian.AppendUint64(body, uint64(v))
		case string:
			body = probefile.AppendString(body, v)
		}
	}
	p.b = append(probefile.AppendRecord(p.b, typ, len(body)), body...)
	return p
}

type probeEvent struct {
	kernel     uint32
	begin, end int64
}

func (p *probeBuilder) events(evs ...probeEvent) *probeBuilder {
	f := []any{uint32(0), uint32(len(evs))}
	for _, e := range evs {
		f = append(f, e.kernel, e.begin, e.end)
	}
	return p.rec(probefile.TypeEvents, f...)
}

// end: time, launches, recorded, dropped, in_flight, summaries, layers, flags.
func (p *probeBuilder) end() *probeBuilder {
	return p.rec(probefile.TypeEnd, int64(100), int64(2), int64(2), int64(0), uint32(0), uint32(0), uint32(0), uint32(0))
}

// probeFile writes the header and definitions (program 0 "p", kernel 0
// "k", queue 0 "q"), then what body adds.
func probeFile(body func(*probeBuilder)) func(t *testing.T, dir string) string {
	return func(t *testing.T, dir string) string {
		t.Helper()
		b := &probeBuilder{b: probefile.AppendHeader(nil, probefile.FamilyDispatchEvents, 0, 1_700_000_000_000_000_000)}
		b.rec(probefile.TypeProgram, uint32(0), "p").
			rec(probefile.TypeKernel, uint32(0), uint32(0), "k").
			rec(probefile.TypeQueue, uint32(0), "q", "dev")
		body(b)
		return fixture.Write(t, dir, "run.probe", b.b)
	}
}
