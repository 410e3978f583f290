package render

import "strings"

// DefaultWidth is the width, in columns, the text report's tables keep to
// unless told otherwise (TextOptions.Width): names are cut (fitNames),
// marked with an ellipsis, to fit it.
const DefaultWidth = 120

// minNameWidth is the least room a name column gets, however wide the
// numbers beside it: a table a little wider than the limit reads better
// than names cut to a few letters.
const minNameWidth = 24

// table is a text table of right-aligned figures followed by one
// left-aligned label column (a kernel or program name), laid out as the
// report always has: four spaces, each figure column right-aligned with
// two spaces before it, then two spaces and the label.
type table struct {
	head  []string   // figure column titles
	label string     // the label column's title
	rows  [][]string // figure cells per row
}

// widths are the figure columns' widths (the widest cell or title).
func (t *table) widths() []int {
	w := make([]int, len(t.head))
	for i, h := range t.head {
		w[i] = runes(h)
	}
	for _, r := range t.rows {
		for i, c := range r {
			w[i] = max(w[i], runes(c))
		}
	}
	return w
}

// labelWidth is the room the label column has within width columns (0:
// no limit).
func (t *table) labelWidth(width int) int {
	if width <= 0 {
		return 0
	}
	used := 4 + 2
	for _, w := range t.widths() {
		used += w + 2
	}
	return max(width-used, minNameWidth)
}

// write prints the title line and the rows, each with its label (already
// escaped and fitted).
func (t *table) write(p *printer, labels []string) {
	w := t.widths()
	line := func(cells []string, label string) {
		p.raw(AlignedRow("    ", w, cells, label) + "\n")
	}
	line(t.head, t.label)
	for i, r := range t.rows {
		line(r, labels[i])
	}
}

// AlignedRow is one line of a table: indent, each cell right-aligned in
// its column of widths[i] runes after two spaces, then two spaces and the
// label (already escaped and fitted). The diff tables share it.
func AlignedRow(indent string, widths []int, cells []string, label string) string {
	var b strings.Builder
	b.WriteString(indent)
	for i, c := range cells {
		b.WriteString(strings.Repeat(" ", widths[i]+2-runes(c)))
		b.WriteString(c)
	}
	b.WriteString("  ")
	b.WriteString(label)
	return b.String()
}
