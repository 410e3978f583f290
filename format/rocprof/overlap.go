package rocprof

import "container/heap"

// overlaps counts dispatches that start before the previous dispatch on the
// same queue ended. Writers emit rows in completion order, not start order,
// so each queue's rows pass through a bounded reorder window (a min-heap
// by start); a row that is still out of order after it counts as
// unchecked. Memory is O(queues × window), never O(dispatches).
type overlaps struct {
	queues         []queueOrder
	n, ns, unorder int64
}

const reorderWindow = 4096

type span struct{ start, end int64 }

type spanHeap []span

func (h spanHeap) Len() int           { return len(h) }
func (h spanHeap) Less(i, j int) bool { return h[i].start < h[j].start }
func (h spanHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *spanHeap) Push(x any)        { *h = append(*h, x.(span)) }
func (h *spanHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type queueOrder struct {
	pending            spanHeap
	lastStart, lastEnd int64
	seen               bool
}

func (o *overlaps) add(q int, start, end int64) {
	for q >= len(o.queues) {
		o.queues = append(o.queues, queueOrder{})
	}
	qo := &o.queues[q]
	heap.Push(&qo.pending, span{start, end})
	if len(qo.pending) > reorderWindow {
		o.check(qo, heap.Pop(&qo.pending).(span))
	}
}

func (o *overlaps) check(qo *queueOrder, s span) {
	switch {
	case !qo.seen:
		qo.seen = true
	case s.start < qo.lastStart:
		o.unorder++
		return
	case s.start < qo.lastEnd:
		o.n++
		o.ns += min(qo.lastEnd, s.end) - s.start
	}
	qo.lastStart = s.start
	qo.lastEnd = max(qo.lastEnd, s.end)
}

// flush checks the rows still in the windows.
func (o *overlaps) flush() {
	for i := range o.queues {
		qo := &o.queues[i]
		for len(qo.pending) > 0 {
			o.check(qo, heap.Pop(&qo.pending).(span))
		}
	}
}
