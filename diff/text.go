package diff

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/internal/units"
	"github.com/tallyprof/tally/render"
)

// TextOptions tunes the text output. The zero value is the default.
type TextOptions struct {
	// FullNames prints kernel names whole, as the inputs wrote them; by
	// default they are shortened as tally report shortens them
	// (render.ShortName) and cut to Width.
	FullNames bool
	// Width is the tables' width in columns: 0 is render.DefaultWidth,
	// below 0 no limit.
	Width int
}

func (o TextOptions) width() int {
	switch {
	case o.FullNames || o.Width < 0:
		return 0
	case o.Width == 0:
		return render.DefaultWidth
	}
	return o.Width
}

// WriteText writes the comparison for people with the default options.
func (r *Result) WriteText(w io.Writer) error { return r.Text(w, TextOptions{}) }

// Text writes the comparison for people, modelled on benchstat's tables:
// each side's inputs and accounting first, then how the figures were
// computed, one table per program, then a summary. It returns the first
// write error.
func (r *Result) Text(w io.Writer, opt TextOptions) error {
	bw := bufio.NewWriter(w)
	p := &printer{bw}
	for _, s := range []*Side{r.A, r.B} {
		writeSideHeader(p, s)
	}
	for _, n := range r.Notes {
		p.f("note: %s\n", n)
	}
	writeLegend(p)
	for i := range r.Programs {
		p.f("\n")
		writeProgram(p, &r.Programs[i], opt)
	}
	p.f("\n")
	writeSummary(p, r)
	return bw.Flush()
}

// writeLegend says once how every figure was computed and when a change
// is called (docs/diff-json.md, "Changes").
func writeLegend(p *printer) {
	p.f("statistics: every run of a program is one sample; each side's median ± its %.0f%% confidence interval (benchmath)\n", 100*Confidence)
	p.f("  vs A: the change of the medians, with its interval (lo…hi) from both sides' intervals; a change is called\n")
	p.f("        (slower, faster, more or fewer dispatches) only when the test and the interval agree: the Mann-Whitney\n")
	p.f("        U test's p < %.2f and the interval excludes 0; else ~ (\"~ (p=…)\": the test alone finds one); an interval\n", Alpha)
	p.f("        needs ≥ %d runs on each side; dispatch counts constant on both sides are compared exactly (=: the same)\n", MinRuns())
}

// printer writes through a bufio.Writer, whose first error sticks: later
// writes are dropped and Flush returns it.
type printer struct{ w *bufio.Writer }

// f prints with every string argument escaped (safetext): names and
// gap text come from the inputs.
func (p *printer) f(format string, args ...any) { safetext.Fprintf(p.w, format, args...) }

// raw prints s as it is: table lines built of escaped names.
func (p *printer) raw(s string) { p.w.WriteString(s) }

// writeSideHeader states each input of the side: what was read, its
// clock, and every gap (the items are in `tally report` and --json).
func writeSideHeader(p *printer, s *Side) {
	for _, c := range s.Captures {
		verdict := "COMPLETE"
		if c.Accounting.CutUnit != "" {
			verdict = "COMPLETE up to the last " + c.Accounting.CutUnit + " (no end marker)"
		}
		if !c.Accounting.Complete() {
			verdict = "INCOMPLETE"
		}
		p.f("%s: %s: %s\n", s.Label, verdict, render.InputLine(c))
		if cl := render.AffectedClause(c); cl != "" && !c.Accounting.Complete() {
			p.f("   the gaps touch: %s\n", cl)
		}
		p.f("   times: %s\n", render.ClockLine(c.Clock))
		for _, g := range c.Accounting.Gaps {
			if g.Count == 0 {
				continue
			}
			tag := "GAP"
			if g.Note {
				tag = "note"
			}
			scope := ""
			if g.Program != "" {
				scope = " [program " + g.Program + "]"
			}
			p.f("   %s %s (%d)%s: %s\n", tag, g.Kind, g.Count, scope, g.Summary)
		}
	}
	for _, g := range s.RunGaps {
		tag := "GAP"
		if g.Note {
			tag = "note"
		}
		p.f("%s: %s %s (%d): %s\n", s.Label, tag, g.Kind, g.Count, g.Summary)
		for _, it := range g.Items {
			if it.Where == "" { // unused_option: of the run, no one input
				p.f("   - %s\n", it.What)
				continue
			}
			p.f("   - %s (%s)\n", it.What, it.Where)
		}
	}
	for _, sk := range s.Skipped {
		p.f("%s: skipped %s: %s\n", s.Label, sk.Path, sk.Reason)
	}
	if n := s.LeftOut(); n > 0 {
		p.f("%s: %s cut short (failed or never ended) left out of the samples: their sums are partial (their dispatches are in tally report)\n", s.Label, units.Plural(int64(n), "run", "runs"))
	}
}

func writeProgram(p *printer, pr *Program, opt TextOptions) {
	head := "program " + pr.Name + ": "
	switch pr.Status {
	case Added:
		head += fmt.Sprintf("ADDED (only in B, %s)", units.Plural(int64(pr.RunsB), "run", "runs"))
	case Removed:
		head += fmt.Sprintf("REMOVED (only in A, %s)", units.Plural(int64(pr.RunsA), "run", "runs"))
	default:
		head += fmt.Sprintf("A %s, B %s", units.Plural(int64(pr.RunsA), "run", "runs"), units.Plural(int64(pr.RunsB), "run", "runs"))
	}
	if pr.LeftOutA > 0 || pr.LeftOutB > 0 {
		head += fmt.Sprintf("; left out, cut short: A %s, B %s", units.Plural(int64(pr.LeftOutA), "run", "runs"), units.Plural(int64(pr.LeftOutB), "run", "runs"))
	}
	if ch := pr.Changes(); len(ch) > 0 {
		head += ": " + strings.Join(ch, ", ")
	}
	p.f("%s\n", head)
	if pr.TimeRefused != "" {
		p.f("  times not compared: %s\n", pr.TimeRefused)
	}
	if pr.UntimedA > 0 || pr.UntimedB > 0 {
		p.f("  dispatches without a device time (counted, not in the times): A %d, B %d\n", pr.UntimedA, pr.UntimedB)
	}
	for _, l := range gapLines(pr) {
		p.f("  %s\n", l)
	}
	writeProgramFigures(p, pr)
	writeKernels(p, pr, opt)
	for _, n := range programNotes(pr) {
		p.f("  note: %s\n", n)
	}
}

// gapLines state the gaps each side scopes to the program once per kind:
// their text is under the side's inputs above, and a kind several inputs
// share is one entry with their sum.
func gapLines(pr *Program) []string {
	var out []string
	for _, note := range []bool{false, true} {
		lists := map[string]string{}
		for _, side := range []struct {
			label string
			gaps  []*capture.Gap
		}{{"A", pr.GapsA}, {"B", pr.GapsB}} {
			var kinds []capture.Kind
			count := map[capture.Kind]int64{}
			inputs := map[capture.Kind]int{}
			for _, g := range side.gaps {
				if g.Note != note {
					continue
				}
				if inputs[g.Kind] == 0 {
					kinds = append(kinds, g.Kind)
				}
				count[g.Kind] = capture.SatAdd(count[g.Kind], g.Count)
				inputs[g.Kind]++
			}
			if len(kinds) == 0 {
				continue
			}
			var parts []string
			for _, k := range kinds {
				n := fmt.Sprint(count[k])
				if inputs[k] > 1 {
					n += fmt.Sprintf(" in %d inputs", inputs[k])
				}
				parts = append(parts, fmt.Sprintf("%s (%s)", k, n))
			}
			lists[side.label] = strings.Join(parts, ", ")
		}
		tag := "GAP"
		if note {
			tag = "note"
		}
		line := func(on, list string) {
			out = append(out, fmt.Sprintf("%s on %s: %s; each stated under its input above", tag, on, list))
		}
		switch a, b := lists["A"], lists["B"]; {
		case a != "" && a == b:
			line("A and B", a)
		default:
			if a != "" {
				line("A", a)
			}
			if b != "" {
				line("B", b)
			}
		}
	}
	return out
}

// writeProgramFigures prints the program's own figures, all its kernels
// together: time and dispatches per run, with the test's p and the runs.
func writeProgramFigures(p *printer, pr *Program) {
	rows := [][]string{{"", "A", "B", "vs A"}}
	rows = append(rows, []string{"dispatches/run", count(pr.Dispatches.A), count(pr.Dispatches.B), vs(&pr.Dispatches, true)})
	if pr.Unit != "" {
		rows = append(rows, []string{"time/run", timeCell(pr.Total.A, pr.Unit), timeCell(pr.Total.B, pr.Unit), vs(&pr.Total, true)})
	}
	w := columnWidths(rows)
	for _, r := range rows {
		line := "  " + r[0] + strings.Repeat(" ", w[0]-runes(r[0]))
		for i := 1; i < 3; i++ {
			line += strings.Repeat(" ", w[i]+2-runes(r[i])) + r[i]
		}
		line += "  " + r[3]
		p.raw(strings.TrimRight(line, " ") + "\n")
	}
}

// writeKernels prints the program's kernel table: per kernel its time per
// dispatch and dispatches per run on each side and the change, names
// shortened and cut to fit the width (render.FitLabels).
func writeKernels(p *printer, pr *Program, opt TextOptions) {
	if len(pr.Kernels) == 0 {
		return
	}
	// Two title lines: each quantity over its three columns, then the
	// sides: the names get the room one-line titles would take.
	groups := []string{"time/dispatch", "dispatches/run"}
	head := []string{"A", "B", "vs A", "A", "B", "vs A"}
	rows := make([][]string, len(pr.Kernels))
	full := make([]string, len(pr.Kernels))
	tags := make([]string, len(pr.Kernels))
	tails := make([]string, len(pr.Kernels))
	for i := range pr.Kernels {
		k := &pr.Kernels[i]
		t, perRun := k.shownTime()
		tvs := vs(t, false)
		switch k.Status {
		case Added:
			tvs = "added"
		case Removed:
			tvs = "removed"
		}
		rows[i] = []string{timeCell(t.A, pr.Unit), timeCell(t.B, pr.Unit), tvs,
			count(k.Dispatches.A), count(k.Dispatches.B), vs(&k.Dispatches, false)}
		if pr.Unit == "" {
			rows[i][0], rows[i][1] = "-", "-"
			if k.Status == Matched {
				rows[i][2] = ""
			}
		}
		full[i] = k.Name
		tags[i], tails[i] = kernelTags(k, perRun && pr.Unit != "")
	}
	w := columnWidths(append([][]string{head}, rows...))
	for g, title := range groups {
		// A group at least as wide as its title: its vs column takes the rest.
		span := w[3*g] + 2 + w[3*g+1] + 2 + w[3*g+2]
		w[3*g+2] += max(runes(title)-span, 0)
	}
	room := 0
	if width := opt.width(); width > 0 {
		room = width - 2 - 2
		for _, c := range w {
			room -= c + 2
		}
	}
	labels := render.FitLabels(full, tags, tails, opt.FullNames, room)
	line := func(cells []string, label string) {
		p.raw(strings.TrimRight(render.AlignedRow("  ", w, cells, label), " ") + "\n")
	}
	var title strings.Builder
	title.WriteString("  ")
	for g, t := range groups {
		span := w[3*g] + 2 + w[3*g+1] + 2 + w[3*g+2] // centred over its columns
		left := (span - runes(t)) / 2
		title.WriteString(strings.Repeat(" ", 2+left) + t + strings.Repeat(" ", span-left-runes(t)))
	}
	p.raw(strings.TrimRight(title.String(), " ") + "\n")
	line(head, "kernel")
	for i := range rows {
		line(rows[i], labels[i])
	}
}

// shownTime is the time a kernel's row shows: time per dispatch, or, for
// a kernel no side timed a single dispatch of (aggregated records only),
// time per run (perRun set).
func (k *Kernel) shownTime() (m *Metric, perRun bool) {
	if k.PerDispatch.A == nil && k.PerDispatch.B == nil && (k.PerRun.A != nil || k.PerRun.B != nil) {
		return &k.PerRun, true
	}
	return &k.PerDispatch, false
}

// kernelTags are what a kernel row says after its name: tags that tell
// rows apart (list, category; escaped) and a tail that does not (the gaps
// that list it, aggregated records).
func kernelTags(k *Kernel, perRun bool) (tags, tail string) {
	if k.List != "" && k.List != "main" {
		tags += " [" + safetext.Escape(k.List) + " list]"
	}
	if k.Category != "" && k.Category != "kernel" {
		tags += " [" + safetext.Escape(k.Category) + "]"
	}
	kinds := func(ks []capture.Kind) string {
		var parts []string
		for _, kind := range ks {
			if kind == capture.UnresolvedName && k.anonymous {
				continue // the label program:#id says it
			}
			parts = append(parts, safetext.Escape(string(kind)))
		}
		return strings.Join(parts, ", ")
	}
	a, b := kinds(k.GapsA), kinds(k.GapsB)
	switch {
	case a != "" && a == b:
		tail += " [GAP on A and B: " + a + "]"
	default:
		if a != "" {
			tail += " [GAP on A: " + a + "]"
		}
		if b != "" {
			tail += " [GAP on B: " + b + "]"
		}
	}
	switch {
	case perRun:
		tail += " (aggregated records: time per run)"
	case k.AggregatedA > 0 || k.AggregatedB > 0:
		tail += fmt.Sprintf(" (+%d/%d aggregated, not in time/dispatch)", k.AggregatedA, k.AggregatedB)
	}
	return tags, tail
}

// programNotes are the program's footnotes: too few runs for an interval,
// and each other distinct benchmath warning once, with how many cells it
// applies to.
func programNotes(pr *Program) []string {
	var out, warns []string
	n := map[string]int{}
	few := 0
	add := func(m *Metric) {
		for _, s := range []*Summary{m.A, m.B} {
			if s != nil && !s.CI {
				few++
			}
		}
		for _, w := range m.Warnings {
			if strings.Contains(w, "for confidence interval") {
				continue // said below, in tally's words
			}
			if n[w] == 0 {
				warns = append(warns, w)
			}
			n[w]++
		}
	}
	add(&pr.Dispatches)
	add(&pr.Total)
	for i := range pr.Kernels {
		add(&pr.Kernels[i].Dispatches)
		add(&pr.Kernels[i].PerDispatch)
		add(&pr.Kernels[i].PerRun)
	}
	if few > 0 {
		var sides []string
		for _, s := range []struct {
			label string
			runs  int
		}{{"A", pr.RunsA}, {"B", pr.RunsB}} {
			if s.runs > 0 && s.runs < MinRuns() {
				sides = append(sides, s.label+" has "+units.Plural(int64(s.runs), "run", "runs"))
			}
		}
		what := "some kernels run in fewer runs" // the program has enough; a kernel's time per dispatch has fewer
		if len(sides) > 0 {
			what = strings.Join(sides, ", ")
		}
		out = append(out, fmt.Sprintf("medians without ±: an interval needs ≥ %d runs a side (%s), so no change is called on them", MinRuns(), what))
	}
	for _, w := range warns {
		out = append(out, fmt.Sprintf("%s (%s)", w, units.Plural(int64(n[w]), "cell", "cells")))
	}
	return out
}

func columnWidths(rows [][]string) []int {
	var w []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(w) {
				w = append(w, 0)
			}
			w[i] = max(w[i], runes(c))
		}
	}
	return w
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// timeCell is a median with its interval, as benchstat writes it; the
// median alone when the side has too few runs for an interval.
func timeCell(s *Summary, unit string) string {
	if s == nil {
		return "-"
	}
	if !s.CI {
		return render.DurationF(s.Center, unit)
	}
	return render.DurationF(s.Center, unit) + " " + spread(s)
}

func count(s *Summary) string {
	if s == nil {
		return "-"
	}
	v := strconv.FormatFloat(s.Center, 'f', -1, 64)
	if s.Center != math.Trunc(s.Center) {
		v = strconv.FormatFloat(s.Center, 'f', 1, 64)
	}
	if !s.CI || s.Lo == s.Hi {
		return v
	}
	return v + " " + spread(s)
}

// spread is the interval's half-width relative to the center.
func spread(s *Summary) string {
	if s.Center == 0 {
		if s.Lo == 0 && s.Hi == 0 {
			return "±0%"
		}
		return "±?"
	}
	d := math.Max(s.Center-s.Lo, s.Hi-s.Center) / math.Abs(s.Center)
	return fmt.Sprintf("±%.0f%%", 100*d)
}

// vs is the comparison column: the change called with its interval, or
// ~ and why no change is called; long adds the test's p and the samples
// (the program's own lines, which have the room).
func vs(m *Metric, long bool) string {
	if !m.Compared {
		return ""
	}
	if m.Exact {
		switch {
		case !m.Changed() && long:
			return "= (exact)"
		case !m.Changed():
			return "="
		case long:
			return m.FormatDelta() + " (exact)"
		}
		return m.FormatDelta()
	}
	n := fmt.Sprintf("n=%d+%d", m.A.N, m.B.N)
	if m.A.N == m.B.N {
		n = fmt.Sprintf("n=%d", m.A.N)
	}
	var s string
	switch {
	case m.Changed():
		s = m.FormatDelta()
		if m.DeltaCI {
			s += fmt.Sprintf(" (%+.1f%%…%+.1f%%)", 100*m.DeltaLo, 100*m.DeltaHi)
		}
		if long {
			s += fmt.Sprintf(" p=%.3f %s", m.P, n)
		}
	case !m.A.CI || !m.B.CI:
		s = fmt.Sprintf("~ (needs ≥ %d runs)", MinRuns())
		if long {
			s = fmt.Sprintf("~ (needs ≥ %d runs for an interval; p=%.3f %s)", MinRuns(), m.P, n)
		}
	case m.Significant:
		s = fmt.Sprintf("~ (p=%.3f)", m.P)
		if long && m.DeltaCI {
			s = fmt.Sprintf("~ (p=%.3f %s; the interval %+.1f%%…%+.1f%% includes 0)", m.P, n, 100*m.DeltaLo, 100*m.DeltaHi)
		} else if long {
			s = fmt.Sprintf("~ (p=%.3f %s; the intervals overlap)", m.P, n)
		}
	default:
		s = "~"
		if long {
			s += fmt.Sprintf(" (p=%.3f %s)", m.P, n)
		}
	}
	return s
}

// writeSummary counts what changed, so count changes and time changes are
// never confused, and ends with each side's verdict.
func writeSummary(p *printer, r *Result) {
	var added, removed []string
	counts := map[string]int{}
	var order []string
	testOnly := 0 // kernels with a change the test finds and the interval does not confirm
	for i := range r.Programs {
		pr := &r.Programs[i]
		switch pr.Status {
		case Added:
			added = append(added, pr.Name)
		case Removed:
			removed = append(removed, pr.Name)
		}
		for j := range pr.Kernels {
			k := &pr.Kernels[j]
			ch := k.Changes()
			if len(ch) == 0 {
				ch = []string{"no change (~)"}
			}
			if k.Dispatches.TestOnly() || k.TimeMetric().TestOnly() {
				testOnly++
			}
			for _, c := range ch {
				if counts[c] == 0 {
					order = append(order, c)
				}
				counts[c]++
			}
		}
	}
	p.f("summary: %s on both sides", units.Plural(int64(len(r.Programs)-len(added)-len(removed)), "program", "programs"))
	if len(added) > 0 {
		p.f("; added (only in B): %s", strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		p.f("; removed (only in A): %s", strings.Join(removed, ", "))
	}
	p.f("\n")
	if len(order) > 0 {
		var parts []string
		for _, c := range []string{"slower", "faster", "more dispatches", "fewer dispatches", "added", "removed", "no change (~)"} {
			if counts[c] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[c], c))
			}
		}
		if testOnly > 0 {
			parts = append(parts, fmt.Sprintf("%d with p < %.2f whose interval includes 0, not called (~ (p=…))", testOnly, Alpha))
		}
		p.f("kernels: %s\n", strings.Join(parts, ", "))
	}
	for _, s := range []*Side{r.A, r.B} {
		if s.Complete() {
			upTo := ""
			for _, c := range s.Captures {
				if c.Accounting.CutUnit != "" {
					upTo = " up to the last line or row of its inputs without an end marker (a cut there cannot be seen)"
				}
			}
			p.f("%s: COMPLETE%s\n", s.Label, upTo)
		} else {
			p.f("%s: INCOMPLETE: its gaps (above) are not in the tables; --strict fails on them\n", s.Label)
		}
		if len(s.MissingRanks) > 0 {
			p.f("%s: lacks %s that the other side holds: not compared; --strict fails on it\n", s.Label, rankWords(s.MissingRanks))
		}
	}
}
