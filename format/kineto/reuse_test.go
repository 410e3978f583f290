package kineto

import (
	"testing"
)

// A read leaves its scanner block and log chunks for the next read, which
// reads its own input as if they were new: the same result as a read with
// buffers of its own.
func TestReuse(t *testing.T) {
	paths := samples(t)
	first, second := decompress(t, paths[0]), decompress(t, paths[1])
	readWith(t, string(first), nil, defaultConfig)
	block, ok := newest(&blocks)
	if nc := held(&slabs); !ok || nc == 0 {
		t.Fatalf("after a read: %d blocks and %d log slabs kept, want some of each", held(&blocks), nc)
	}
	kept := &block[0]
	got := readWith(t, string(second), nil, defaultConfig)
	// A block one byte larger is never kept: a read of its own.
	own := defaultConfig
	own.bufSize++
	want := readWith(t, string(second), nil, own)
	if d := diffResults(want, got); d != "" {
		t.Fatalf("got a read with the previous read's buffers that differs from a read of its own, want the same: %s", d)
	}
	if block, ok := newest(&blocks); !ok || &block[0] != kept {
		t.Fatalf("got a newest block (ok %v) other than the first read's, want the second read to take and return that block", ok)
	}
}

// held is how many buffers a pool keeps now.
func held[T any](c *reuse[T]) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.free)
}

// newest is the buffer a pool hands out next, left in the pool; ok is
// false when the pool is empty.
func newest[T any](c *reuse[T]) (x T, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.free); n > 0 {
		return c.free[n-1], true
	}
	return x, false
}

// drain empties a pool, so the next read makes its own buffer.
func drain[T any](c *reuse[T]) {
	c.mu.Lock()
	c.free = nil
	c.mu.Unlock()
}
