// Package intset writes sets of integers (layer numbers) compactly, as
// "-1..0, 2..5, 7", and finds the holes between the smallest and largest member,
// without ever enumerating a hole: a set {0, 1e9} costs two entries.
package intset

import (
	"sort"
	"strconv"
	"strings"
)

// Range is the closed interval [Lo, Hi].
type Range struct{ Lo, Hi int64 }

// Of returns the sorted, merged ranges of the members of set.
func Of(set map[int64]bool) []Range {
	keys := make([]int64, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	var out []Range
	for _, k := range keys {
		if n := len(out); n > 0 && out[n-1].Hi+1 == k {
			out[n-1].Hi = k
			continue
		}
		out = append(out, Range{k, k})
	}
	return out
}

// Holes returns the ranges between consecutive ranges of rs (which Of
// returns sorted and merged).
func Holes(rs []Range) []Range {
	var out []Range
	for i := 1; i < len(rs); i++ {
		out = append(out, Range{rs[i-1].Hi + 1, rs[i].Lo - 1})
	}
	return out
}

// Count is how many integers rs holds.
func Count(rs []Range) int64 {
	var n int64
	for _, r := range rs {
		n += r.Hi - r.Lo + 1
	}
	return n
}

// String writes rs as "a, b-c, …"; "none" when empty.
func String(rs []Range) string {
	if len(rs) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(r.Lo, 10))
		if r.Hi != r.Lo {
			b.WriteString("..")
			b.WriteString(strconv.FormatInt(r.Hi, 10))
		}
	}
	return b.String()
}
