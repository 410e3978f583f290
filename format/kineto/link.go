package kineto

import "github.com/tallyprof/tally/internal/hugemem"

// CPU→device linkage (spec §7): a device event and the runtime/driver call
// that launched it share args.correlation. Either may come first in the
// file, and graph launches share one id among many device events, so the
// join keeps state, all of it small and most of it short-lived:
//
//   - ring: the last ringSize runtime calls, direct-mapped by correlation id
//     (ids are a counter, so a slot is reused by the call ringSize ids
//     later). It serves device events written after their call (ROCm, vLLM).
//   - waiting: device records still in memory whose call has not been read
//     (CUDA writes a kernel just before its call). Matched and removed
//     within a few events.
//   - far: launch calls pushed out of the ring unmatched; their device
//     events may still come (files that write all calls, then all kernels).
//   - graphs: every graph launch, for the kernels it replays.
//   - awaitLate/late: ids of device records spilled while still waiting,
//     and the calls that arrived for them afterwards.
//   - seen: one bit per runtime correlation id ever read, so the "no launch"
//     verdict is exact even when a call's times were dropped.
//
// Worst case (every call far from its device work in the file): far holds
// one 40-byte record per launch call, and awaitLate/late one entry per
// device event; real traces keep them near empty.

// The ring starts small (most traces are small) and doubles up to
// ringSize as calls arrive.
const (
	ringSize  = 1 << 16
	ringStart = 1 << 10
)

// noCall marks a record not linked to a named call.
const noCall = ^uint32(0)

// rtRec is one runtime/driver call.
type rtRec struct {
	corr   uint64
	ts     int64
	dur    int64
	call   uint32 // index into reader.calls
	thread uint32 // index into reader.threads
	state  uint8
}

const (
	rtEmpty uint8 = iota
	rtUnmatched
	rtMatched
)

// graphRec is a graph launch and the device work it replayed.
type graphRec struct {
	rt      rtRec
	kernels int64
	ns      int64
}

type linker struct {
	ring      []rtRec
	far       map[uint64]rtRec
	graphs    map[uint64]*graphRec
	waiting   map[uint64]int64
	awaitLate map[uint64]struct{}
	late      map[uint64]rtRec
	seen      sparseBits

	calls *[]callInfo
	puts  int64 // calls put in the ring, to size it

	// Statistics for the inventory.
	dupCalls    int64 // runtime calls whose correlation id was already read
	farPeak     int
	waitingPeak int
	noTime      int64 // device events linked to a call whose times were dropped
}

func newLinker(calls *[]callInfo) *linker {
	// The ring's memory is its largest size, advised for huge pages
	// (slab.go says why); it grows into it in place.
	ring, ok := rings.get()
	if !ok {
		ring = hugemem.Make[rtRec](ringSize)
	}
	ring = ring[:ringStart]
	clear(ring)
	return &linker{
		ring:      ring,
		far:       make(map[uint64]rtRec),
		graphs:    make(map[uint64]*graphRec),
		waiting:   make(map[uint64]int64),
		awaitLate: make(map[uint64]struct{}),
		late:      make(map[uint64]rtRec),
		calls:     calls,
	}
}

func (l *linker) ringGet(c uint64) *rtRec {
	r := &l.ring[c&uint64(len(l.ring)-1)]
	if r.state != rtEmpty && r.corr == c {
		return r
	}
	return nil
}

func (l *linker) ringPut(rt rtRec) {
	l.puts++
	if l.puts > int64(len(l.ring)) && len(l.ring) < ringSize {
		l.growRing()
	}
	slot := &l.ring[rt.corr&uint64(len(l.ring)-1)]
	if slot.state == rtUnmatched && (*l.calls)[slot.call].kind.launch {
		l.far[slot.corr] = *slot
		if len(l.far) > l.farPeak {
			l.farPeak = len(l.far)
		}
	}
	*slot = rt
}

// growRing doubles the ring, keeping every record (two records that
// collided in the small ring may both survive in the larger one).
func (l *linker) growRing() {
	if n := len(l.ring); cap(l.ring) >= 2*n {
		// In place, to the slots a new ring would give: the record in
		// slot i (corr mod n) goes to i+n when its corr has bit n set,
		// else stays.
		l.ring = l.ring[:2*n]
		clear(l.ring[n:])
		for i := range n {
			if rt := &l.ring[i]; rt.state != rtEmpty && rt.corr&uint64(n) != 0 {
				l.ring[i+n] = *rt
				*rt = rtRec{}
			}
		}
		return
	}
	old := l.ring
	l.ring = make([]rtRec, 2*len(old))
	mask := uint64(len(l.ring) - 1)
	for _, rt := range old {
		if rt.state != rtEmpty {
			l.ring[rt.corr&mask] = rt
		}
	}
}

func attach(d *drec, rt *rtRec) {
	d.lts, d.ldur, d.call, d.thread = rt.ts, rt.dur, rt.call, rt.thread
}

// device links a device record as far as the calls read so far allow and
// appends it to the log. hasCorr/badCorr describe args.correlation.
func (l *linker) device(log *dlog, d drec, hasCorr, badCorr bool) error {
	d.next = -1
	switch {
	case badCorr:
		d.state = stBadCorr
	case !hasCorr:
		d.state = stNoCorr
	case d.corr == 0:
		d.state = stCorrZero
	default:
		c := d.corr
		if rt := l.ringGet(c); rt != nil {
			attach(&d, rt)
			rt.state = rtMatched
			d.state = stLaunched
		} else if g := l.graphs[c]; g != nil {
			attach(&d, &g.rt)
			g.rt.state = rtMatched
			d.state = stGraph
		} else if rt, ok := l.far[c]; ok {
			attach(&d, &rt)
			delete(l.far, c)
			d.state = stLaunched
		} else if rt, ok := l.late[c]; ok {
			attach(&d, &rt)
			d.state = stLaunched
		} else if l.seen.has(c) {
			d.state = stLaunchedNoTime
			l.noTime++
		} else if _, ok := l.awaitLate[c]; ok {
			d.state = stLate
		} else {
			d.state = stPending
			if head, ok := l.waiting[c]; ok {
				d.next = head
			}
			seq, err := log.add(d)
			if err != nil {
				return err
			}
			l.waiting[c] = seq
			if len(l.waiting) > l.waitingPeak {
				l.waitingPeak = len(l.waiting)
			}
			return nil
		}
	}
	_, err := log.add(d)
	return err
}

// runtime records a runtime/driver call with a nonzero correlation id and
// completes the device records waiting for it.
func (l *linker) runtime(log *dlog, rt rtRec, kind callKind) {
	c := rt.corr
	if l.seen.has(c) {
		// The first call with an id keeps it; a second one cannot be
		// told apart from it.
		l.dupCalls++
		return
	}
	l.seen.set(c)
	rt.state = rtUnmatched
	state := stLaunched
	var g *graphRec
	if kind.graph {
		g = &graphRec{rt: rt}
		l.graphs[c] = g
		state = stGraph
	}
	if head, ok := l.waiting[c]; ok {
		for seq := head; seq >= 0; {
			d := log.at(seq)
			if d == nil {
				break // cannot happen: a spill removes the whole chain
			}
			attach(d, &rt)
			d.state = state
			seq = d.next
		}
		delete(l.waiting, c)
		rt.state = rtMatched
		if g != nil {
			g.rt.state = rtMatched
		}
	} else if _, ok := l.awaitLate[c]; ok {
		rt.state = rtMatched
		if g != nil {
			g.rt.state = rtMatched
			return
		}
		l.late[c] = rt
		return
	}
	if g == nil {
		l.ringPut(rt)
	}
}

// spilled is called for each record leaving memory: a record still
// waiting for its call is resolved at the end instead.
func (l *linker) spilled(d *drec) {
	if d.state == stPending {
		d.state = stLate
		l.awaitLate[d.corr] = struct{}{}
		delete(l.waiting, d.corr)
	}
}

// resolve settles a record at the end of the file, when every call has
// been read.
func (l *linker) resolve(d *drec) {
	if d.state != stPending && d.state != stLate {
		return
	}
	c := d.corr
	if g := l.graphs[c]; g != nil {
		attach(d, &g.rt)
		g.rt.state = rtMatched
		d.state = stGraph
		return
	}
	if rt, ok := l.late[c]; ok {
		attach(d, &rt)
		d.state = stLaunched
		return
	}
	if l.seen.has(c) {
		// Defensive: cannot happen with the order of checks above.
		d.state = stLaunchedNoTime
		l.noTime++
	}
}

// unmatchedLaunches calls fn for every launch call that no device event
// matched: in the ring, pushed out of it, and graph launches that replayed
// nothing.
func (l *linker) unmatchedLaunches(fn func(rt *rtRec)) {
	for i := range l.ring {
		rt := &l.ring[i]
		if rt.state == rtUnmatched && (*l.calls)[rt.call].kind.launch {
			fn(rt)
		}
	}
	for _, rt := range l.far {
		fn(&rt)
	}
	for _, g := range l.graphs {
		if g.kernels == 0 {
			fn(&g.rt)
		}
	}
}

// release gives the ring's memory to the next read (reuse.go), or to the
// collector.
func (l *linker) release() {
	if cap(l.ring) == ringSize {
		rings.put(l.ring[:0])
	}
	l.ring = nil
}
