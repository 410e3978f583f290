package kineto

import (
	"testing"
	"unsafe"
)

// inSlab reports whether chunk c lies in slab s.
func inSlab(s, c []drec) bool {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	hi := lo + uintptr(len(s))*unsafe.Sizeof(drec{})
	p := uintptr(unsafe.Pointer(unsafe.SliceData(c)))
	return p >= lo && p < hi
}

// A full-size log takes every chunk from one slab, in order and without
// overlap; when it closes, the slab goes to the next log of that size,
// and a log of another size makes its own.
func TestDlogSlab(t *testing.T) {
	drain(&slabs)
	defer drain(&slabs)
	const limit = 6 << maxChunkShift
	l := newDlog(limit, t.TempDir())
	for i := 0; i < 3*limit; i++ { // spills: chunks are reused
		if _, err := l.add(drec{corr: uint64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	s := l.slab
	if len(s) != limit {
		t.Fatalf("got a slab of %d records, want %d", len(s), limit)
	}
	if l.slabNext != 6 {
		t.Fatalf("got %d chunks handed out by the slab, want 6 (spilled chunks are reused, not taken anew)", l.slabNext)
	}
	for i, c := range l.chunks {
		if !inSlab(s, c) {
			t.Fatalf("chunk %d is not in the slab, want every chunk of a full-size log in it", i)
		}
	}
	l.close()
	if l.slab != nil || held(&slabs) != 1 {
		t.Fatalf("after close: the log holds a slab of %d records, the pool %d slabs; want none and 1", len(l.slab), held(&slabs))
	}
	same := newDlog(limit, t.TempDir())
	same.add(drec{})
	if &same.slab[0] != &s[0] {
		t.Fatalf("got a new slab for the next log of the same size, want the released one")
	}
	same.close()
	other := newDlog(limit+1<<maxChunkShift, t.TempDir())
	other.add(drec{})
	if len(other.slab) != limit+1<<maxChunkShift {
		t.Fatalf("a log of another size got a slab of %d records, want its own of %d", len(other.slab), limit+1<<maxChunkShift)
	}
	other.close()
}

// A log that cannot spill outgrows its slab: the chunks past it are made
// one by one, and every record is still there.
func TestDlogSlabOutgrown(t *testing.T) {
	const limit = 4 << maxChunkShift // the smallest log with full-size chunks
	l := newDlog(limit, t.TempDir())
	defer l.close()
	l.noSpill = true
	const n = 7 << maxChunkShift
	for i := int64(0); i < n; i++ {
		if _, err := l.add(drec{ts: i}); err != nil {
			t.Fatal(err)
		}
	}
	if len(l.chunks) != 7 || !inSlab(l.slab, l.chunks[3]) || inSlab(l.slab, l.chunks[4]) {
		t.Fatalf("got %d chunks, want 7, the first four in the slab and the rest not", len(l.chunks))
	}
	for i := int64(0); i < n; i++ {
		if r := l.at(i); r == nil || r.ts != i {
			t.Fatalf("at(%d) = %v, want the record with ts %d", i, r, i)
		}
	}
}

// The pool keeps at most maxReusedLarge slabs.
func TestSlabsBounded(t *testing.T) {
	drain(&slabs)
	defer drain(&slabs)
	var made [][]drec
	for range maxReusedLarge + 2 {
		made = append(made, takeSlab(1<<maxChunkShift))
	}
	for _, s := range made {
		slabs.put(s)
	}
	if n := held(&slabs); n != maxReusedLarge {
		t.Fatalf("got %d slabs kept, want %d", n, maxReusedLarge)
	}
}
