// Package ranges finds the outermost annotation range (NVTX, ROCTx) open on
// a thread at a given time. Readers add each thread's ranges sorted by
// start; each range remembers its parent (the range open around its start)
// and the root of its nesting, so a lookup is a binary search plus a short
// walk up the nesting, whatever the number of ranges.
package ranges

import (
	"sort"
	"strings"
)

// Set holds ranges by thread (or any int64 key).
type Set struct {
	byKey map[int64]*track
	n     int32
	cur   *track
	key   int64
	stack []int32
}

type track struct {
	base       int32 // global index of the track's first range
	start, end []int64
	parent     []int32
	root       []int32
}

// Add appends a range [start, end] of key and returns its global index
// (0, 1, 2, … in the order added). Ranges must come grouped by key, sorted
// by start, and for equal starts the longer first (SQL: ORDER BY key,
// start, end DESC). Ranges that overlap without nesting (start/end ranges
// may) are treated as nested in the one open before them.
func (s *Set) Add(key, start, end int64) int32 {
	if s.byKey == nil {
		s.byKey = map[int64]*track{}
	}
	if s.cur == nil || key != s.key {
		s.cur = s.byKey[key]
		if s.cur == nil {
			s.cur = &track{base: s.n}
			s.byKey[key] = s.cur
		}
		s.key = key
		s.stack = s.stack[:0]
	}
	t := s.cur
	j := int32(len(t.start))
	for len(s.stack) > 0 && t.end[s.stack[len(s.stack)-1]] < start {
		s.stack = s.stack[:len(s.stack)-1]
	}
	parent, root := int32(-1), j
	if len(s.stack) > 0 {
		parent = s.stack[len(s.stack)-1]
		root = t.root[parent]
	}
	t.start = append(t.start, start)
	t.end = append(t.end, end)
	t.parent = append(t.parent, parent)
	t.root = append(t.root, root)
	s.stack = append(s.stack, j)
	s.n++
	return t.base + j
}

// Len is the number of ranges added.
func (s *Set) Len() int { return int(s.n) }

// Outermost returns the global index of the outermost range of key that
// contains ts (start ≤ ts ≤ end), or -1.
func (s *Set) Outermost(key, ts int64) int32 {
	t := s.byKey[key]
	if t == nil {
		return -1
	}
	i := int32(sort.Search(len(t.start), func(i int) bool { return t.start[i] > ts })) - 1
	for i >= 0 && t.end[i] < ts {
		i = t.parent[i]
	}
	if i < 0 {
		return -1
	}
	return t.base + t.root[i]
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
