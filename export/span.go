package export

import "math"

// span is the time a program's dispatches cover, earliest start to latest
// end, summed while an input streams: the program's clock is stated only
// once the input is read, so a writer decides at the end whether the span
// is on a ns clock it can place on a timeline.
type span struct{ lo, hi int64 }

func newSpan() *span { return &span{lo: math.MaxInt64, hi: math.MinInt64} }

// add widens the span to [begin, end].
func (s *span) add(begin, end int64) { s.lo, s.hi = min(s.lo, begin), max(s.hi, end) }
