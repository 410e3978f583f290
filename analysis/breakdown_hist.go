package analysis

import (
	"math"
	"math/bits"
)

// hist is a log-bucketed histogram of signed durations with bounded memory:
// values below 128 have a bucket each; above, 64 buckets per power of two,
// so a bucket is at most 1/64 of its lower bound wide and its midpoint is
// within 0.8% of every value in it (histPrecision). Counts are kept only
// around the lowest and highest bucket used (a few hundred for a kernel's
// delays; grown below and above by doubling, so buckets that are not used
// count 0). Negative values (a kernel that started before its launch call
// returned) have their own buckets, by magnitude.
type hist struct {
	pos, neg buckets
}

// histPrecision is the largest relative error of a percentile read from a
// hist.
const histPrecision = 1.0 / 128

type buckets struct {
	lo     int
	counts []uint32
}

const (
	histExact = 128 // values below have a bucket each
	histSub   = 64  // buckets per power of two above
)

// bucketOf returns the bucket of v ≥ 0.
func bucketOf(v uint64) int {
	if v < histExact {
		return int(v)
	}
	l := bits.Len64(v) // ≥ 8
	shift := l - 7
	m := int(v >> uint(shift)) // 64..127
	return histExact + (shift-1)*histSub + (m - histSub)
}

// bucketMid is the value a bucket stands for: its midpoint.
func bucketMid(i int) uint64 {
	if i < histExact {
		return uint64(i)
	}
	shift := (i-histExact)/histSub + 1
	m := uint64((i-histExact)%histSub + histSub)
	lo := m << uint(shift)
	return lo + (uint64(1)<<uint(shift))/2
}

func (b *buckets) add(i int, n uint32) {
	switch {
	case b.counts == nil:
		b.lo = i
		b.counts = make([]uint32, 1, 8)
	case i < b.lo:
		// Room below as well, as append makes above: delays that come
		// ever shorter, one bucket lower each, would otherwise copy the
		// counts once a value.
		lo := max(min(i, b.lo-len(b.counts)), 0)
		grown := make([]uint32, len(b.counts)+b.lo-lo, cap(b.counts)+b.lo-lo)
		copy(grown[b.lo-lo:], b.counts)
		b.counts, b.lo = grown, lo
	case i >= b.lo+len(b.counts):
		b.counts = append(b.counts, make([]uint32, i-b.lo-len(b.counts)+1)...)
	}
	c := &b.counts[i-b.lo]
	if *c > math.MaxUint32-n {
		*c = math.MaxUint32
		return
	}
	*c += n
}

func (h *hist) add(v int64) {
	if v < 0 {
		h.neg.add(bucketOf(uint64(-(v+1))+1), 1)
		return
	}
	h.pos.add(bucketOf(uint64(v)), 1)
}

// merge adds o's counts to h.
func (h *hist) merge(o *hist) {
	for i, c := range o.pos.counts {
		if c > 0 {
			h.pos.add(o.pos.lo+i, c)
		}
	}
	for i, c := range o.neg.counts {
		if c > 0 {
			h.neg.add(o.neg.lo+i, c)
		}
	}
}

// quantile returns the value at rank ceil(q·n) (1-based), q in (0, 1], n the
// number of values added, as its bucket's midpoint.
func (h *hist) quantile(q float64, n int64) int64 {
	rank := int64(math.Ceil(q * float64(n)))
	rank = max(rank, 1)
	var seen int64
	for i := len(h.neg.counts) - 1; i >= 0; i-- {
		seen += int64(h.neg.counts[i])
		if seen >= rank {
			m := bucketMid(h.neg.lo + i)
			return -int64(min(m, math.MaxInt64))
		}
	}
	for i, c := range h.pos.counts {
		seen += int64(c)
		if seen >= rank {
			return int64(min(bucketMid(h.pos.lo+i), math.MaxInt64))
		}
	}
	return 0
}
