package rocprof

import "sort"

// overlaps counts dispatches that start before the previous dispatch on the
// same queue ended. Writers emit rows in completion order, not start order,
// so each queue's rows pass through a bounded reorder window (a min-heap
// by start); a row that is still out of order after it counts as
// unchecked. Memory is O(queues × window), never O(dispatches).
type overlaps struct {
	queues         []queueOrder
	n, ns, unorder int64
}

const reorderWindow = 1024

type span struct{ start, end int64 }

// spanQueue keeps the pending rows sorted by start. Rows mostly arrive in
// start order, so a push is usually an append and a pop takes the front;
// a late row is inserted by binary search.
type spanQueue struct {
	buf  []span
	head int
}

func (q *spanQueue) len() int { return len(q.buf) - q.head }

func (q *spanQueue) push(x span) {
	n := len(q.buf)
	if n == q.head || q.buf[n-1].start <= x.start {
		q.buf = append(q.buf, x)
		return
	}
	i := q.head + sort.Search(n-q.head, func(i int) bool { return q.buf[q.head+i].start > x.start })
	q.buf = append(q.buf, span{})
	copy(q.buf[i+1:], q.buf[i:n])
	q.buf[i] = x
}

func (q *spanQueue) pop() span {
	x := q.buf[q.head]
	q.head++
	if q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
	} else if q.head >= 1024 && q.head*2 >= len(q.buf) {
		n := copy(q.buf, q.buf[q.head:])
		q.buf, q.head = q.buf[:n], 0
	}
	return x
}

type queueOrder struct {
	pending            spanQueue
	lastStart, lastEnd int64
	seen               bool
}

func (o *overlaps) add(q int, start, end int64) {
	for q >= len(o.queues) {
		o.queues = append(o.queues, queueOrder{})
	}
	qo := &o.queues[q]
	qo.pending.push(span{start, end})
	if qo.pending.len() > reorderWindow {
		o.check(qo, qo.pending.pop())
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
		for qo.pending.len() > 0 {
			o.check(qo, qo.pending.pop())
		}
	}
}
