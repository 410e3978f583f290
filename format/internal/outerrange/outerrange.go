// Package outerrange finds the outermost annotation range (NVTX, ROCTx) open on
// a thread at a given time: of the ranges containing that time, the one
// that started first. Only that question is asked, so only the parts of
// ranges that can answer it are kept: a range inside an earlier one is
// dropped at once, and one that outlasts the range before it keeps just
// the part after it. What remains per thread are disjoint segments sorted
// by start — a binary search per lookup, and memory for the outermost
// ranges only, however many per-operator ranges a framework opens inside
// them.
package outerrange

import (
	"math"
	"sort"
	"strings"
)

// Set holds ranges by thread (or any int64 key).
type Set struct {
	byKey map[int64]*track
	n     int32
}

type track struct {
	start, end []int64
	id         []int32
	lastEnd    int64
}

// Range is a range [Start, End] of Key, for callers that sort their ranges
// before they Add them.
type Range struct{ Key, Start, End int64 }

// Before orders ranges as Add takes them: by key, then by start, and for
// equal starts the longer first.
func (a Range) Before(b Range) bool {
	if a.Key != b.Key {
		return a.Key < b.Key
	}
	if a.Start != b.Start {
		return a.Start < b.Start
	}
	return a.End > b.End
}

// Add offers a range [start, end] of key. Each key's ranges must come
// sorted by start, and for equal starts the longer first (SQL: ORDER BY
// key, start, end DESC). It returns the id the range is known by (0, 1, 2,
// … over the ranges kept) and true, or false when the range lies inside
// one added before it and can never be the outermost.
func (s *Set) Add(key, start, end int64) (int32, bool) {
	if s.byKey == nil {
		s.byKey = map[int64]*track{}
	}
	t := s.byKey[key]
	if t == nil {
		t = &track{lastEnd: math.MinInt64}
		s.byKey[key] = t
	}
	if end <= t.lastEnd {
		return -1, false
	}
	if start <= t.lastEnd {
		start = t.lastEnd + 1 // before that, an earlier range is outermost
	}
	t.start = append(t.start, start)
	t.end = append(t.end, end)
	t.id = append(t.id, s.n)
	t.lastEnd = end
	s.n++
	return s.n - 1, true
}

// Len is the number of ranges kept.
func (s *Set) Len() int { return int(s.n) }

// Outermost returns the id of the outermost range of key that contains ts
// (start ≤ ts ≤ end), or -1.
func (s *Set) Outermost(key, ts int64) int32 {
	t := s.byKey[key]
	if t == nil {
		return -1
	}
	i := sort.Search(len(t.start), func(i int) bool { return t.start[i] > ts }) - 1
	if i < 0 || t.end[i] < ts {
		return -1
	}
	return t.id[i]
}

// TrimInstance drops a trailing instance number from a range name, so that
// repeated ranges name one program: "ProfilerStep#3" → "ProfilerStep",
// PyTorch's "aten::view, op_id = 314290" → "aten::view". Written out
// rather than as a regexp: frameworks open a range per operator, and this
// runs once per range.
func TrimInstance(s string) string {
	digits := len(s)
	for digits > 0 && s[digits-1] >= '0' && s[digits-1] <= '9' {
		digits--
	}
	if digits == len(s) {
		return s
	}
	if head, ok := strings.CutSuffix(s[:digits], ", op_id = "); ok {
		return head
	}
	if strings.HasSuffix(s[:digits], "#") {
		return s[:digits-1]
	}
	return s
}
