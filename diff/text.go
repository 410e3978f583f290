package diff

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/internal/units"
	"github.com/tallyprof/tally/render"
)

// WriteText writes the comparison for people, modelled on benchstat's
// tables: each side's inputs and accounting first, then one table per
// program, then a summary. It returns the first write error.
func (r *Result) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := &printer{bw}
	for _, s := range []*Side{r.A, r.B} {
		writeSideHeader(p, s)
	}
	for _, n := range r.Notes {
		p.f("note: %s\n", n)
	}
	p.f("statistics: median of the per-run values ± %.0f%% confidence interval (benchmath); vs A: change of the medians (with the interval both sides' intervals allow), the Mann-Whitney U test's p and the samples (runs) per side, ~ where p ≥ %.2f; dispatch counts constant on both sides are compared exactly\n",
		100*Confidence, Alpha)
	for i := range r.Programs {
		p.f("\n")
		writeProgram(p, &r.Programs[i])
	}
	p.f("\n")
	writeSummary(p, r)
	return bw.Flush()
}

// printer writes through a bufio.Writer, whose first error sticks: later
// writes are dropped and Flush returns it.
type printer struct{ w *bufio.Writer }

// f prints with every string argument escaped (safetext): names and
// gap text come from the inputs.
func (p *printer) f(format string, args ...any) { safetext.Fprintf(p.w, format, args...) }

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
	for _, sk := range s.Skipped {
		p.f("%s: skipped %s: %s\n", s.Label, sk.Path, sk.Reason)
	}
	if n := s.LeftOut(); n > 0 {
		p.f("%s: %s cut short (failed or never ended) left out of the samples: their sums are partial (their dispatches are in tally report)\n", s.Label, units.Plural(int64(n), "run", "runs"))
	}
}

func writeProgram(p *printer, pr *Program) {
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
	p.f("%s\n", head)
	if pr.TimeRefused != "" {
		p.f("  times not compared: %s\n", pr.TimeRefused)
	}
	if pr.UntimedA > 0 || pr.UntimedB > 0 {
		p.f("  dispatches without a device time (counted, not in the times): A %d, B %d\n", pr.UntimedA, pr.UntimedB)
	}
	for _, side := range []struct {
		label string
		gaps  []*capture.Gap
	}{{"A", pr.GapsA}, {"B", pr.GapsB}} {
		for _, g := range side.gaps {
			tag := "GAP"
			if g.Note {
				tag = "note"
			}
			p.f("  %s %s on %s (%d): %s\n", tag, g.Kind, side.label, g.Count, g.Summary)
		}
	}

	tw := tabwriter.NewWriter(p.w, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  \ttime/dispatch A\tB\tvs A\tdispatches/run A\tB\tvs A\ttime/run A\tB\tvs A\t  change\t  kernel\n")
	unit := pr.Unit
	safetext.Fprintf(tw, "  \t\t\t\t%s\t%s\t%s\t%s\t%s\t%s\t  %s\t  %s\n",
		count(pr.Dispatches.A), count(pr.Dispatches.B), vs(&pr.Dispatches),
		timeCell(pr.Total.A, unit), timeCell(pr.Total.B, unit), vs(&pr.Total), strings.Join(pr.Changes(), ", "), "(all kernels)")
	for i := range pr.Kernels {
		k := &pr.Kernels[i]
		safetext.Fprintf(tw, "  \t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t  %s\t  %s\n",
			timeCell(k.PerDispatch.A, unit), timeCell(k.PerDispatch.B, unit), vs(&k.PerDispatch),
			count(k.Dispatches.A), count(k.Dispatches.B), vs(&k.Dispatches),
			timeCell(k.PerRun.A, unit), timeCell(k.PerRun.B, unit), vs(&k.PerRun),
			strings.Join(k.Changes(), ", "), kernelLabel(k))
	}
	tw.Flush()

	// benchstat's footnotes: each distinct warning once, with how many
	// cells it applies to.
	var warns []string
	n := map[string]int{}
	add := func(m *Metric) {
		for _, w := range m.Warnings {
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
	for _, w := range warns {
		p.f("  note: %s (%d cells)\n", w, n[w])
	}
}

func kernelLabel(k *Kernel) string {
	s := k.Name
	if k.List != "" && k.List != "main" {
		s += " [" + k.List + " list]"
	}
	if k.Category != "" && k.Category != "kernel" {
		s += " [" + k.Category + "]"
	}
	for _, side := range []struct {
		label string
		kinds []capture.Kind
	}{{"A", k.GapsA}, {"B", k.GapsB}} {
		if len(side.kinds) > 0 {
			var parts []string
			for _, kind := range side.kinds {
				parts = append(parts, string(kind))
			}
			s += " [GAP on " + side.label + ": " + strings.Join(parts, ", ") + "]"
		}
	}
	if k.AggregatedA > 0 || k.AggregatedB > 0 {
		s += fmt.Sprintf(" (aggregated records: A %d, B %d dispatches, in counts and time/run only)", k.AggregatedA, k.AggregatedB)
	}
	return s
}

// timeCell is a median with its interval, as benchstat writes it.
func timeCell(s *Summary, unit string) string {
	if s == nil {
		return "-"
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
	if s.Lo == s.Hi && s.CI {
		return v
	}
	return v + " " + spread(s)
}

// spread is the interval's half-width relative to the center, "±∞" when
// the sample is too small for an interval.
func spread(s *Summary) string {
	if !s.CI {
		return "±∞"
	}
	if s.Center == 0 {
		if s.Lo == 0 && s.Hi == 0 {
			return "±0%"
		}
		return "±?"
	}
	d := math.Max(s.Center-s.Lo, s.Hi-s.Center) / math.Abs(s.Center)
	return fmt.Sprintf("±%.0f%%", 100*d)
}

// vs is benchstat's comparison column.
func vs(m *Metric) string {
	if !m.Compared {
		return ""
	}
	if m.Exact {
		return m.FormatDelta() + " (exact)"
	}
	n := fmt.Sprintf("n=%d+%d", m.A.N, m.B.N)
	if m.A.N == m.B.N {
		n = fmt.Sprintf("n=%d", m.A.N)
	}
	if m.Significant && m.DeltaCI {
		// The change's interval, from the two sides' intervals.
		return fmt.Sprintf("%s (%+.1f%%…%+.1f%% p=%.3f %s)", m.FormatDelta(), 100*m.DeltaLo, 100*m.DeltaHi, m.P, n)
	}
	return fmt.Sprintf("%s (p=%.3f %s)", m.FormatDelta(), m.P, n)
}

// writeSummary counts what changed, so count changes and time changes are
// never confused, and ends with each side's verdict.
func writeSummary(p *printer, r *Result) {
	var added, removed []string
	counts := map[string]int{}
	var order []string
	for i := range r.Programs {
		pr := &r.Programs[i]
		switch pr.Status {
		case Added:
			added = append(added, pr.Name)
		case Removed:
			removed = append(removed, pr.Name)
		}
		for j := range pr.Kernels {
			ch := pr.Kernels[j].Changes()
			if len(ch) == 0 {
				ch = []string{"no significant change (~)"}
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
		for _, c := range []string{"slower", "faster", "more dispatches", "fewer dispatches", "added", "removed", "no significant change (~)"} {
			if counts[c] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[c], c))
			}
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
	}
}
