package render

import (
	"fmt"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/internal/units"
)

// writeOps prints the op table (`tally report --by op`): what attributed
// the dispatches, the partition of device time into modelled, unmodelled
// and unattributed as figures, then one row per op name with the roofline
// columns when any op is modelled, and the dispatches under no op as a row
// of their own.
func writeOps(p *printer, t *analysis.OpTable, opt TextOptions) {
	unit := t.Unit
	ns := unit == "ns"
	p.f("\nops (%s level: the %smost host op around each launch), per capture\n", t.Level, t.Level)
	src := t.Source
	if src == "" {
		src = NoOpSource
	}
	for _, l := range wrapWords("attributed by: "+src, opt.width()-2) {
		p.f("  %s\n", l)
	}
	if t.Dispatches == 0 {
		p.f("  no dispatch to attribute\n")
		return
	}
	frac := func(v int64) string {
		if t.Device <= 0 {
			return "-"
		}
		return Share(float64(v) / float64(t.Device))
	}
	attributed := t.Device - t.Unattributed.Device
	p.f("  device time %s in %s: %s attributed to %s, %s (%s, %s) under no op\n", Duration(t.Device, unit),
		units.Plural(t.Dispatches, "dispatch", "dispatches"), frac(attributed), units.Plural(int64(len(t.Rows)), "op name", "op names"),
		frac(t.Unattributed.Device), Duration(t.Unattributed.Device, unit), units.Plural(t.Unattributed.Dispatches, "dispatch", "dispatches"))
	if t.Unattributed.Dispatches > 0 {
		why := fmt.Sprintf("under no op: %s with no launch call in the trace (gpu_event_without_launch), %s launched outside any recorded host op",
			units.Plural(t.NoLaunchDispatches, "dispatch", "dispatches"), units.Plural(t.Unattributed.Dispatches-t.NoLaunchDispatches, "dispatch", "dispatches"))
		if len(t.Rows) == 0 && t.Source != "" {
			why += " (the trace records no host op around any launch: profile with the CPU activity on)"
		}
		for _, l := range wrapWords(why, opt.width()-2) {
			p.f("  %s\n", l)
		}
	}
	p.f("  modelled (FLOPs or bytes from recorded shapes): %s; unmodelled %s (%s without shapes, %s outside the models)\n",
		frac(t.Modelled), frac(t.Unmodelled), frac(t.NoShapes), frac(t.NoModel))
	roof := false
	for i := range t.Rows {
		if t.Rows[i].Roof.Modelled > 0 && ns {
			roof = true
		}
	}
	if roof {
		dev := t.DeviceName
		if dev == "" {
			dev = "not named by the trace"
		}
		peaks := t.Peaks
		if peaks == "" {
			peaks = "none known (give --peak-device, or --peak-tflops and --peak-tbps): no roof column"
		}
		for _, l := range wrapWords(fmt.Sprintf("device: %s; peaks: %s (docs/ops.md)", dev, peaks), opt.width()-2) {
			p.f("  %s\n", l)
		}
	}

	tb := table{head: []string{"calls", "disp", "device", "share", "host"}, label: "op → costliest kernel (kernels)"}
	if roof {
		tb.head = append(tb.head, "TFLOP/s", "TB/s", "of roof", "bound")
	}
	rows := t.Rows
	var rest []analysis.OpRow
	if opt.Top > 0 && len(rows) > opt.Top {
		rows, rest = rows[:opt.Top], rows[opt.Top:]
	}
	var labels []opText
	for i := range rows {
		r := &rows[i]
		host := "-"
		if r.HostValid {
			host = Duration(r.Host, "ns")
		}
		cells := []string{fmt.Sprint(r.Calls), fmt.Sprint(r.Dispatches), Duration(r.Device, unit), Share(r.Share), host}
		if roof {
			cells = append(cells, roofCells(&r.Roof)...)
		}
		tb.rows = append(tb.rows, cells)
		l := opLabel(r.Name, r.Kernels, opt)
		if r.GraphLaunches > 0 {
			// The kernels behind graph launches: this row's dispatches.
			l.tag = " [" + units.Plural(r.GraphLaunches, "graph launch", "graph launches") + "]"
		}
		labels = append(labels, l)
	}
	if len(rest) > 0 {
		var f analysis.OpFigures
		var calls int64
		for i := range rest {
			f.Dispatches = capture.SatAdd(f.Dispatches, rest[i].Dispatches)
			f.Device = capture.SatAdd(f.Device, rest[i].Device)
			calls = capture.SatAdd(calls, rest[i].Calls)
		}
		cells := []string{fmt.Sprint(calls), fmt.Sprint(f.Dispatches), Duration(f.Device, unit), frac(f.Device), ""}
		if roof {
			cells = append(cells, "", "", "", "")
		}
		tb.rows = append(tb.rows, cells)
		labels = append(labels, opText{name: fmt.Sprintf("… %d more op names", len(rest))})
	}
	if u := &t.Unattributed; u.Dispatches > 0 {
		cells := []string{"", fmt.Sprint(u.Dispatches), Duration(u.Device, unit), frac(u.Device), ""}
		if roof {
			cells = append(cells, "", "", "", "")
		}
		tb.rows = append(tb.rows, cells)
		labels = append(labels, opLabel("(launch under no op)", u.Kernels, opt))
	}
	w := tb.labelWidth(opt.width())
	fitted := make([]string, len(labels))
	for i := range labels {
		fitted[i] = labels[i].fit(w)
	}
	tb.write(p, fitted)
	if roof {
		p.f("  of roof: the time the modelled work takes at the peaks (FLOPs at the compute peak or bytes at the memory\n")
		p.f("  bandwidth, whichever is longer) over its device time; bound: which of the two is longer\n")
	}
}

// roofCells are a row's roofline cells; "-" where not modelled.
func roofCells(r *analysis.Roofline) []string {
	cells := []string{"-", "-", "-", r.Bound()}
	if v, ok := r.TFLOPS(); ok {
		cells[0] = fmt.Sprintf("%.1f", v)
	}
	if v, ok := r.TBps(); ok {
		cells[1] = fmt.Sprintf("%.2f", v)
	}
	if v, ok := r.OfPeak(); ok {
		cells[2] = Share(v)
	}
	if cells[3] == "" {
		cells[3] = "-"
	}
	return cells
}

// opText is an op row's label: the op's name, its costliest kernel and
// how many more kernels it launched, escaped.
type opText struct{ name, tag, kernel, more string }

func opLabel(name string, ks []analysis.OpKernel, opt TextOptions) opText {
	t := opText{name: safetext.Escape(name)}
	if len(ks) > 0 {
		k := ks[0].Name
		if !opt.FullNames {
			k = ShortName(k)
		}
		t.kernel = safetext.Escape(k)
		if len(ks) > 1 {
			t.more = fmt.Sprintf(" (+%d)", len(ks)-1)
		}
	}
	return t
}

// fit cuts the label to w columns (0: no limit): the kernel's name gives
// way first, the op's name only when it alone is too long; the tag stays.
func (t opText) fit(w int) string {
	whole := t.name + t.tag
	if t.kernel != "" {
		whole += " → " + t.kernel + t.more
	}
	if w <= 0 || runes(whole) <= w {
		return whole
	}
	room := w - runes(t.name) - runes(t.tag) - runes(" → ") - runes(t.more)
	if t.kernel == "" || room < 12 {
		// The tag (graph launches) stays: it says what the row's
		// dispatches are.
		return cutEnd(t.name, max(w-runes(t.tag), 8)) + t.tag
	}
	return t.name + t.tag + " → " + cutEnd(t.kernel, room) + t.more
}

// wrapWords breaks s into lines of at most w columns at spaces (w ≤ 0: one
// line).
func wrapWords(s string, w int) []string {
	if w <= 0 || runes(s) <= w {
		return []string{s}
	}
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case runes(line)+1+runes(word) <= w:
			line += " " + word
		default:
			out = append(out, line)
			line = word
		}
	}
	return append(out, line)
}
