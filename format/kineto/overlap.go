package kineto

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
)

// Overlaps on one stream (spec §12): a stream runs one piece of work at a
// time, so a device event that starts before an earlier one on the same
// queue ended has suspect times (or is a concurrent graph branch). Events
// are compared in start order. Files are nearly sorted per stream (the
// samples are at most 4,197 events out of place), so a reorder window per
// queue sorts them with bounded memory; an event that arrives later than
// the window allows cannot be compared and is counted as unchecked.

// overlapBudget bounds the records held in all reorder windows together.
const overlapBudget = 1 << 18

func overlapWindow(queues int) int {
	return min(max(overlapBudget/max(queues, 1), 256), 8192)
}

type ovRec struct {
	start, end int64
	kname      uint32
	off        int64
}

type ovQueue struct {
	pending   ovHeap
	maxEnd    int64
	lastStart int64
	seen      bool
}

type overlaps struct {
	window    int
	qs        []ovQueue
	count     int64
	total     int64
	max       int64
	unordered int64
	items     []capture.Item
	omitted   int64
}

func (o *overlaps) add(r *reader, q uint32, rec ovRec, base int64) {
	for int(q) >= len(o.qs) {
		o.qs = append(o.qs, ovQueue{})
	}
	qs := &o.qs[q]
	qs.pending.push(rec)
	if len(qs.pending) > o.window {
		o.check(r, q, qs.pending.pop(), base)
	}
}

func (o *overlaps) flush(r *reader, base int64) {
	for q := range o.qs {
		for len(o.qs[q].pending) > 0 {
			o.check(r, uint32(q), o.qs[q].pending.pop(), base)
		}
	}
}

func (o *overlaps) check(r *reader, q uint32, rec ovRec, base int64) {
	qs := &o.qs[q]
	if qs.seen {
		if rec.start < qs.lastStart {
			o.unordered++
			return
		}
		if rec.start < qs.maxEnd {
			ov := min(rec.end, qs.maxEnd) - rec.start
			if ov > 0 {
				o.count++
				o.total += ov
				o.max = max(o.max, ov)
				if len(o.items) < capture.MaxItems {
					o.items = append(o.items, capture.Item{
						What:   fmt.Sprintf("overlaps the previous event on %s by %d ns", r.queueLabel(q), ov),
						Where:  fmt.Sprintf("byte %d", rec.off),
						Kernel: r.knames[rec.kname].name,
						Time:   capture.TimeOf(rec.start + base),
					})
				} else {
					o.omitted++
				}
			}
		}
	}
	if !qs.seen {
		qs.seen, qs.lastStart, qs.maxEnd = true, rec.start, rec.end
		return
	}
	qs.lastStart = max(qs.lastStart, rec.start)
	qs.maxEnd = max(qs.maxEnd, rec.end)
}

// ovHeap is a min-heap by start, written out to avoid boxing each record
// in an interface as container/heap would.
type ovHeap []ovRec

func (h *ovHeap) push(x ovRec) {
	*h = append(*h, x)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p].start <= a[i].start {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *ovHeap) pop() ovRec {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && a[l].start < a[m].start {
			m = l
		}
		if l+1 < n && a[l+1].start < a[m].start {
			m = l + 1
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}
