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
	blocks.mu.Lock()
	nb := len(blocks.free)
	var kept *byte
	if nb > 0 {
		kept = &blocks.free[nb-1][0]
	}
	blocks.mu.Unlock()
	chunks.mu.Lock()
	nc := len(chunks.free)
	chunks.mu.Unlock()
	if nb == 0 || nc == 0 {
		t.Fatalf("after a read: %d blocks and %d log chunks kept, want some of each", nb, nc)
	}
	got := readWith(t, string(second), nil, defaultConfig)
	// A block one byte larger is never kept: a read of its own.
	own := defaultConfig
	own.bufSize++
	want := readWith(t, string(second), nil, own)
	if d := diffResults(want, got); d != "" {
		t.Fatalf("a read with the previous read's buffers differs: %s", d)
	}
	blocks.mu.Lock()
	defer blocks.mu.Unlock()
	if n := len(blocks.free); n == 0 || &blocks.free[n-1][0] != kept {
		t.Fatalf("the second read did not take and return the first read's block")
	}
}
