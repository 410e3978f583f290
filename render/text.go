package render

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/internal/units"
)

// TextOptions tunes the text report. The zero value is the default report.
type TextOptions struct {
	// Items caps how many occurrences each gap lists (default 10).
	Items int
	// Top caps the kernel rows per program (0: all); the rest are summed
	// in one line, so nothing drops out of the totals.
	Top int
	// InputOrder prints the programs in the order the input showed them;
	// by default they come costliest first (ProgramOrder).
	InputOrder bool
	// FullNames prints kernel names whole, as the input wrote them; by
	// default they are shortened (ShortName) and cut to Width.
	FullNames bool
	// Width is the tables' width in columns: 0 is DefaultWidth, below 0
	// no limit. Names are cut to fit (never with FullNames).
	Width int
	// NoLegend leaves out the legend of the columns: a report of several
	// sections (one per input) states it once, in the first.
	NoLegend bool
	// Breakdown, when not nil, is the capture's time breakdown: a block per
	// device before the tables, and a launch line per program.
	Breakdown *analysis.Breakdown
	// LaunchStats adds a table of launch statistics per kernel under each
	// program's kernel table (--launch-stats).
	LaunchStats bool
}

func (o *TextOptions) width() int {
	switch {
	case o.FullNames || o.Width < 0:
		return 0
	case o.Width == 0:
		return DefaultWidth
	}
	return o.Width
}

// Text writes the human report: the clock first, then the programs (a
// summary, a legend of the columns, one table per program, each followed by
// its own gaps), then the capture-wide accounting. It returns the first
// write error.
func Text(w io.Writer, c *capture.Capture, r *analysis.Tables, opt TextOptions) error {
	if opt.Items <= 0 {
		opt.Items = 10
	}
	bw := bufio.NewWriter(w)
	p := &printer{w: bw}

	p.f("times: %s\n", clockLine(c.Clock))
	p.f("input: %s\n", inputLine(c))
	for _, note := range c.CommentLines() {
		p.f("%s\n", note)
	}

	empty := c.Accounting.Find(capture.EmptyCapture)
	if empty != nil && empty.Count > 0 {
		p.f("\nNO DISPATCH RECORDED: %s\n", empty.Summary)
	}

	var order []int // the programs shown, in the order shown
	for _, i := range ProgramOrder(r, opt.InputOrder) {
		pt := &r.Programs[i]
		if pt.Dispatches == 0 && len(programGaps(c, pt.Program.Name)) == 0 && empty != nil {
			continue
		}
		order = append(order, i)
	}
	writeSummary(p, r, order, opt)
	if opt.Breakdown != nil && (empty == nil || empty.Count == 0) {
		writeBreakdown(p, c, opt.Breakdown, opt)
	}
	if !opt.NoLegend {
		writeLegend(p, r, order)
	}
	shown := map[string]bool{} // programs whose gaps were printed under their table
	for _, i := range order {
		pt := &r.Programs[i]
		p.f("\n")
		writeProgram(p, c, pt, opt)
		shown[pt.Program.Name] = true
	}
	if r.Ops != nil {
		writeOps(p, r.Ops, opt)
	}

	p.f("\n")
	writeAccounting(p, c, shown, opt)
	if p.err != nil {
		return p.err
	}
	return bw.Flush()
}

type printer struct {
	w   io.Writer
	err error
}

// f prints with every string argument escaped (safetext): names, paths
// and gap text come from the input, and none may start a line of its own
// or send the terminal an escape sequence.
func (p *printer) f(format string, args ...any) {
	if p.err != nil {
		return
	}
	_, p.err = safetext.Fprintf(p.w, format, args...)
}

func clockLine(k capture.Clock) string {
	if k.Description != "" {
		return k.Description
	}
	if !k.Timed {
		return "none: the input carries no times, so every duration is unavailable (counts only)"
	}
	return k.Unit + " on the " + k.Domain + " clock"
}

func inputLine(c *capture.Capture) string {
	s := fmt.Sprintf("%s (%s, %s", c.Source.Path, c.Source.Format, Bytes(c.Source.Bytes))
	if c.Source.Compressed {
		s += " compressed"
	}
	s += ")"
	for i, in := range c.Accounting.Input {
		sep := ": "
		if i > 0 {
			sep = "; "
		}
		s += sep + CountLine(in)
	}
	return s
}

// CountLine is one input unit's count as the input line states it: "25
// inputs read, 8 used, 17 skipped (4 no reader recognises it, …)". A
// report of many inputs heads its output with the whole's "inputs" count
// in these words, so the two lines cannot disagree.
func CountLine(in *capture.InputCount) string {
	s := fmt.Sprintf("%s read, %d used", units.Count(in.Read, in.Unit), in.Used)
	if n := in.SkippedTotal(); n > 0 {
		var parts []string
		for _, sk := range in.Skipped {
			parts = append(parts, fmt.Sprintf("%d %s", sk.Count, sk.Reason))
		}
		s += fmt.Sprintf(", %d skipped (%s)", n, strings.Join(parts, ", "))
	}
	return s
}

func programGaps(c *capture.Capture, program string) []*capture.Gap {
	var out []*capture.Gap
	for _, g := range c.Accounting.Gaps {
		if g.Program == program && program != "" && g.Count > 0 {
			out = append(out, g)
		}
	}
	return out
}

func writeProgram(p *printer, c *capture.Capture, pt *analysis.ProgramTable, opt TextOptions) {
	prog := pt.Program
	unit := pt.Clock.Unit
	head := "program " + prog.Name + ": " + Runs(prog.Instances, prog.InstanceStates)
	head += ", " + units.Plural(pt.Dispatches, "dispatch", "dispatches")
	if pt.Timed > 0 {
		head += ", " + Duration(pt.Total, unit) + " in total"
		if pt.Timed < pt.Dispatches {
			head += fmt.Sprintf(" over %d timed dispatches", pt.Timed)
		}
	} else if pt.Dispatches > 0 {
		head += ", no times"
	}
	p.f("%s\n", head)
	if prog.Clock != nil {
		p.f("  times: %s\n", clockLine(*prog.Clock))
	}
	for _, n := range prog.Notes {
		p.f("  note: %s\n", n)
	}
	pl := launchOf(opt.Breakdown, pt)
	if pl != nil {
		writeLaunch(p, pl, opt)
	}
	if len(pt.Kernels) > 0 {
		writeKernels(p, pt, opt)
	}
	if pl != nil && opt.LaunchStats {
		writeLaunchTable(p, pl, opt)
	}
	for _, g := range programGaps(c, prog.Name) {
		writeGap(p, c, g, "  ", unit, opt)
	}
}

// raw prints s as it is: text already escaped (a table line).
func (p *printer) raw(s string) {
	if p.err != nil {
		return
	}
	_, p.err = io.WriteString(p.w, s)
}

func writeGap(p *printer, c *capture.Capture, g *capture.Gap, indent, unit string, opt TextOptions) {
	tag := "GAP"
	if g.Note {
		tag = "note"
	}
	p.f("%s%s %s (%d): %s\n", indent, tag, g.Kind, g.Count, g.Summary)
	if len(g.Figures) > 0 {
		var parts []string
		for _, f := range g.Figures {
			parts = append(parts, fmt.Sprintf("%s=%d", f.Name, f.Count))
		}
		p.f("%s    %s\n", indent, strings.Join(parts, " "))
	}
	if line := GapTouches(c, g); line != "" {
		p.f("%s    %s\n", indent, line)
	}
	for i, it := range g.Items {
		if i == opt.Items {
			break
		}
		p.f("%s    - %s\n", indent, itemLine(it, unit, c.Queues))
	}
	shown := min(len(g.Items), opt.Items)
	if more := int64(len(g.Items)-shown) + g.ItemsOmitted; more > 0 {
		p.f("%s    … and %d more", indent, more)
		if len(g.Items) > shown {
			p.f(" (--json lists %d)", len(g.Items))
		}
		p.f("\n")
	}
}

func itemLine(it capture.Item, unit string, queues []capture.Queue) string {
	s := it.What
	if it.Kernel != "" {
		s = it.Kernel + ": " + s
	}
	if it.Where != "" {
		s += " (" + it.Where + ")"
	}
	if q := it.Queue; q != nil && *q >= 0 && int(*q) < len(queues) {
		s += "; on queue " + queues[*q].Label()
	}
	if it.Time != nil {
		s += fmt.Sprintf("; at %d", *it.Time)
		if unit != "" {
			s += " " + unit
		}
	}
	if it.LastCompleted != "" {
		s += "; last completed before it: " + it.LastCompleted
	}
	return s
}

// writeAccounting prints the verdict and every gap not printed under a
// program table — including gaps scoped to a program the tables do not show,
// so no gap is ever left out of the text.
func writeAccounting(p *printer, c *capture.Capture, shown map[string]bool, opt TextOptions) {
	a := &c.Accounting
	var global []*capture.Gap
	gaps, notes, scoped := 0, 0, 0
	for _, g := range a.Gaps {
		if g.Count == 0 {
			continue
		}
		if g.Note {
			notes++
		} else {
			gaps++
		}
		if g.Program == "" || !shown[g.Program] {
			global = append(global, g)
		} else if !g.Note {
			scoped++
		}
	}
	if a.Complete() {
		p.f("%s", CompleteVerdict(c))
		if notes > 0 {
			p.f(" (%s)", units.Plural(int64(notes), "note", "notes"))
		}
		p.f("\n")
	} else {
		p.f("%s\n", IncompleteVerdict(c, gaps, scoped))
	}
	for _, g := range global {
		if g.Program != "" {
			p.f("[program %s] ", g.Program)
		}
		writeGap(p, c, g, "", c.Clock.Unit, opt)
	}
}

// Runs states a program's runs and, when the format knows them, their
// outcomes: "3 runs (2 complete, 1 failed)".
func Runs(n int64, states []capture.Count) string {
	s := units.Plural(n, "run", "runs")
	if len(states) > 0 {
		var parts []string
		for _, st := range states {
			parts = append(parts, fmt.Sprintf("%d %s", st.Count, st.Name))
		}
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}
