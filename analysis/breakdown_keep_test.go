package analysis

import (
	"math/rand"
	"slices"
	"testing"
)

func drainKept() {
	keptChunks.mu.Lock()
	keptChunks.free = nil
	keptChunks.mu.Unlock()
}

// sweepOrder adds recs to a new records buffer and returns them as the
// sweep reads them, then closes the buffer.
func sweepOrder(t *testing.T, recs []bdRec) []bdRec {
	t.Helper()
	rs := newRecords(BreakdownOptions{TempDir: t.TempDir()}.withDefaults())
	for _, r := range recs {
		rs.add(&r)
	}
	m, err := rs.merger(true)
	if err != nil {
		t.Fatal(err)
	}
	var out []bdRec
	for r, ok := m.next(); ok; r, ok = m.next() {
		out = append(out, *r)
	}
	rs.close()
	return out
}

// A small trace's two chunks go to the next breakdown, which sorts its own
// records in them as in new ones; a trace that needed more chunks (cut
// from slabs) keeps none.
func TestRecordsKeepChunks(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	recs := func(n int) []bdRec {
		rs := make([]bdRec, n)
		for i := range rs {
			s := rng.Int63n(1 << 20)
			rs[i] = bdRec{start: s, end: s + rng.Int63n(100), queue: int32(i % 3), kernel: int32(i)}
		}
		return rs
	}
	drainKept()
	defer drainKept()
	first := recs(1000) // out of order: the sort's spare is made too
	sweepOrder(t, first)
	if n := len(keptChunks.free); n != 2 {
		t.Fatalf("after a small trace: %d chunks kept, want 2 (the filling one and the spare)", n)
	}
	if &keptChunks.free[0][:1][0] == &keptChunks.free[1][:1][0] {
		t.Fatalf("got the same chunk kept twice, want two distinct chunks")
	}
	second := recs(3000)
	got := sweepOrder(t, second)
	want := slices.Clone(second)
	slices.SortFunc(want, func(a, b bdRec) int { return recCmp(&a, &b) })
	if !slices.Equal(got, want) {
		t.Fatalf("a breakdown in kept chunks: records out of order or lost (%d of %d)", len(got), len(want))
	}
	if n := len(keptChunks.free); n != 2 {
		t.Fatalf("after the second small trace: %d chunks kept, want the same 2", n)
	}
	drainKept()
	sweepOrder(t, recs(3*chunkRecs))
	if n := len(keptChunks.free); n != 0 {
		t.Fatalf("after a trace of %d chunks: %d kept, want none", 3, n)
	}
}
