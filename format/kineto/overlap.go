package kineto

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/reorder"
)

// Overlaps on one stream (spec §12). A stream runs its work in launch
// order, but a kernel may legitimately start before the previous one on
// its stream ends: programmatic dependent launch (Hopper and later; cuBLASLt
// split-K reduce kernels do it routinely) starts the dependent grid early,
// and clock artefacts move events by tens of ns. Such overlaps are in the
// tables and make nothing incomplete, so they are a note. An event that
// lies wholly inside the time of earlier work on its stream (it starts no
// earlier and ends no later) cannot come from either: a dependent kernel
// waits for its primary to complete, so it cannot end first. That is
// impossible data or work written twice, and stays a gap
// (contained_events).
//
// Events are compared in start order. Files are nearly sorted per stream
// (the samples are at most 4,197 events out of place), so a reorder window
// per queue (format/internal/reorder) sorts them with bounded memory; an event that arrives later
// than the window allows cannot be compared and is counted as unchecked.
// The same start-ordered pass finds the waits of unrecorded_device_work
// (see wait.go).

// overlapBudget bounds the records held in all reorder windows together.
const overlapBudget = 1 << 18

func overlapWindow(queues int) int {
	return min(max(overlapBudget/max(queues, 1), 256), 8192)
}

type ovRec struct {
	start, end int64
	lend       int64 // end of the launch call; -1 when unknown
	graph      bool  // replayed by a graph launch
	kname      uint32
	off        int64
}

type ovQueue struct {
	pending   reorder.Window[ovRec] // in start order
	maxEnd    int64
	lastStart int64
	seen      bool
	launched  bool // an event with a known launch was checked
}

// ovClass counts one class of same-stream overlap.
type ovClass struct {
	count   int64
	total   int64
	max     int64
	items   []capture.Item
	omitted int64
}

type overlaps struct {
	window    int
	qs        []ovQueue
	partial   ovClass // overlaps: a note
	contained ovClass // events inside earlier work: a gap
	unordered int64
	waits     *waits
}

func (o *overlaps) add(r *reader, q uint32, rec ovRec, base int64) {
	for int(q) >= len(o.qs) {
		w, _ := windows.get()
		o.qs = append(o.qs, ovQueue{pending: w})
	}
	qs := &o.qs[q]
	qs.pending.Push(rec.start, rec)
	if qs.pending.Len() > o.window {
		o.check(r, q, qs.pending.Pop(), base)
	}
}

func (o *overlaps) flush(r *reader, base int64) {
	for q := range o.qs {
		for o.qs[q].pending.Len() > 0 {
			o.check(r, uint32(q), o.qs[q].pending.Pop(), base)
		}
	}
}

func (c *ovClass) add(ov int64, it capture.Item) {
	c.count++
	c.total = capture.SatAdd(c.total, ov)
	c.max = max(c.max, ov)
	if len(c.items) < capture.MaxItems {
		c.items = append(c.items, it)
	} else {
		c.omitted++
	}
}

func (o *overlaps) check(r *reader, q uint32, rec ovRec, base int64) {
	qs := &o.qs[q]
	if qs.seen && rec.start < qs.lastStart {
		o.unordered++
		return
	}
	if o.waits != nil && rec.lend >= 0 {
		// The stream was free from the later of the launch's end and the
		// end of its earlier work; an idle stretch until the start is a
		// wait the stream's own recorded work does not explain.
		from := rec.lend
		if qs.seen {
			from = max(from, qs.maxEnd)
		}
		// A graph's nodes wait on the graph's own edges (host nodes,
		// external events) that the trace does not record: only a graph
		// kernel that is the first launched work of its stream counts.
		if !rec.graph || !qs.launched {
			o.waits.candidate(r, q, rec, from, !qs.launched)
		}
		qs.launched = true
	}
	if qs.seen && rec.start < qs.maxEnd {
		if ov := min(rec.end, qs.maxEnd) - rec.start; ov > 0 {
			it := capture.Item{
				Where:  fmt.Sprintf("byte %d", rec.off),
				Kernel: r.knames[rec.kname].name,
				Time:   capture.TimeOf(rec.start + base),
			}
			if rec.end <= qs.maxEnd {
				it.What = fmt.Sprintf("lies wholly inside earlier work on %s (%d ns, ending %d ns before it)", r.queueLabel(q), rec.end-rec.start, qs.maxEnd-rec.end)
				o.contained.add(ov, it)
			} else {
				it.What = fmt.Sprintf("starts %d ns before the previous event on %s ends", ov, r.queueLabel(q))
				o.partial.add(ov, it)
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

// maxReusedWindow bounds the reorder windows kept for the next read
// (reuse.go): 4096 records, 224 KiB.
const maxReusedWindow = 1 << 12

// release gives the emptied windows to the next read.
func (o *overlaps) release() {
	for i := range o.qs {
		if w := &o.qs[i].pending; w.Len() == 0 && w.Cap() <= maxReusedWindow {
			windows.put(o.qs[i].pending)
		}
		o.qs[i].pending = reorder.Window[ovRec]{}
	}
}
