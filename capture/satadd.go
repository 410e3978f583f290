package capture

import "math"

// SatAdd adds two non-negative counts or durations, stopping at
// math.MaxInt64 instead of wrapping negative: readers and the tables sum
// figures taken from their input, which may be absurd, and a total must
// never turn negative (a wrapped count reads as no gap, a wrapped time as a
// share above 100%).
//
// A negative term counts as zero, so a total never goes down: a duration
// or count that comes out negative (an end before its start, a garbage
// field) adds nothing rather than eat into what was already summed. No
// caller subtracts through SatAdd: a difference is computed first, and a
// negative one is clamped here.
func SatAdd(a, b int64) int64 {
	a, b = max(a, 0), max(b, 0)
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
