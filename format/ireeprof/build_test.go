package ireeprof

import (
	gen "github.com/tallyprof/tally/internal/gen/ireeprofgen"
)

// spec describes one session for build.
type spec struct {
	id        uint64
	producer  string
	nsPerTick uint64 // rate the two clock samples imply
	funcCT    string // "executable-functions" (default) or "executable-exports"
	names     []string
	events    []gen.DispatchEvent
	// what to leave out or change
	noClock, noEnd, noQueues bool
	status                   uint32
	dispatchHeader           *gen.Header
}

const (
	tick0 = 1000
	ns0   = 1_000_000_000
	span  = 100_000 // ticks between the two clock samples
)

// ev is a dispatch event on command buffer 1 (0 = direct) of function fn of
// executable 1, lasting dur ticks from start.
func ev(id uint64, cb uint64, fn uint32, start, dur uint64) gen.DispatchEvent {
	idx := uint32(id)
	if cb == 0 {
		idx = gen.None
	}
	return gen.DispatchEvent{EventID: id, Submission: 1, CommandBuffer: cb, Executable: 1, CommandIndex: idx, Function: fn, Start: start, End: start + dur}
}

// session appends one session: begin, metadata, begin clock sample,
// dispatch events, end clock sample, end.
func (sp spec) session(b *gen.Bundle) {
	if sp.producer == "" {
		sp.producer = "amdgpu"
	}
	if sp.nsPerTick == 0 {
		sp.nsPerTick = 10
	}
	if sp.funcCT == "" {
		sp.funcCT = "executable-functions"
	}
	if sp.names == nil {
		sp.names = []string{"alpha", "beta"}
	}
	m := gen.Meta(sp.id)
	b.Begin(sp.id, sp.producer)
	b.Chunk(m, "devices", sp.producer, gen.Device(0, 1))
	if !sp.noQueues {
		b.Chunk(m, "queues", sp.producer, gen.Queue(0, 0, 0))
	}
	b.Chunk(m, "executables", sp.producer, gen.Executable(1, uint32(len(sp.names))))
	var fns [][]byte
	for i, n := range sp.names {
		fns = append(fns, gen.Function(1, uint32(i), n))
	}
	b.Chunk(m, sp.funcCT, sp.producer, fns...)
	b.Chunk(m, "command-buffers", sp.producer, gen.CommandBuffer(1, 0))
	b.Chunk(m, "command-operations", sp.producer, gen.CommandOp(2, 1, 0, 1, 0))
	if !sp.noClock {
		b.Chunk(m, "clock-correlations", sp.producer, gen.Clock(0, 1, tick0, ns0))
	}
	if len(sp.events) > 0 {
		var recs [][]byte
		for _, e := range sp.events {
			recs = append(recs, gen.Dispatch(e))
		}
		h := gen.OnQueue(sp.id, 0, 0)
		h.StreamID = 0
		if sp.dispatchHeader != nil {
			h = *sp.dispatchHeader
		}
		b.Chunk(h, "dispatch-events", sp.producer+".dispatch", recs...)
	}
	q := gen.OnQueue(sp.id, 0, 0)
	b.Chunk(q, "queue-device-events", sp.producer+".queue_device", gen.QueueDeviceEvent(3, 0, 0, tick0+10, tick0+20))
	if !sp.noClock {
		b.Chunk(m, "clock-correlations", sp.producer, gen.Clock(0, 2, tick0+span, ns0+span*sp.nsPerTick))
	}
	if !sp.noEnd {
		b.End(sp.id, sp.producer, sp.status)
	}
}

// build makes a bundle of the given sessions, one after the other.
func build(sessions ...spec) []byte {
	b := gen.New()
	for _, s := range sessions {
		s.session(b)
	}
	return b.Bytes()
}

// good is a session with two command-buffer dispatches and one direct one,
// all valid and inside the clock samples.
func good() spec {
	return spec{id: 1, events: []gen.DispatchEvent{ev(1, 1, 0, tick0+100, 250), ev(2, 1, 1, tick0+400, 20), ev(3, 0, 0, tick0+500, 12)}}
}
