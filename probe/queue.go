package probe

import (
	"runtime"
	"sync"
)

// Queue is where dispatches run. Begin and End may be called from any
// goroutine; each holds the queue's lock for a few nanoseconds only, and the
// writer holds it only to swap buffers, so neither ever waits on I/O.
type Queue struct {
	s            *Session
	id           uint32
	name, device string
	threshold    int

	mu     sync.Mutex
	active []event        // filled by End; cap = RingSize
	spare  []event        // the buffer the writer hands back at the next swap
	slots  []slot         // dispatches in flight
	free   []int32        // free slot indexes
	win    []windowCounts // Summaries: this queue's share of the window, by kernel id
	// Counters since Open.
	begun, recorded, dropped, misused uint64
	inFlight                          int

	// Writer-side: counters at the last checkpoint (under Session.drainMu).
	ckBegun, ckRecorded, ckDropped, ckMisused uint64
}

type event struct {
	kernel     uint32
	begin, end int64
}

type slot struct {
	k     *Kernel
	begin int64
	gen   uint32
	used  bool
}

func newQueue(s *Session, id uint32, name, device string) *Queue {
	q := &Queue{
		s: s, id: id, name: name, device: device, threshold: s.opts.Threshold,
		slots: make([]slot, s.opts.MaxInFlight),
		free:  make([]int32, s.opts.MaxInFlight),
	}
	if s.events {
		q.active = make([]event, 0, s.opts.RingSize)
		q.spare = make([]event, 0, s.opts.RingSize)
	}
	for i := range q.free {
		q.free[i] = int32(len(q.free) - 1 - i) // slot 0 is used first
	}
	return q
}

// Name is the queue's name.
func (q *Queue) Name() string { return q.name }

// Handle is one dispatch in flight, returned by Begin and ended by End. It
// is a small value: keep it, pass it, end it once.
type Handle struct {
	q    *Queue
	slot int32
	gen  uint32
}

// Begin records the launch of kernel k on this queue now. It never blocks
// on I/O and never allocates; when MaxInFlight dispatches are already in
// flight on the queue the dispatch is dropped and counted, and End on its
// handle does nothing. A nil kernel, or one of another session, is
// refused and counted (Result.Misused).
func (q *Queue) Begin(k *Kernel) Handle {
	s := q.s
	t := s.now()
	if k == nil || k.program.s != s {
		// Its id would name another session's kernel (or none) in this
		// file: refuse it, counted, rather than misname it.
		q.mu.Lock()
		q.misused++
		q.mu.Unlock()
		return Handle{q: q, slot: -1}
	}
	q.mu.Lock()
	q.begun++
	if s.summ {
		if int(k.id) >= len(q.win) { // once per kernel and queue
			q.win = append(q.win, make([]windowCounts, int(k.id)+1-len(q.win))...)
		}
		q.win[k.id].launches++
	}
	n := len(q.free)
	if n == 0 || s.closed.Load() {
		q.dropped++
		q.mu.Unlock()
		s.countLaunch()
		return Handle{q: q, slot: -1}
	}
	i := q.free[n-1]
	q.free = q.free[:n-1]
	sl := &q.slots[i]
	sl.k, sl.begin, sl.used = k, t, true
	sl.gen++
	g := sl.gen
	q.inFlight++
	q.mu.Unlock()
	s.countLaunch()
	return Handle{q: q, slot: i, gen: g}
}

// countLaunch counts a launch for the summary window, after the queue has
// counted it: a summary due at this count finds it on its queue. The window
// needs one count over all queues; everything else is counted per queue
// under its lock, with no shared cache line.
func (s *Session) countLaunch() {
	if s.summ {
		if n := s.launches.Add(1); n%s.window == 0 {
			s.wakeWriter()
		}
	}
}

// End records that the dispatch finished now. It never waits for the
// writer: when the queue's ring is full the dispatch is dropped and counted;
// past the threshold it yields the processor once per 1024 dispatches
// (runtime.Gosched) so the writer can run. Ending a handle twice is
// counted (Result.Misused) and otherwise ignored; the zero Handle, which
// belongs to no queue, does nothing.
func (h Handle) End() {
	q := h.q
	if q == nil {
		return
	}
	s := q.s
	t := s.now()
	q.mu.Lock()
	if h.slot < 0 { // dropped at Begin: already counted
		q.mu.Unlock()
		return
	}
	sl := &q.slots[h.slot]
	if !sl.used || sl.gen != h.gen {
		q.misused++
		q.mu.Unlock()
		return
	}
	k, begin := sl.k, sl.begin
	sl.k, sl.used = nil, false
	q.free = append(q.free, h.slot)
	q.inFlight--
	wake, yield := false, false
	if s.events {
		if n := len(q.active); n == cap(q.active) {
			q.dropped++
		} else {
			q.active = append(q.active, event{kernel: k.id, begin: begin, end: t})
			q.recorded++
			wake = n+1 == q.threshold
			yield = n+1 >= q.threshold && (n+1-q.threshold)%yieldEvery == 0
		}
	} else {
		q.recorded++
	}
	if s.summ {
		w := &q.win[k.id]
		w.completed++
		w.total += t - begin
	}
	q.mu.Unlock()
	if wake {
		s.wakeWriter()
	}
	if yield {
		// The writer, once woken or back from a write, waits for a P; a
		// caller that never blocks keeps it waiting until preempted
		// (~10 ms), long enough to fill the ring. So past the threshold
		// the caller yields once per yieldEvery dispatches: it never waits
		// for the writer, it only lets it run.
		runtime.Gosched()
	}
}

// yieldEvery spaces the yields of a caller whose ring is past its threshold.
const yieldEvery = 1024
