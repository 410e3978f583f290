package htmlreport

import (
	"github.com/tallyprof/tally/capture"
)

// Default bounds of the dispatches a Timeline keeps: enough to see a run's
// shape, few enough that the page stays small and opens fast.
const (
	DefaultPerQueue = 2000
	DefaultMax      = 10000
)

// Timeline is a capture.Sink that keeps a bounded sample of timed dispatches
// for the report's per-queue strips: the first PerQueue of each queue, at
// most Max in all. It counts what it did not keep, so the page can say the
// strip is a sample. Memory is O(Max), never O(dispatches).
type Timeline struct {
	PerQueue int
	Max      int

	samples []sample
	queues  map[capture.QueueID]*queueCount
	// untimed counts dispatches without a device time; aggregated the
	// records standing for several dispatches (no single times).
	untimed, aggregated int64
}

type sample struct {
	program    capture.ProgramID
	queue      capture.QueueID
	kernel     capture.KernelID
	begin, end int64
}

type queueCount struct {
	seen, kept int64
}

// NewTimeline returns a Timeline with the default bounds.
func NewTimeline() *Timeline { return &Timeline{PerQueue: DefaultPerQueue, Max: DefaultMax} }

// Dispatch keeps d while under the bounds.
func (t *Timeline) Dispatch(_ *capture.Capture, d *capture.Dispatch) {
	if d.Aggregate != nil {
		t.aggregated = capture.SatAdd(t.aggregated, d.Aggregate.Count)
		return
	}
	if !d.Device.Valid {
		t.untimed++
		return
	}
	if t.queues == nil {
		t.queues = map[capture.QueueID]*queueCount{}
	}
	q := t.queues[d.Queue]
	if q == nil {
		q = &queueCount{}
		t.queues[d.Queue] = q
	}
	q.seen++
	if q.kept >= int64(t.PerQueue) || len(t.samples) >= t.Max {
		return
	}
	q.kept++
	t.samples = append(t.samples, sample{program: d.Program, queue: d.Queue, kernel: d.Kernel, begin: d.Device.Begin, end: d.Device.End})
}

// limited is t cut to about n samples, spread evenly over its queues
// (the first ones of each kept), with the counts a cut strip states; t
// itself is left as it is. A page of many inputs shares one budget among
// them, so 64 ranks do not draw 64 full samples.
func (t *Timeline) limited(n int) *Timeline {
	if t == nil || len(t.samples) <= n || len(t.queues) == 0 {
		return t
	}
	per := int64(max(n/len(t.queues), 1))
	out := &Timeline{PerQueue: int(per), Max: n, queues: map[capture.QueueID]*queueCount{}, untimed: t.untimed, aggregated: t.aggregated}
	for q, c := range t.queues {
		out.queues[q] = &queueCount{seen: c.seen}
	}
	for _, s := range t.samples {
		if q := out.queues[s.queue]; q.kept < per {
			q.kept++
			out.samples = append(out.samples, s)
		}
	}
	return out
}
