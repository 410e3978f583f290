package capture

import "math"

// SatAdd adds two non-negative counts or durations, stopping at
// math.MaxInt64 instead of wrapping negative: readers sum figures taken
// from their input, which may be absurd, and a total must never turn
// negative. A negative term counts as zero, so a sum never goes down.
func SatAdd(a, b int64) int64 {
	a, b = max(a, 0), max(b, 0)
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
