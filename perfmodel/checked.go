package perfmodel

import (
	"math"
	"math/bits"
)

// A recorded shape or convolution parameter is whatever the trace wrote:
// a garbage one (an int64 maximum, a corrupted file) must give no model,
// never a product that wrapped or an Inf that fails the JSON report. A
// real tensor has fewer than 2^63 elements, so its element count is an
// int64; the arithmetic below says when it is not.

// mulInt returns a·b for a, b ≥ 0, and false when it passes MaxInt64.
func mulInt(a, b int64) (int64, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

// sumInt returns the sum of terms (each of any sign), and false when a
// partial sum leaves the int64 range.
func sumInt(terms ...int64) (int64, bool) {
	var s int64
	for _, t := range terms {
		r := s + t
		if (t > 0 && r < s) || (t < 0 && r > s) {
			return 0, false
		}
		s = r
	}
	return s, true
}

// elems is the number of elements of a shape, false when a dim is
// negative or the count passes MaxInt64.
func elems(s []int64) (int64, bool) {
	n := int64(1)
	for _, d := range s {
		var ok bool
		if n, ok = mulInt(n, d); !ok {
			return 0, false
		}
	}
	return n, true
}

// finite reports whether a cost's figures are numbers a report can print:
// finite and not negative.
func finite(c Cost) bool {
	for _, v := range []float64{c.FLOPs, c.Bytes} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return false
		}
	}
	return true
}
