package probe

import (
	"encoding/binary"
	"fmt"

	"github.com/tallyprof/tally/internal/probefile"
)

// writerState is the background writer's, under Session.drainMu.
type writerState struct {
	err       error // first write error; nothing is written after it
	unwritten int64 // dispatches lost to write errors
	pending   int64 // dispatches buffered since the last successful flush
	buf       []byte
	snaps     []queueSnap
	inflight  []inflightEntry

	summaries    int64
	nextBoundary uint64 // launches at which the next summary is due
	summarised   uint64 // launches covered by written summaries
}

type queueSnap struct {
	q                 *Queue
	events            []event
	recorded, dropped uint64
	inFlight          int
	first, last       int // the queue's entries in writerState.inflight
	checkpoint        bool
}

type inflightEntry struct {
	kernel uint32
	begin  int64
}

// drain moves every ring's events to the file, then writes the pending
// definitions first, the events, and a checkpoint per queue whose counters
// moved. Definitions are taken after the swap: a kernel an event names was
// defined before its Begin, so it is in the definitions taken here.
func (s *Session) drain(final bool) {
	w := &s.w
	s.mu.Lock()
	queues := s.queues
	s.mu.Unlock()
	w.snaps = w.snaps[:0]
	w.inflight = w.inflight[:0]
	for _, q := range queues {
		q.mu.Lock()
		snap := queueSnap{q: q}
		if len(q.active) > 0 {
			// The queue gets the spare; the writer reads the old active
			// buffer, which becomes the spare for the next swap, after
			// this drain is done with it.
			snap.events = q.active
			q.active, q.spare = q.spare[:0], q.active[:0]
		}
		snap.dropped, snap.inFlight = q.dropped, q.inFlight
		if s.events { // recorded counts the events in the file, none without them
			snap.recorded = q.recorded
		}
		moved := q.begun != q.ckBegun || q.recorded != q.ckRecorded || q.dropped != q.ckDropped || q.misused != q.ckMisused
		if moved || final {
			snap.checkpoint = true
			snap.first = len(w.inflight)
			for i, left := 0, q.inFlight; left > 0 && i < len(q.slots); i++ {
				if sl := &q.slots[i]; sl.used {
					w.inflight = append(w.inflight, inflightEntry{kernel: sl.k.id, begin: sl.begin})
					left--
				}
			}
			snap.last = len(w.inflight)
			q.ckBegun, q.ckRecorded, q.ckDropped, q.ckMisused = q.begun, q.recorded, q.dropped, q.misused
		}
		q.mu.Unlock()
		w.snaps = append(w.snaps, snap)
	}
	s.mu.Lock()
	defs := s.defs
	s.defs = nil
	s.mu.Unlock()

	if s.bw != nil {
		s.writeDrained(defs)
	}
	if !final {
		s.maybeSummarise()
	}
}

func (s *Session) writeDrained(defs []byte) {
	w := &s.w
	s.write(defs)
	t := s.now()
	for i := range w.snaps {
		sn := &w.snaps[i]
		s.writeEvents(sn.q.id, sn.events)
		if sn.checkpoint {
			s.writeCheckpoint(t, sn)
		}
	}
	s.flush()
}

// flush hands the buffer to the file, so a process killed after a drain
// keeps it (the page cache outlives the process).
func (s *Session) flush() {
	if s.w.err == nil {
		if err := s.bw.Flush(); err != nil {
			s.fail(err)
		}
	}
	s.w.pending = 0
}

// write appends b to the file unless an earlier write failed.
func (s *Session) write(b []byte) {
	if s.w.err != nil || len(b) == 0 {
		return
	}
	if _, err := s.bw.Write(b); err != nil {
		s.fail(err)
	}
}

// fail keeps the first write error; the dispatches still buffered are lost
// with it (a failed bufio.Writer keeps nothing).
func (s *Session) fail(err error) {
	if s.w.err == nil {
		s.w.err = fmt.Errorf("%w: %s: %v", ErrWrite, s.opts.Path, err)
	}
	s.w.unwritten += s.w.pending
	s.w.pending = 0
}

// maxBatch keeps one events record well under probefile.MaxBody.
const maxBatch = 1 << 16

func (s *Session) writeEvents(queue uint32, evs []event) {
	w := &s.w
	if w.err != nil {
		w.unwritten += int64(len(evs))
		return
	}
	for len(evs) > 0 {
		n := min(len(evs), maxBatch)
		b := w.buf[:0]
		b = probefile.AppendRecord(b, probefile.TypeEvents, probefile.EventsFixed+n*probefile.EventLen)
		b = appendU32(b, queue)
		b = appendU32(b, uint32(n))
		for _, e := range evs[:n] {
			b = appendU32(b, e.kernel)
			b = appendU64(b, uint64(e.begin))
			b = appendU64(b, uint64(e.end))
		}
		w.buf = b
		s.write(b)
		if w.err != nil {
			w.unwritten += int64(len(evs))
			return
		}
		w.pending += int64(n)
		evs = evs[n:]
	}
}

func (s *Session) writeCheckpoint(t int64, sn *queueSnap) {
	w := &s.w
	entries := w.inflight[sn.first:sn.last]
	b := w.buf[:0]
	b = probefile.AppendRecord(b, probefile.TypeCheckpoint, probefile.CheckpointFixed+len(entries)*probefile.InFlightLen)
	b = appendU64(b, uint64(t))
	b = appendU32(b, sn.q.id)
	b = appendU64(b, sn.recorded)
	b = appendU64(b, sn.dropped)
	b = appendU32(b, uint32(len(entries)))
	for _, e := range entries {
		b = appendU32(b, e.kernel)
		b = appendU64(b, uint64(e.begin))
	}
	w.buf = b
	s.write(b)
}

func appendU32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func appendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }
