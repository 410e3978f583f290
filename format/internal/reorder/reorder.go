// Package reorder puts one queue's records back in start order with
// bounded memory, for readers that compare each record with the work
// before it on its queue (same-queue overlaps, idle waits). Trace files are
// nearly sorted per queue — Kineto's by a few thousand events at most,
// rocprofv3 writes rows in completion order — so a reader holds each
// queue's latest records in a Window and takes the earliest out once the
// window is full; a record that arrives later than the window allows comes
// out after a later start, and the reader counts it as unchecked.
package reorder

import (
	"unsafe"

	"github.com/tallyprof/tally/internal/hugemem"
)

// Window holds records sorted by start; equal starts keep their arrival
// order. It is not a heap: a record almost always goes at the end (one
// append; a binary heap would cost log(window) swaps per record even on
// sorted input), one out of place is inserted by binary search, and
// records leave from the front.
type Window[T any] struct {
	a    []entry[T]
	head int
}

type entry[T any] struct {
	start int64
	rec   T
}

// Len is the number of records held.
func (w *Window[T]) Len() int { return len(w.a) - w.head }

// Cap is how many records the window holds before it grows: a caller that
// keeps an emptied window for reuse bounds what it keeps by it.
func (w *Window[T]) Cap() int { return cap(w.a) }

// Push adds r, which starts at start.
func (w *Window[T]) Push(start int64, r T) {
	n := len(w.a)
	at := n
	if n > w.head && w.a[n-1].start > start {
		// Out of place: after the last record that starts no later, so
		// equal starts keep their arrival order.
		lo, hi := w.head, n-1
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if w.a[m].start <= start {
				lo = m + 1
			} else {
				hi = m
			}
		}
		at = lo
	}
	// Grown in place and filled field by field: appending a composite
	// literal copies the record twice, which costs more than the rest.
	if n < cap(w.a) {
		w.a = w.a[:n+1]
	} else {
		w.grow()
	}
	if at < n {
		copy(w.a[at+1:], w.a[at:n])
	}
	w.a[at].start, w.a[at].rec = start, r
}

// grow doubles the window's memory and adds one record to its length. A
// large window's memory is advised for huge pages (internal/hugemem): the
// windows of a 200 MB Kineto trace took 750 page faults growing.
func (w *Window[T]) grow() {
	n := len(w.a)
	c := max(2*cap(w.a), 16)
	var a []entry[T]
	if c*int(unsafe.Sizeof(entry[T]{})) >= hugeFrom {
		a = hugemem.Make[entry[T]](c)[:n+1]
	} else {
		a = make([]entry[T], n+1, c)
	}
	copy(a, w.a)
	w.a = a
}

// hugeFrom is the size from which a window's memory is advised for huge
// pages: smaller ones share their pages with the rest of the heap.
const hugeFrom = 256 << 10

// Pop removes and returns the record with the earliest start. The window
// must not be empty.
func (w *Window[T]) Pop() T {
	r := w.a[w.head].rec
	w.head++
	if w.head == len(w.a) {
		w.a, w.head = w.a[:0], 0
	} else if w.head >= 1024 && w.head*2 >= len(w.a) {
		// Slide the held records to the front once the popped ones are
		// the larger part: memory stays O(window).
		n := copy(w.a, w.a[w.head:])
		w.a, w.head = w.a[:n], 0
	}
	return r
}
