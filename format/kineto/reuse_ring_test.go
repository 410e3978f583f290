package kineto

import (
	"fmt"
	"testing"

	"github.com/tallyprof/tally/format/internal/reorder"
)

// drainReuse empties the kept rings and windows, so the next read makes
// its own.
func drainReuse() {
	drain(&rings)
	drain(&windows)
}

// A read leaves its linker ring and overlap windows for the next read,
// whose result is the one of a read that made its own: every sample read
// after the others (their rings and windows, of every size) against the
// sample read alone.
func TestReuseRingsWindows(t *testing.T) {
	paths := samples(t)
	data := make([]string, len(paths))
	want := make([]*result, len(paths))
	for i, p := range paths {
		data[i] = string(decompress(t, p))
		drainReuse()
		want[i] = readWith(t, data[i], nil, defaultConfig)
	}
	if nr, nw := held(&rings), held(&windows); nr == 0 || nw == 0 {
		t.Fatalf("after a read: %d rings and %d windows kept, want some of each", nr, nw)
	}
	for round := range 2 {
		for i, p := range paths {
			got := readWith(t, data[i], nil, defaultConfig)
			if d := diffResults(want[i], got); d != "" {
				t.Fatalf("round %d, %s: got a read with earlier reads' rings and windows that differs from a fresh read, want the same: %s", round, p, d)
			}
		}
	}
}

// A ring grows in place, in its memory, to exactly the slots a ring
// reallocated at each doubling would have: colliding ids, ids far apart,
// every doubling.
func TestRingGrowsInPlace(t *testing.T) {
	calls := []callInfo{{kind: callKind{launch: true}}}
	drainReuse()
	fresh := newLinker(&calls)
	fresh.ring = make([]rtRec, ringStart) // reallocated as it grows
	kept := newLinker(&calls)
	if cap(kept.ring) != ringSize || len(kept.ring) != ringStart {
		t.Fatalf("a ring of %d slots and capacity %d, want %d and %d", len(kept.ring), cap(kept.ring), ringStart, ringSize)
	}
	inMem := &kept.ring[0]
	// Ids in runs with gaps, some a multiple of the ring apart (the same
	// slot in the small ring, different ones once it grows).
	var corr uint64 = 1
	for i := range 3 * ringStart * 4 {
		switch {
		case i%7 == 0:
			corr += ringStart
		case i%11 == 0:
			corr += 3 * ringStart / 2
		default:
			corr++
		}
		rt := rtRec{corr: corr, ts: int64(i), dur: 1, state: rtUnmatched}
		fresh.ringPut(rt)
		kept.ringPut(rt)
		if len(fresh.ring) != len(kept.ring) {
			t.Fatalf("put %d: rings of %d and %d slots, want equal", i, len(kept.ring), len(fresh.ring))
		}
	}
	if len(fresh.ring) <= 4*ringStart {
		t.Fatalf("the ring grew to %d slots, want more than %d (several doublings)", len(fresh.ring), 4*ringStart)
	}
	if &kept.ring[0] != inMem {
		t.Fatalf("the ring moved as it grew, want it grown in place")
	}
	for i := range fresh.ring {
		if kept.ring[i] != fresh.ring[i] {
			t.Fatalf("slot %d: got %+v, want %+v", i, kept.ring[i], fresh.ring[i])
		}
	}
	if fmt.Sprint(kept.far) != fmt.Sprint(fresh.far) {
		t.Fatalf("calls pushed out of the ring: got %d, want %d", len(kept.far), len(fresh.far))
	}
}

// What is kept is bounded: at most maxReusedLarge rings, never one made
// otherwise than by newLinker, and no window larger than the bound.
func TestReuseBounded(t *testing.T) {
	calls := []callInfo{}
	drainReuse()
	var ls []*linker
	for range maxReusedLarge + 1 {
		ls = append(ls, newLinker(&calls))
	}
	odd := newLinker(&calls)
	for _, l := range ls {
		l.release()
	}
	odd.ring = make([]rtRec, ringStart)
	odd.release()
	if n := held(&rings); n != maxReusedLarge {
		t.Fatalf("kept %d rings, want %d", n, maxReusedLarge)
	}
	drainReuse()
	odd.ring = make([]rtRec, ringStart)
	odd.release()
	if n := held(&rings); n != 0 {
		t.Fatalf("kept %d rings after releasing one of %d records, want none (not a ring's full memory)", n, ringStart)
	}
	var o overlaps
	o.qs = []ovQueue{{}}
	for i := range 2 * maxReusedWindow {
		o.qs[0].pending.Push(int64(i), ovRec{start: int64(i)})
	}
	for o.qs[0].pending.Len() > 0 {
		o.qs[0].pending.Pop()
	}
	o.release()
	if nw := held(&windows); nw != 0 {
		t.Fatalf("kept %d windows over the bound, want none", nw)
	}
	l := newLinker(&calls)
	l.release()
	o.qs = []ovQueue{{pending: reorder.Window[ovRec]{}}}
	o.qs[0].pending.Push(1, ovRec{start: 1})
	o.release() // a window still holding records is not kept
	if nr, nw := held(&rings), held(&windows); nr != 1 || nw != 0 {
		t.Fatalf("kept %d rings and %d windows, want 1 ring and no window (not empty)", nr, nw)
	}
	drainReuse()
}
