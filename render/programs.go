package render

import (
	"fmt"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/internal/units"
)

// summaryRows caps the programs summary; the rest are summed in one line
// (every program still has its table below).
const summaryRows = 10

// writeKernels prints one program's kernel table: a row per kernel
// (capped by opt.Top, the rest summed), names shortened and fitted to the
// width (kernelIdents, fitLabels).
func writeKernels(p *printer, pt *analysis.ProgramTable, opt TextOptions) {
	unit := pt.Clock.Unit
	launches := false // the launch column only where the format records launches
	for _, k := range pt.Kernels {
		launches = launches || k.Launched > 0
	}
	t := table{head: []string{"dispatches", "total", "share", "mean", "min", "max"}, label: "kernel"}
	if launches {
		t.head = append(t.head, "launch mean")
	}
	rows := pt.Kernels
	if opt.Top > 0 && len(rows) > opt.Top {
		rows = rows[:opt.Top]
	}
	for _, k := range rows {
		total, share, mean, min, max, launch := "-", "-", "-", "-", "-", "-"
		if k.Timed > 0 {
			total = Duration(k.Total, unit)
			share = Share(k.Share)
			mean = DurationF(k.Mean, unit)
			min, max = "unknown", "unknown"
			if k.MinMaxKnown {
				min = Duration(k.Min, unit)
				max = Duration(k.Max, unit)
			}
		}
		if k.Launched > 0 {
			launch = DurationF(k.LaunchMean, unit)
		}
		disp := fmt.Sprint(k.Dispatches)
		if k.Timed > 0 && k.Timed < k.Dispatches {
			disp = fmt.Sprintf("%d (%d timed)", k.Dispatches, k.Timed)
		}
		cells := []string{disp, total, share, mean, min, max}
		if launches {
			cells = append(cells, launch)
		}
		t.rows = append(t.rows, cells)
	}
	// Names are told apart among all the program's kernels, shown or not,
	// so --top never changes a name.
	names, tags := kernelIdents(pt.Kernels, opt.FullNames)
	room := t.labelWidth(opt.width())
	labels := make([]string, len(rows))
	widths := make([]int, len(rows))
	for i, k := range rows {
		labels[i] = tags[i] + linkTail(k) // after the name, never cut
		if room > 0 {
			widths[i] = max(room-runes(labels[i]), minNameWidth)
		}
	}
	fitted := fitNames(names[:len(rows)], tags[:len(rows)], widths)
	for i := range labels {
		labels[i] = fitted[i] + labels[i]
	}
	t.write(p, labels)
	if rest := pt.Kernels[len(rows):]; len(rest) > 0 {
		var n, total int64
		var share float64
		for _, k := range rest {
			n = capture.SatAdd(n, k.Dispatches)
			total = capture.SatAdd(total, k.Total)
			share += k.Share
		}
		line := fmt.Sprintf("  … %d more kernels (--top 0 shows all): %s", len(rest), units.Plural(n, "dispatch", "dispatches"))
		if pt.Timed > 0 {
			line += fmt.Sprintf(", %s, %s of this program", Duration(total, unit), Share(share))
		}
		p.f("%s\n", line)
	}
}

// linkTail is what a kernel row says after the name about launches the
// trace does not hold ("(232 no-launch)"), or "".
func linkTail(k analysis.KernelRow) string {
	var parts []string
	for _, l := range []string{"no-launch", "graph"} {
		if n := k.Links[l]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, l))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// KernelLabels are the names a program's kernel rows show by default, in
// row order: shortened, and stepped back to longer forms where two would
// read the same (see kernelIdents); whole when full is set. Part and
// category tags are included ("[init list]", "[memcpy]").
func KernelLabels(rows []analysis.KernelRow, full bool) []string {
	names, tags := kernelIdents(rows, full)
	for i := range names {
		names[i] += tags[i]
	}
	return names
}

// writeSummary prints the programs summary, when more than one program is
// shown: per program its runs, dispatches, device time and share of the
// capture's device time — the one place shares cross programs, and only
// as a part of the whole capture, never kernel against kernel.
func writeSummary(p *printer, r *analysis.Tables, order []int, opt TextOptions) {
	if len(order) < 2 {
		return
	}
	whole := deviceTime(r)
	var perUnit []string
	for _, u := range []string{"ns", "ticks", ""} {
		if v, ok := whole[u]; ok {
			perUnit = append(perUnit, Duration(v, u))
		}
	}
	for u, v := range whole {
		if u != "ns" && u != "ticks" && u != "" {
			perUnit = append(perUnit, Duration(v, u))
		}
	}
	how := "by device time, costliest first (--order input: as read)"
	if opt.InputOrder {
		how = "in input order"
	}
	if len(perUnit) == 0 {
		p.f("\nprograms %s; the input has no times\n", how)
	} else {
		p.f("\nprograms %s; share: of the capture's device time, %s\n", how, strings.Join(perUnit, " + "))
	}
	t := table{head: []string{"runs", "dispatches", "total", "share"}, label: "program"}
	var names []string
	shown := order
	if len(shown) > summaryRows+1 {
		shown = shown[:summaryRows]
	}
	for _, i := range shown {
		pt := &r.Programs[i]
		total, share := "-", "-"
		if pt.Timed > 0 {
			total = Duration(pt.Total, pt.Clock.Unit)
			if w := whole[pt.Clock.Unit]; w > 0 {
				share = Share(float64(pt.Total) / float64(w))
			}
		}
		t.rows = append(t.rows, []string{fmt.Sprint(pt.Program.Instances), fmt.Sprint(pt.Dispatches), total, share})
		names = append(names, safetext.Escape(pt.Program.Name))
	}
	widths := make([]int, len(names))
	for i := range widths {
		widths[i] = t.labelWidth(opt.width())
	}
	t.write(p, fitNames(names, make([]string, len(names)), widths))
	if rest := order[len(shown):]; len(rest) > 0 {
		var n int64
		sums := map[string]int64{}
		for _, i := range rest {
			pt := &r.Programs[i]
			n = capture.SatAdd(n, pt.Dispatches)
			if pt.Timed > 0 {
				sums[pt.Clock.Unit] = capture.SatAdd(sums[pt.Clock.Unit], pt.Total)
			}
		}
		line := fmt.Sprintf("    … %d more programs, each with its table below: %s", len(rest), units.Plural(n, "dispatch", "dispatches"))
		for _, u := range []string{"ns", "ticks"} {
			if v, ok := sums[u]; ok {
				line += ", " + timeShare(v, whole[u], u)
			}
		}
		p.f("%s\n", line)
	}
}

// writeLegend says once what the kernel tables' columns hold: the launch
// column above all, whose host-side time reads as a bug next to device
// times a thousand times shorter when unexplained.
func writeLegend(p *printer, r *analysis.Tables, order []int) {
	timed, launches := false, false
	for _, i := range order {
		pt := &r.Programs[i]
		timed = timed || pt.Timed > 0
		for _, k := range pt.Kernels {
			launches = launches || k.Launched > 0
		}
	}
	if !timed && !launches {
		return
	}
	p.f("\n")
	if timed {
		p.f("columns: total, mean, min, max: device time of the completed dispatches; share: of the program's device time\n")
	}
	if launches {
		lead := "columns: "
		if timed {
			lead = "         "
		}
		p.f("%slaunch mean: time in the host enqueue call (the launch API call that queued the dispatch), not device time\n", lead)
	}
}
