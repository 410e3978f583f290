package reorder

import (
	"math/rand"
	"slices"
	"testing"
)

type rec struct {
	start int64
	seq   int // arrival order
}

// TestWindowSorts feeds nearly sorted records (each displaced by less than
// the window) through a window and checks they come out sorted by start,
// equal starts in arrival order, and that the window stays bounded.
func TestWindowSorts(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const size, n = 64, 20000
	var in []rec
	for i := range n {
		in = append(in, rec{start: int64(i/3) + rng.Int63n(size/4), seq: i})
	}
	var w Window[rec]
	var out []rec
	for _, r := range in {
		w.Push(r.start, r)
		if w.Len() > size {
			out = append(out, w.Pop())
		}
		if got := len(w.a); got > 2*size+1024 {
			t.Fatalf("window holds %d slots, want at most %d", got, 2*size+1024)
		}
	}
	for w.Len() > 0 {
		out = append(out, w.Pop())
	}
	want := slices.Clone(in)
	slices.SortStableFunc(want, func(a, b rec) int { return int(a.start - b.start) })
	if !slices.Equal(out, want) {
		for i := range out {
			if out[i] != want[i] {
				t.Fatalf("record %d: got %+v, want %+v", i, out[i], want[i])
			}
		}
		t.Fatalf("got %d records, want %d", len(out), len(want))
	}
}

// TestWindowLate: a record later than the window allows comes out after a
// later start (the reader counts it as unchecked), never lost.
func TestWindowLate(t *testing.T) {
	var w Window[int64]
	var out []int64
	for _, s := range []int64{10, 20, 30, 5, 40} {
		w.Push(s, s)
		if w.Len() > 2 {
			out = append(out, w.Pop())
		}
	}
	for w.Len() > 0 {
		out = append(out, w.Pop())
	}
	if want := []int64{10, 5, 20, 30, 40}; !slices.Equal(out, want) {
		t.Errorf("got %v, want %v", out, want)
	}
}

// BenchmarkWindow pushes Kineto-sized records that are nearly sorted, as
// a stream's kernels are, through a window of 8192.
func BenchmarkWindow(b *testing.B) {
	type ovRec struct {
		start, end, lend int64
		graph            bool
		kname            uint32
		off              int64
	}
	rng := rand.New(rand.NewSource(1))
	starts := make([]int64, 1<<16)
	for i := range starts {
		starts[i] = int64(i)*1000 + rng.Int63n(3000)
	}
	b.ReportAllocs()
	for b.Loop() {
		var w Window[ovRec]
		for _, s := range starts {
			w.Push(s, ovRec{start: s, end: s + 500})
			if w.Len() > 8192 {
				w.Pop()
			}
		}
		for w.Len() > 0 {
			w.Pop()
		}
	}
}
