package kineto

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// Device work the trace does not hold (unrecorded_device_work). CUPTI
// records only work launched after it is enabled, so a profile opened while
// the GPU still runs earlier work shows a stream whose first recorded
// kernel starts long after its launch call returned, with nothing recorded
// running meanwhile. The same holds later in a trace for any wait no
// recorded event explains (another process on the GPU, a host callback in
// the stream).
//
// Two passes. While dispatches are emitted, the start-ordered walk of each
// stream (overlap.go) proposes candidates: events whose stream stayed idle
// from max(launch end, end of the stream's earlier work) until their start
// for longer than the threshold. A second replay of the dispatch log finds,
// for each candidate, the latest moment recorded work on the same device
// (any stream) ran during its wait. A stream that waited on recorded work
// elsewhere (a cross-stream event) starts as that work ends, so only the
// idle stretch between the device's last recorded work and the start is
// unexplained; it is reported when above the threshold. Candidates are
// rare (an idle stream with queued work), and capped.

// DefaultWaitThreshold is the idle wait, in ns, above which a queued
// launch is reported: launch latency is µs; 1 ms is far beyond it.
const DefaultWaitThreshold = 1_000_000

// maxWaitCandidates bounds the candidates checked in the second pass.
const maxWaitCandidates = 1 << 14

type waitCand struct {
	q          uint32
	dev        int64
	from, to   int64 // the idle stretch of the stream (file time base)
	lend       int64
	kname      uint32
	off        int64
	first      bool  // the stream's first launched event
	busyTo     int64 // latest moment in [from, to] recorded device work ran
	maxTo      int64 // prefix maximum of to, in sorted order
	uncoveredN int64 // to - max(from, busyTo)
}

type waits struct {
	threshold int64
	cands     []waitCand
	unchecked int64
	byDev     map[int64][]int32 // sorted by from
}

func newWaits(threshold int64) *waits {
	if threshold <= 0 {
		threshold = DefaultWaitThreshold
	}
	return &waits{threshold: threshold}
}

func (w *waits) candidate(r *reader, q uint32, rec ovRec, from int64, first bool) {
	if rec.start-from <= w.threshold {
		return
	}
	if len(w.cands) >= maxWaitCandidates {
		w.unchecked++
		return
	}
	w.cands = append(w.cands, waitCand{busyTo: -1 << 63, q: q, dev: r.queues[q].key.dev, from: from, to: rec.start, lend: rec.lend, kname: rec.kname, off: rec.off, first: first})
}

// index sorts candidates per device by the start of their wait.
func (w *waits) index() {
	w.byDev = map[int64][]int32{}
	for i := range w.cands {
		d := w.cands[i].dev
		w.byDev[d] = append(w.byDev[d], int32(i))
	}
	for _, list := range w.byDev {
		sort.Slice(list, func(i, j int) bool { return w.cands[list[i]].from < w.cands[list[j]].from })
		m := int64(-1 << 63)
		for _, i := range list {
			m = max(m, w.cands[i].to)
			w.cands[i].maxTo = m
		}
	}
}

// cover adds one recorded device event [s, e) on device dev.
func (w *waits) cover(dev, s, e int64) {
	list := w.byDev[dev]
	if len(list) == 0 || e <= s {
		return
	}
	// Candidates whose wait begins before e; walk back while any of them
	// may still end after s.
	k := sort.Search(len(list), func(i int) bool { return w.cands[list[i]].from >= e })
	for i := k - 1; i >= 0; i-- {
		c := &w.cands[list[i]]
		if c.maxTo <= s {
			break
		}
		if c.to > s {
			c.busyTo = max(c.busyTo, min(e, c.to))
		}
	}
}

// settle computes each candidate's unexplained idle stretch.
func (w *waits) settle() {
	for i := range w.cands {
		c := &w.cands[i]
		c.uncoveredN = c.to - max(c.from, c.busyTo)
	}
}

// measure runs the second pass when there are candidates.
func (r *reader) measureWaits(w *waits) error {
	if len(w.cands) == 0 {
		return nil
	}
	w.index()
	err := r.log.replay(func(rec *drec) {
		w.cover(r.queues[rec.queue].key.dev, rec.ts, rec.ts+rec.dur)
	})
	w.settle()
	return err
}

func (r *reader) waitGap(a *capture.Accounting, w *waits, add int64) {
	if w == nil {
		return
	}
	var g *capture.Gap
	var total, first, later int64
	streams := map[uint32]bool{}
	sort.SliceStable(w.cands, func(i, j int) bool { return w.cands[i].to < w.cands[j].to })
	for i := range w.cands {
		c := &w.cands[i]
		if c.uncoveredN <= w.threshold {
			continue
		}
		if g == nil {
			g = a.Gap(capture.UnrecordedDeviceWork, "")
		}
		lag := c.to - c.lend
		what := fmt.Sprintf("%s: first launched event waited %s after its launch returned, the last %s of it with no recorded work running on the device", r.queueLabel(c.q), ns(lag), ns(c.uncoveredN))
		if c.first {
			first++
		} else {
			later++
			what = fmt.Sprintf("%s: waited %s after its launch returned and after the stream's earlier work, the last %s of it with no recorded work running on the device (no recorded event explains it: another process, a host callback, or work the profiler missed)", r.queueLabel(c.q), ns(c.to-c.from), ns(c.uncoveredN))
		}
		streams[c.q] = true
		total = capture.SatAdd(total, c.uncoveredN)
		g.Add(capture.Item{What: what, Where: fmt.Sprintf("byte %d", c.off), Kernel: r.knames[c.kname].name, Time: capture.TimeOf(c.lend + add)})
	}
	if g == nil {
		if w.unchecked == 0 {
			return
		}
		g = a.Gap(capture.UnrecordedDeviceWork, "")
	}
	g.SetFigure("total_ns", total)
	g.SetFigure("streams", int64(len(streams)))
	g.SetFigure("first_on_stream", first)
	g.SetFigure("later_waits", later)
	g.SetFigure("threshold_ns", w.threshold)
	unchecked := ""
	if w.unchecked > 0 {
		g.SetFigure("unchecked_waits", w.unchecked)
		g.AddN(w.unchecked)
		unchecked = fmt.Sprintf("; %d more idle waits were not checked against other streams (too many to hold)", w.unchecked)
	}
	var parts []string
	if first > 0 {
		parts = append(parts, fmt.Sprintf("on %s the first recorded kernel started long after its launch returned while nothing recorded ran on the device: the device was busy with work launched before the profiler started (CUPTI records only what is launched after it is enabled)", units.Plural(first, "stream", "streams")))
	}
	if later > 0 {
		parts = append(parts, fmt.Sprintf("%s later in the trace that no recorded event explains (another process on the same device, a host callback in the stream, or work the profiler missed)", units.Plural(later, "wait", "waits")))
	}
	g.Summary = fmt.Sprintf("the device ran work the trace does not hold, %s in total beyond %s waits: %s%s; the tables miss that work; start the profiler after a warm-up that drains the queue (torch.cuda.synchronize() before the window), or profile the other process too.",
		ns(total), ns(w.threshold), strings.Join(parts, "; "), unchecked)
}
