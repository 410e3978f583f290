package nsys

import (
	"errors"
	"slices"
	"sort"
)

// Nsight Systems writes each table in time order, and correlation ids
// grow with time within a process: its rows are already in the reader's
// order, or nearly (kernels of several streams start in another order than
// they were launched). So the direct scan sorts them with a window of
// sortWindow rows held in memory, never the whole table: window emits the
// rows sorted as long as each row is larger than every row at least
// sortWindow rows before it in the stream; windowCheck says, in a first
// pass that keeps only a few numbers, whether a stream is such.

// sortWindow is the number of rows a window holds twice over (2 × 32 Ki
// rows of at most 72 bytes: under 5 MiB per stream).
var sortWindow = 1 << 15

// errOrder is a stream that window cannot sort: a row came after one
// larger than it was emitted. The first pass rules this out; in the second
// it means the file changed in between.
var errOrder = errors.New("rows out of the order the first pass saw: the file changed while it was read")

// window sorts the rows src yields (in file order) with bounded memory.
type window[T any] struct {
	src     func(*T) (bool, error)
	cmp     func(a, b *T) int
	shift   func(kept []T) // optional: called when the rows not yet emitted move to the front
	buf     []T
	out     int // next row to emit
	ready   int // buf[:ready] are final
	last    T
	emitted bool
	eof     bool
}

func newWindow[T any](src func(*T) (bool, error), cmp func(a, b *T) int) *window[T] {
	return &window[T]{src: src, cmp: cmp}
}

// next returns the next row in sorted order (valid until the following
// call), or nil at the end.
func (w *window[T]) next() (*T, error) {
	for w.out >= w.ready {
		if w.eof {
			return nil, nil
		}
		n := copy(w.buf, w.buf[w.ready:])
		w.buf = w.buf[:n]
		w.out, w.ready = 0, 0
		if w.shift != nil {
			w.shift(w.buf)
		}
		size := 2 * sortWindow
		for len(w.buf) < size {
			if len(w.buf) == cap(w.buf) {
				// Small tables stay small; a large one gets its whole
				// window at once, not by doubling.
				c := 1024
				if cap(w.buf) >= c {
					c = size
				}
				w.buf = slices.Grow(w.buf, c-len(w.buf))
			}
			w.buf = w.buf[:len(w.buf)+1]
			ok, err := w.src(&w.buf[len(w.buf)-1])
			if err != nil {
				return nil, err
			}
			if !ok {
				w.buf = w.buf[:len(w.buf)-1]
				w.eof = true
				break
			}
		}
		if !w.sorted() {
			sort.Sort(byCmp[T]{w.buf, w.cmp}) // by index: rows compared in place, never copied to the heap
		}
		w.ready = len(w.buf)
		if !w.eof {
			w.ready = sortWindow
		}
		if w.ready > 0 && w.emitted && w.cmp(&w.buf[0], &w.last) < 0 {
			return nil, errOrder
		}
		if w.ready > 0 {
			w.last, w.emitted = w.buf[w.ready-1], true
		}
	}
	w.out++
	return &w.buf[w.out-1], nil
}

func (w *window[T]) sorted() bool {
	for i := 1; i < len(w.buf); i++ {
		if w.cmp(&w.buf[i], &w.buf[i-1]) < 0 {
			return false
		}
	}
	return true
}

type byCmp[T any] struct {
	s   []T
	cmp func(a, b *T) int
}

func (b byCmp[T]) Len() int           { return len(b.s) }
func (b byCmp[T]) Less(i, j int) bool { return b.cmp(&b.s[i], &b.s[j]) < 0 }
func (b byCmp[T]) Swap(i, j int)      { b.s[i], b.s[j] = b.s[j], b.s[i] }

// windowCheck tells, from a stream's keys in file order, whether window
// can sort it: each key must exceed every key at least sortWindow positions
// before it. It keeps the largest key of blocks of sortWindow/4 rows and
// compares with the blocks wholly behind that distance and a few more
// (stricter than needed, never looser).
type windowCheck struct {
	n      int
	recent [4]int64 // largest key of the last four blocks, by block number mod 4
	old    int64    // largest key of every block before them
	hasOld bool
	bad    bool
}

func newWindowCheck() *windowCheck {
	c := &windowCheck{}
	for i := range c.recent {
		c.recent[i] = minKey
	}
	return c
}

const minKey = -1 << 63

func (c *windowCheck) add(key int64) {
	block := sortWindow / 4
	if c.n > 0 && c.n%block == 0 {
		b := c.n / block
		if b >= 4 {
			if c.hasOld {
				c.old = max(c.old, c.recent[b%4])
			} else {
				c.old, c.hasOld = c.recent[b%4], true
			}
		}
		c.recent[b%4] = minKey
	}
	if c.hasOld && key <= c.old {
		c.bad = true
	}
	c.recent[(c.n/block)%4] = max(c.recent[(c.n/block)%4], key)
	c.n++
}
