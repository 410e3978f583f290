package golden

import (
	"fmt"
	"strings"
)

// maxDiffCells bounds the table of the line diff (lines of want × lines of
// got after the common head and tail are set aside); past it the differing
// middle is shown as removed and added whole, still a correct diff.
const maxDiffCells = 4 << 20

// maxDiffLines caps the lines Diff returns: a test log stays readable when
// everything changed (the .got file holds it all).
const maxDiffLines = 200

// Diff returns a unified diff (three lines of context) from want to got,
// line by line, with the file names wantName and gotName in its header;
// "" when they are equal.
func Diff(wantName, gotName string, want, got []byte) string {
	if string(want) == string(got) {
		return ""
	}
	a, b := splitLines(string(want)), splitLines(string(got))
	ops := lineOps(a, b)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", wantName, gotName)
	lines := 0
	for _, h := range hunks(ops, 3) {
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", span(h.aStart, h.aLen), span(h.bStart, h.bLen))
		for _, o := range ops[h.from:h.to] {
			if lines == maxDiffLines {
				fmt.Fprintf(&sb, "… (diff cut at %d lines)\n", maxDiffLines)
				return sb.String()
			}
			lines++
			switch o.kind {
			case ' ':
				sb.WriteString(" " + a[o.a] + "\n")
			case '-':
				sb.WriteString("-" + a[o.a] + "\n")
			case '+':
				sb.WriteString("+" + b[o.b] + "\n")
			}
		}
	}
	if lines == 0 {
		// Same lines: the bytes differ in the final newline alone.
		sb.WriteString("\\ the files differ only in their final newline\n")
	}
	return sb.String()
}

// splitLines splits s into lines without their newlines; a final newline
// does not make an empty last line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// op is one line of the diff: kept (' '), removed ('-', a's line a) or
// added ('+', b's line b).
type op struct {
	kind byte
	a, b int
}

// lineOps turns a into b with a longest common subsequence of lines.
func lineOps(a, b []string) []op {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	var ops []op
	for i := range head {
		ops = append(ops, op{' ', i, i})
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	if (len(ma)+1)*(len(mb)+1) > maxDiffCells {
		for i := range ma {
			ops = append(ops, op{'-', head + i, 0})
		}
		for j := range mb {
			ops = append(ops, op{'+', 0, head + j})
		}
	} else {
		// lcs[i][j] is the LCS length of ma[i:] and mb[j:].
		w := len(mb) + 1
		lcs := make([]int32, (len(ma)+1)*w)
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
				} else {
					lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
				ops = append(ops, op{' ', head + i, head + j})
				i, j = i+1, j+1
			case j == len(mb) || i < len(ma) && lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
				ops = append(ops, op{'-', head + i, 0})
				i++
			default:
				ops = append(ops, op{'+', 0, head + j})
				j++
			}
		}
	}
	for k := range tail {
		ops = append(ops, op{' ', len(a) - tail + k, len(b) - tail + k})
	}
	return ops
}

// hunk is ops[from:to], covering a's lines from aStart (1-based) and b's
// from bStart.
type hunk struct {
	from, to     int
	aStart, aLen int
	bStart, bLen int
}

// hunks groups the changes of ops with ctx lines of context around each,
// merging groups whose context would touch.
func hunks(ops []op, ctx int) []hunk {
	var out []hunk
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		from := max(k-ctx, 0)
		end := k // one past the last change of this hunk
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			next := end
			for next < len(ops) && ops[next].kind == ' ' {
				next++
			}
			if next == len(ops) || next-end > 2*ctx {
				break
			}
			end = next
		}
		to := min(end+ctx, len(ops))
		h := hunk{from: from, to: to}
		// Line numbers: a's and b's lines before ops[from].
		for _, o := range ops[:from] {
			if o.kind != '+' {
				h.aStart++
			}
			if o.kind != '-' {
				h.bStart++
			}
		}
		for _, o := range ops[from:to] {
			if o.kind != '+' {
				h.aLen++
			}
			if o.kind != '-' {
				h.bLen++
			}
		}
		out = append(out, h)
		k = to
	}
	return out
}

// span writes a hunk's range as unified diffs do: start,len with start
// 1-based, or the line before an empty range.
func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
