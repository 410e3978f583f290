package analysis

import (
	"math"
	"testing"
)

// Values that come ever smaller, a bucket lower each time (delays that
// shrink as a queue drains), grow the counts by doubling below as they do
// above: a few allocations, not one a value; and every bucket still reads
// its count.
func TestHistGrowsDownByDoubling(t *testing.T) {
	const n = 3000
	var h hist
	allocs := testing.AllocsPerRun(1, func() {
		h = hist{}
		for i := n - 1; i >= 0; i-- {
			h.add(int64(bucketMid(i)))
		}
	})
	if max := 2 * math.Log2(n); allocs > max {
		t.Fatalf("got %.0f allocations for %d values each a bucket lower, want at most %.0f (growth by doubling)", allocs, n, max)
	}
	for _, q := range []float64{0.001, 0.5, 1} {
		rank := int(math.Ceil(q * n))
		if got, want := h.quantile(q, n), int64(bucketMid(rank-1)); got != want {
			t.Errorf("p%v: got %d, want %d", q*100, got, want)
		}
	}
	if h.pos.lo < 0 || h.pos.lo+len(h.pos.counts) < n {
		t.Errorf("got counts for buckets %d to %d, want 0 to %d within them", h.pos.lo, h.pos.lo+len(h.pos.counts)-1, n-1)
	}
}
