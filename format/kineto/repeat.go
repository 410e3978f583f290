package kineto

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// Repeated device events (docs/formats/kineto.md, "Record identity").
// Kineto records carry no id of their own: correlation ids are shared by
// every kernel a CUDA-graph launch replays, so they cannot say that an
// event was written twice. What can is the event itself: one stream runs
// one piece of work at a time, so two device events on the same stream
// with the same start, the same positive duration, the same category and
// name and the same correlation are one event written twice. The repeat is
// not handed on (it never reaches the linkage, which would link it to its
// original's launch call a second time, nor the tables) and is a
// duplicate_event gap; unchecked, it reads as contained_events and its time
// counts twice.
//
// Times the writer may have clamped or rounded to 0 (ts 0, dur 0) are no
// identity: distinct sub-µs kernels of a graph do share them.
//
// The check keeps, per stream, the last repeatWindow events in time order
// (files are nearly sorted per stream, so an event is almost always
// appended): a repeat is found while its first reading is among them.
// Memory is O(streams), never O(events).

// repeatWindow is the events kept per stream for the check.
const repeatWindow = 256

// repeatKey is what makes two device events one.
type repeatKey struct {
	ts, dur int64
	corr    uint64
	kname   uint32
	corrSt  uint8 // corrNone, corrID or corrBad
}

const (
	corrNone uint8 = iota
	corrID
	corrBad
)

type repeatRec struct {
	repeatKey
	off int64 // input offset of the event
}

// repeatWin is one stream's window, sorted by ts; a[head:] are live.
type repeatWin struct {
	a    []repeatRec
	head int
}

// repeatItem is a repeat kept for the gap's items, formatted at the end
// (stream names and the time base are known only then).
type repeatItem struct {
	queue      uint32
	kname      uint32
	ts, dur    int64
	off, first int64
}

type repeats struct {
	wins  []repeatWin
	n     int64
	ns    int64
	items []repeatItem
}

// seen reports whether k on queue q repeats an event in the window, and
// adds it when it does not; first is the offset of the event it repeats.
func (rp *repeats) seen(q uint32, k repeatKey, off int64) (first int64, dup bool) {
	if k.ts == 0 || k.dur <= 0 {
		return 0, false
	}
	for int(q) >= len(rp.wins) {
		rp.wins = append(rp.wins, repeatWin{})
	}
	w := &rp.wins[q]
	if w.a == nil {
		w.a = newRepeatWindow()
	}
	n := len(w.a)
	pos := n
	if n > w.head && w.a[n-1].ts >= k.ts {
		// Out of order or an equal start: look among the equal starts.
		lo, hi := w.head, n
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if w.a[m].ts < k.ts {
				lo = m + 1
			} else {
				hi = m
			}
		}
		for pos = lo; pos < n && w.a[pos].ts == k.ts; pos++ {
			if w.a[pos].repeatKey == k {
				return w.a[pos].off, true
			}
		}
	}
	w.a = append(w.a, repeatRec{})
	copy(w.a[pos+1:], w.a[pos:n])
	w.a[pos] = repeatRec{repeatKey: k, off: off}
	if len(w.a)-w.head > repeatWindow {
		w.head++
		if w.head >= repeatWindow {
			m := copy(w.a, w.a[w.head:])
			w.a, w.head = w.a[:m], 0
		}
	}
	return 0, false
}

// repeatWindowCap holds a full window and the events slid out of it
// before they are moved down (seen).
const repeatWindowCap = 2*repeatWindow + 1

// newRepeatWindow returns an empty window at its full size, one an
// earlier read gave back when there is one: grown by doubling, a stream's
// window allocated twice its size, fresh memory in every read of a
// directory of ranks.
func newRepeatWindow() []repeatRec {
	if a, ok := repeatWindows.get(); ok {
		return a[:0]
	}
	return make([]repeatRec, 0, repeatWindowCap)
}

// release gives the windows to the next read.
func (rp *repeats) release() {
	for i := range rp.wins {
		if a := rp.wins[i].a; cap(a) == repeatWindowCap {
			repeatWindows.put(a[:0])
		}
		rp.wins[i] = repeatWin{}
	}
}

// repeatOf checks the device event being read; it reports whether it is a
// repeat, counted here and skipped by the caller.
func (r *reader) repeatOf(q, kname uint32) bool {
	e := &r.ev
	k := repeatKey{ts: e.ts, dur: e.dur, kname: kname}
	switch {
	case e.badCorr:
		k.corrSt = corrBad
	case e.hasCorr:
		k.corrSt, k.corr = corrID, e.corr
	}
	first, dup := r.repeats.seen(q, k, e.off)
	if !dup {
		return false
	}
	rp := &r.repeats
	rp.n++
	rp.ns = capture.SatAdd(rp.ns, e.dur)
	if len(rp.items) < capture.MaxItems {
		rp.items = append(rp.items, repeatItem{queue: q, kname: kname, ts: e.ts, dur: e.dur, off: e.off, first: first})
	}
	return true
}

func (r *reader) repeatGap(a *capture.Accounting, tb timeBase) {
	rp := &r.repeats
	if rp.n == 0 {
		return
	}
	g := a.Gap(capture.DuplicateEvent, "")
	g.Count = rp.n
	for _, it := range rp.items {
		g.Items = append(g.Items, capture.Item{
			What:   fmt.Sprintf("repeats the device event at byte %d on %s (same start, %d ns duration, name and correlation): counted once", it.first, r.queueLabel(it.queue), it.dur),
			Where:  fmt.Sprintf("byte %d", it.off),
			Kernel: r.knames[it.kname].name,
			Time:   capture.TimeOf(it.ts + tb.add),
		})
	}
	g.ItemsOmitted = rp.n - int64(len(g.Items))
	g.SetFigure("repeated_ns", rp.ns)
	g.Summary = fmt.Sprintf("%s one already read on the same stream (same start, duration, name and correlation: one stream cannot run two such events), so the file holds them twice; each is counted once and the repeats (%s) are not in the tables: check the tool that wrote or merged this file.",
		units.Plural(rp.n, "device event repeats", "device events repeat"), ns(rp.ns))
}
