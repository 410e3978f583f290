package rocprof

import "github.com/tallyprof/tally/format/internal/reorder"

// overlaps counts dispatches that start before the previous dispatch on the
// same queue ended. Writers emit rows in completion order, not start order,
// so each queue's rows pass through a bounded reorder window
// (format/internal/reorder, sorted by start); a row that is still out of
// order after it counts as unchecked. Memory is O(queues × window), never
// O(dispatches).
type overlaps struct {
	queues         []queueOrder
	n, ns, unorder int64
}

const reorderWindow = 1024

type span struct{ start, end int64 }

type queueOrder struct {
	pending            reorder.Window[span]
	lastStart, lastEnd int64
	seen               bool
}

func (o *overlaps) add(q int, start, end int64) {
	for q >= len(o.queues) {
		o.queues = append(o.queues, queueOrder{})
	}
	qo := &o.queues[q]
	qo.pending.Push(start, span{start, end})
	if qo.pending.Len() > reorderWindow {
		o.check(qo, qo.pending.Pop())
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
		for qo.pending.Len() > 0 {
			o.check(qo, qo.pending.Pop())
		}
	}
}
