package ireeprofgen

import (
	"bufio"
	"fmt"
	"io"
)

// Options shape a generated bundle.
type Options struct {
	Events         int // dispatch events
	Kernels        int // functions (spread over executables of 8 functions)
	CommandBuffers int // command buffers; every 8th submission is direct
	EventsPerChunk int // dispatch events per dispatch-events chunk
	NSPerTick      uint64
}

// Stats describes what Generate wrote, for checks.
type Stats struct {
	Bytes          int64
	Events         int64
	TotalTicks     uint64 // summed duration of all events
	KernelTicks    []uint64
	KernelEvents   []int64
	ProgramsUsed   int
	DirectPrograms int
}

// Generate writes one finalised single-session bundle of synthetic dispatch
// events to w, then patches file_length through w. Events cycle over the
// kernels and command buffers; durations vary with the event number.
func Generate(w io.WriterAt, o Options) (Stats, error) {
	if o.Kernels <= 0 {
		o.Kernels = 64
	}
	if o.CommandBuffers <= 0 {
		o.CommandBuffers = 16
	}
	if o.EventsPerChunk <= 0 {
		o.EventsPerChunk = 8192
	}
	if o.NSPerTick == 0 {
		o.NSPerTick = 10
	}
	st := Stats{KernelTicks: make([]uint64, o.Kernels), KernelEvents: make([]int64, o.Kernels)}
	ow := &offsetWriter{w: w}
	bw := bufio.NewWriterSize(ow, 1<<20)
	head := New()
	if _, err := bw.Write(head.Bytes()); err != nil {
		return st, err
	}
	put := func(h Header, ct, name string, payload []byte) error {
		_, err := bw.Write(AppendRecord(nil, h, ContentPrefix+ct, name, payload))
		return err
	}
	meta := Meta(1)
	cat := func(recs ...[]byte) []byte {
		var p []byte
		for _, r := range recs {
			p = append(p, r...)
		}
		return p
	}
	if err := put(Header{Type: SessionBegin, SessionID: 1, Device: None, Queue: None}, "session", "amdgpu", nil); err != nil {
		return st, err
	}
	var exes, fns, cbs [][]byte
	for e := 0; e*8 < o.Kernels; e++ {
		exes = append(exes, Executable(uint64(e+1), 8))
	}
	for k := 0; k < o.Kernels; k++ {
		fns = append(fns, Function(uint64(k/8+1), uint32(k%8), fmt.Sprintf("kernel_%04d_f32", k)))
	}
	for c := 0; c < o.CommandBuffers; c++ {
		cbs = append(cbs, CommandBuffer(uint64(c+1), 0))
	}
	meta.Type = Chunk
	const firstTick, firstNS = 1_000_000, 5_000_000_000
	for _, m := range []struct {
		ct      string
		payload []byte
	}{
		{"devices", Device(0, 1)},
		{"queues", Queue(0, 0, 0)},
		{"executables", cat(exes...)},
		{"executable-functions", cat(fns...)},
		{"command-buffers", cat(cbs...)},
		{"clock-correlations", Clock(0, 1, firstTick, firstNS)},
	} {
		if err := put(meta, m.ct, "amdgpu", m.payload); err != nil {
			return st, err
		}
	}
	q := OnQueue(1, 0, 0)
	q.Type = Chunk
	q.StreamID = 0
	payload := make([]byte, 0, 88*o.EventsPerChunk)
	tick := uint64(firstTick + 100)
	progs := map[uint64]bool{}
	for i := 0; i < o.Events; i++ {
		k := i % o.Kernels
		sub := uint64(i/32 + 1)
		cb := sub%uint64(o.CommandBuffers) + 1
		idx := uint32(i % 32)
		if sub%8 == 0 {
			cb, idx = 0, None
		}
		progs[cb] = true
		dur := uint64(20 + (i*7919)%500)
		payload = AppendDispatch(payload, DispatchEvent{Flags: 1, EventID: uint64(i + 1), Submission: sub, CommandBuffer: cb,
			Executable: uint64(k/8 + 1), CommandIndex: idx, Function: uint32(k % 8), Start: tick, End: tick + dur})
		st.TotalTicks += dur
		st.KernelTicks[k] += dur
		st.KernelEvents[k]++
		tick += dur + 3
		if len(payload) == cap(payload) || i == o.Events-1 {
			if err := put(q, "dispatch-events", "amdgpu.dispatch", payload); err != nil {
				return st, err
			}
			payload = payload[:0]
		}
	}
	st.Events = int64(o.Events)
	st.ProgramsUsed = len(progs)
	if progs[0] {
		st.DirectPrograms = 1
	}
	last := tick + 1000
	if err := put(meta, "clock-correlations", "amdgpu", Clock(0, 2, last, firstNS+(last-firstTick)*o.NSPerTick)); err != nil {
		return st, err
	}
	if err := put(Header{Type: SessionEnd, SessionID: 1, Device: None, Queue: None}, "session", "amdgpu", nil); err != nil {
		return st, err
	}
	if err := bw.Flush(); err != nil {
		return st, err
	}
	st.Bytes = ow.off
	var fl [8]byte
	le.PutUint64(fl[:], uint64(ow.off))
	if _, err := w.WriteAt(fl[:], 16); err != nil {
		return st, err
	}
	return st, nil
}

// offsetWriter turns a WriterAt into a sequential Writer.
type offsetWriter struct {
	w   io.WriterAt
	off int64
}

func (o *offsetWriter) Write(p []byte) (int, error) {
	n, err := o.w.WriteAt(p, o.off)
	o.off += int64(n)
	return n, err
}
