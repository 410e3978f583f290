package render

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/internal/safetext"
)

// kernelIdents are what tells one program's kernel rows apart: the name
// (shortened unless full, see shortName) and the part and category tags
// ("[init list]", "[memcpy]"), both escaped (safetext), so widths are what
// the terminal shows. A short name that another row of the program shares
// with the same tags steps back to a longer form, row by row, until every
// row is its own; rows whose full names and tags are equal stay as they
// are.
func kernelIdents(rows []analysis.KernelRow, full bool) (names, tags []string) {
	fullNames := make([]string, len(rows))
	tags = make([]string, len(rows))
	for i, r := range rows {
		k := r.Kernel
		fullNames[i] = k.Name
		if k.List != "" && k.List != "main" {
			tags[i] += " [" + safetext.Escape(k.List) + " list]"
		}
		if k.Category != "" && k.Category != "kernel" {
			tags[i] += " [" + safetext.Escape(k.Category) + "]"
		}
	}
	return shortLabels(fullNames, tags, full, safetext.Escape), tags
}

// ShortNames are the names a kernel table shows for kernels named full,
// one program's, in order: shortened (ShortName), with more of the name
// back where two different names would read the same, so that no two
// different names share a label, and escaped (safetext) as the text
// report's labels are: the HTML page shows a name as the text report does.
func ShortNames(full []string) []string {
	return shortLabels(full, make([]string, len(full)), false, safetext.Escape)
}

// shortLabels shortens full[i] as kernelIdents says, telling apart the
// names whose tags are equal; esc escapes each label.
func shortLabels(full, tags []string, whole bool, esc func(string) string) []string {
	level := make([]int, len(full))
	if whole {
		for i := range level {
			level[i] = levelFull
		}
	}
	names := make([]string, len(full))
	for i, n := range full {
		names[i] = esc(shortName(n, level[i]))
	}
	// Each pass raises every colliding row one level; numLevels passes
	// bring any collision to full names.
	for pass := 0; pass < numLevels; pass++ {
		raised := false
		for _, group := range collisions(names, tags) {
			for _, i := range group {
				if level[i] < levelFull {
					level[i]++
					names[i] = esc(shortName(full[i], level[i]))
					raised = true
				}
			}
		}
		if !raised {
			break
		}
	}
	return names
}

// collisions groups the indexes of rows whose name and tag are both
// equal, for rows that are not unique.
func collisions(names, tags []string) [][]int {
	type key struct{ name, tag string }
	idx := make(map[key][]int, len(names))
	for i := range names {
		k := key{names[i], tags[i]}
		idx[k] = append(idx[k], i)
	}
	var out [][]int
	for i := range names {
		if g := idx[key{names[i], tags[i]}]; len(g) > 1 && g[0] == i {
			out = append(out, g)
		}
	}
	return out
}

// ellipsis marks a name cut to fit the report's width.
const ellipsis = "…"

// fitNames cuts each name longer than its room (widths[i] runes; below 1:
// no limit) at the end, with an ellipsis where text was left out, as
// PyTorch's profiler tables do, keeping rows that differed apart: where a
// cut makes rows read the same (same tags too), each shows instead its
// start and the words where it differs from the row closest to it, then
// from the next closest, as many as it takes
// ("sm80_xmma_gemm…tilesize64x256x8…kernel__5x_cublas"); a row that cannot
// be told apart within its room keeps its whole name.
func fitNames(names, tags []string, widths []int) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = cutEnd(n, widths[i])
	}
	var pts [][]int // per row, where it differs from the others (diffPoints)
	k := make([]int, len(names))
	todo := colliding(out, tags, names)
	for len(todo) > 0 {
		if pts == nil {
			pts = diffPoints(names)
		}
		// Each colliding row takes one more point where it differs,
		// until its label changes; a row out of points keeps its whole
		// name.
		for _, i := range todo {
			p := pts[i]
			was := out[i]
			for out[i] == was {
				k[i]++
				if k[i] > len(p) {
					out[i] = names[i]
					break
				}
				l, ok := distinguish(names[i], sorted(p[:k[i]]), widths[i])
				if !ok {
					l = names[i]
				}
				out[i] = l
			}
		}
		todo = colliding(out, tags, names)
	}
	return out
}

// colliding lists the rows whose label and tag equal another row's while
// their names differ and are not shown whole.
func colliding(out, tags, names []string) []int {
	var rows []int
	for _, g := range collisions(out, tags) {
		for _, i := range g {
			if out[i] != names[i] && differs(names, g, i) {
				rows = append(rows, i)
			}
		}
	}
	return rows
}

func differs(names []string, group []int, i int) bool {
	for _, j := range group {
		if names[j] != names[i] {
			return true
		}
	}
	return false
}

// The walk of diffPoints is bounded, so that a program of many thousand
// kernels named alike stays linear: the closest names matter, and a row
// out of points shows its whole name.
const (
	maxWalk   = 256
	maxPoints = 16
)

// diffPoints lists for each name the rune indexes where it first differs
// from the other names (those not equal to it), each once, the closest
// name's first: the longest common prefix first. In sorted order the
// common prefix with a name further away is the least of the adjacent
// ones between, so a walk out from each name finds them.
func diffPoints(names []string) [][]int {
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	adj := make([]int, max(len(order)-1, 0)) // common prefix of neighbours, bytes
	for x := range adj {
		adj[x] = commonPrefix(names[order[x]], names[order[x+1]])
	}
	out := make([][]int, len(names))
	for x, i := range order {
		seen := map[int]bool{}
		walk := func(step int) {
			m := len(names[i])
			for y, n := x+step, 0; y >= 0 && y < len(order) && n < maxWalk && len(out[i]) < maxPoints; y, n = y+step, n+1 {
				m = min(m, adj[min(y, y-step)])
				if names[order[y]] == names[i] {
					continue
				}
				d := utf8.RuneCountInString(names[i][:m])
				if d >= runes(names[i]) {
					d = runes(names[i]) - 1 // the other extends this one: its end differs
				}
				if !seen[d] {
					seen[d] = true
					out[i] = append(out[i], d)
				}
				if m == 0 {
					return
				}
			}
		}
		walk(1)
		walk(-1)
		slices.SortFunc(out[i], func(a, b int) int { return b - a })
	}
	return out
}

// commonPrefix is the length in bytes of a's and b's common prefix, cut
// back to a whole rune.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	return n
}

func sorted(p []int) []int {
	s := slices.Clone(p)
	slices.Sort(s)
	return s
}

// distinguish fits name in width runes showing the word (see wordBreak)
// around each index of ds: as much of its start as fits, then each word
// after an ellipsis, the last one running on to the name's end when there
// is room. ok is false when the words alone do not fit.
func distinguish(name string, ds []int, width int) (string, bool) {
	r := []rune(name)
	n := len(r)
	if width < 1 || n <= width {
		return name, true
	}
	type seg struct{ s, e int }
	var segs []seg
	for _, d := range ds {
		s, e := d, d+1
		for s > 0 && !wordBreak(r[s-1]) {
			s--
		}
		for e < n && !wordBreak(r[e]) {
			e++
		}
		if e-s < 6 && s > 0 { // a short word reads better with the one before: "instance 1", "AUnaryFunctor<float"
			s--
			for s > 0 && wordBreak(r[s-1]) {
				s--
			}
			for s > 0 && !wordBreak(r[s-1]) {
				s--
			}
		}
		if k := len(segs) - 1; k >= 0 && s <= segs[k].e+2 { // next to the previous word: one span
			segs[k].e = max(segs[k].e, e)
			continue
		}
		segs = append(segs, seg{s, e})
	}
	build := func(head int, toEnd bool) string {
		var b []rune
		b = append(b, r[:head]...)
		last := head
		for k, sg := range segs {
			s := max(sg.s, last)
			if s > last {
				b = append(b, []rune(ellipsis)...)
			}
			e := sg.e
			if toEnd && k == len(segs)-1 {
				e = n
			}
			b = append(b, r[s:e]...)
			last = e
		}
		if last < n {
			b = append(b, []rune(ellipsis)...)
		}
		return string(b)
	}
	for _, toEnd := range []bool{true, false} {
		words := runes(build(0, toEnd))
		if words > width {
			continue
		}
		head := min(width-words, segs[0].s)
		if l := build(head, toEnd); runes(l) <= width {
			return l, true
		}
		// The head met the first word: one ellipsis fewer.
		if l := build(head+1, toEnd); runes(l) <= width {
			return l, true
		}
	}
	return "", false
}

// wordBreak is a character that ends a word of a kernel name: names are
// read in words between underscores, scope and template punctuation.
func wordBreak(c rune) bool {
	switch c {
	case '_', '<', '>', ',', ':', '(', ')', '[', ']', ' ', '.', '/', '-':
		return true
	}
	return false
}

// cutEnd keeps the first width-1 runes of s and an ellipsis (width below
// 1: s whole).
func cutEnd(s string, width int) string {
	if width < 1 || runes(s) <= width {
		return s
	}
	r := []rune(s)
	if width < 2 {
		return string(r[:width])
	}
	return string(r[:width-1]) + ellipsis
}

// runes is the width a label takes on a terminal, counting one column a
// rune as the tables do.
func runes(s string) int { return utf8.RuneCountInString(s) }
