package render

import (
	"fmt"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// The time breakdown in the text report: a compact block per device before
// the kernel tables (busy by class, idle by cause, as shares of the
// device's window; only the parts that are not zero — the JSON report
// holds every figure), and a launch line per program under its heading.
// Lines keep within the tables' width.

// breakdownHead opens the block.
const breakdownHead = "where device time went, per device (window: its first recorded start to its last end; rules: docs/breakdown.md)"

func writeBreakdown(p *printer, c *capture.Capture, b *analysis.Breakdown, opt TextOptions) {
	width := opt.width()
	p.f("\n%s\n", breakdownHead)
	if b.Err != nil {
		p.f("  breakdown not made: %v\n", b.Err)
		return
	}
	if len(b.Devices) == 0 {
		p.f("  no dispatch has a device time: nothing to break down\n")
	}
	// A device whose programs are on several clocks is a row per clock:
	// their labels name the clock.
	rows := map[string]int{}
	for i := range b.Devices {
		rows[deviceLabel(&b.Devices[i], b.Total != nil)]++
	}
	// The merged view of many inputs: each input's rows are in its own
	// section above (and all in the JSON), so only their sum here.
	merged := b.Total != nil && len(b.Devices) > 1
	if merged {
		p.f("  each input's devices: in its section above\n")
	}
	for i := range b.Devices {
		if merged {
			break
		}
		r := &b.Devices[i]
		label := deviceLabel(r, b.Total != nil)
		if rows[label] > 1 && r.Clock != "" {
			label += " · clock " + r.Clock
		}
		writeDevice(p, r, label, b.SyncRecorded, width)
	}
	if merged {
		writeDevice(p, b.Total, fmt.Sprintf("all %d device rows", len(b.Devices)), b.SyncRecorded, width)
	}
	if b.Untimed > 0 || b.Aggregated > 0 {
		var parts []string
		if b.Untimed > 0 {
			parts = append(parts, units.Plural(b.Untimed, "dispatch", "dispatches")+" without a device time")
		}
		if b.Aggregated > 0 {
			parts = append(parts, units.Plural(b.Aggregated, "dispatch", "dispatches")+" known only from aggregated records")
		}
		p.lines(wrapText("  in no window: ", "    ", strings.Join(parts, ", "), width))
	}
	if b.InMemory {
		p.lines(wrapText("  note: ", "    ", analysis.InMemoryReason, width))
	}
	if kinds := GapKinds(c); len(kinds) > 0 {
		var ks []string
		for _, k := range kinds {
			ks = append(ks, string(k))
		}
		s := "the capture has gaps (" + strings.Join(ks, ", ") + "): the breakdown holds only the recorded dispatches"
		if cl := AffectedClause(c); cl != "" {
			s += "; the gaps touch " + cl
		}
		p.lines(wrapText("  ", "    ", s, width))
	}
}

// deviceLabel names a row: its input (merged view), rank and device.
func deviceLabel(r *analysis.DeviceBreakdown, many bool) string {
	var parts []string
	if many && !r.HasRank {
		parts = append(parts, fmt.Sprintf("input %d", r.Input+1))
	}
	if r.HasRank {
		parts = append(parts, "rank "+r.Rank)
	}
	parts = append(parts, r.Device)
	return strings.Join(parts, " · ")
}

func writeDevice(p *printer, r *analysis.DeviceBreakdown, label string, sync bool, width int) {
	u := r.Unit
	head := fmt.Sprintf("  %s: window %s, %s", label, Duration(r.Window, u), units.Plural(r.Dispatches, "dispatch", "dispatches"))
	if r.Queues > 1 {
		head += fmt.Sprintf(" on %d queues", r.Queues)
	}
	if u != "ns" {
		head += " (times in " + unitName(u) + ")"
	}
	p.f("%s\n", head)
	share := func(v int64) string {
		if r.Window <= 0 {
			return "-"
		}
		return Share(float64(v) / float64(r.Window))
	}
	part := func(name string, v int64) string { return name + " " + Duration(v, u) + " " + share(v) }
	busy := nonZero(nil, part, figure{"compute", r.Busy.Compute}, figure{"comm", r.Busy.Comm}, figure{"memcpy", r.Busy.Memcpy},
		figure{"memset", r.Busy.Memset})
	var idle []string
	if r.Idle.HostWait > 0 {
		s := part("host_wait", r.Idle.HostWait)
		switch {
		case r.Bracketed:
		case sync:
			s += " (" + Duration(r.HostWaitAfterSync, u) + " after a sync call)"
		default:
			s += " (after a sync call: not recorded)"
		}
		idle = append(idle, s)
	}
	idle = nonZero(idle, part, figure{"launch_latency", r.Idle.LaunchLatency}, figure{"other_stream", r.Idle.OtherStream},
		figure{"unrecorded", r.Idle.Unrecorded}, figure{"unexplained", r.Idle.Unexplained})
	bs, is := Duration(r.Busy.Sum(), u), Duration(r.Idle.Sum(), u)
	w := max(runes(bs), runes(is))
	lead := func(name, v string, total int64) string {
		return fmt.Sprintf("    %s  %s%s  %6s  ", name, strings.Repeat(" ", w-runes(v)), v, share(total))
	}
	if len(busy) == 0 {
		busy = []string{"none"}
	}
	if len(idle) == 0 {
		idle = []string{"none"}
	}
	l := lead("busy", bs, r.Busy.Sum())
	p.lines(wrapParts(l, strings.Repeat(" ", runes(l)), busy, " · ", width))
	l = lead("idle", is, r.Idle.Sum())
	p.lines(wrapParts(l, strings.Repeat(" ", runes(l)), idle, " · ", width))
	if r.CommTotal > 0 {
		p.lines(wrapText("    ", "      ", fmt.Sprintf("comm %s in all: %s of it hidden under compute, %s exposed",
			Duration(r.CommTotal, u), Duration(r.CommOverlapped, u), Duration(r.CommTotal-r.CommOverlapped, u)), width))
	}
	if d := r.MemcpyByDirection; r.Busy.Memcpy > 0 && d.Other != r.Busy.Memcpy {
		parts := nonZero(nil, func(name string, v int64) string { return name + " " + Duration(v, u) },
			figure{"HtoD", d.HtoD}, figure{"DtoH", d.DtoH}, figure{"DtoD", d.DtoD}, figure{"PtoP", d.PtoP}, figure{"other", d.Other})
		p.lines(wrapParts("    memcpy by direction: ", "      ", parts, " · ", width))
	}
	if r.GraphBusy > 0 {
		p.lines(wrapText("    ", "      ", fmt.Sprintf("graph replays: %s of the busy time ran behind graph launches (no launch call per kernel: "+
			"their gaps are never host_wait)", Duration(r.GraphBusy, u)), width))
	}
	for _, why := range r.Reasons {
		p.lines(wrapText("    note: ", "          ", why, width))
	}
}

// figure is one named time of a device row (busy by class, idle by cause).
type figure struct {
	name string
	v    int64
}

// nonZero appends show(name, v) of each figure above zero to out, in order.
func nonZero(out []string, show func(name string, v int64) string, figs ...figure) []string {
	for _, f := range figs {
		if f.v > 0 {
			out = append(out, show(f.name, f.v))
		}
	}
	return out
}

// writeLaunch prints a program's launch line(s) under its heading.
func writeLaunch(p *printer, pl *analysis.ProgramLaunch, opt TextOptions) {
	width := opt.width()
	u := pl.Unit
	var parts []string
	if pl.Launched > 0 {
		s := fmt.Sprintf("%s in %s", Duration(pl.HostLaunch, u), units.Plural(pl.Launched, "launched dispatch", "launched dispatches"))
		if pl.Device > 0 {
			s += fmt.Sprintf(" (%s of the device time)", Share(float64(pl.HostLaunch)/float64(pl.Device)))
		}
		parts = append(parts, "host launch calls "+s)
	}
	if d := pl.Delay; d != nil {
		s := fmt.Sprintf("launch→start mean %s, p50 %s, p99 %s, max %s", DurationF(d.Mean, u), Duration(d.P50, u), Duration(d.P99, u), Duration(d.Max, u))
		if d.Graph > 0 {
			s += fmt.Sprintf(" (%d from a graph launch call)", d.Graph)
		}
		parts = append(parts, s)
	}
	if u == "ns" && pl.Timed > 0 {
		sd, st := pl.ShortShare()
		parts = append(parts, fmt.Sprintf("short kernels (< %s): %d of %d timed dispatches (%s), %s of device time",
			Threshold(opt.Breakdown.Options.ShortKernel), pl.Short, pl.Timed, Share(sd), Share(st)))
	}
	if len(parts) == 0 {
		return
	}
	p.lines(wrapParts("  launch: ", "    ", parts, "; ", width))
	if pl.LaunchBound {
		p.lines(wrapText("  LAUNCH-BOUND: ", "    ", fmt.Sprintf("the host spent longer in launch calls (%s) than the device ran (%s): "+
			"fewer, larger kernels or graph launches would help", Duration(pl.HostLaunch, u), Duration(pl.Device, u)), width))
	}
}

// launchOf finds program pt's launch statistics in b (by name and unit).
func launchOf(b *analysis.Breakdown, pt *analysis.ProgramTable) *analysis.ProgramLaunch {
	if b == nil {
		return nil
	}
	for i := range b.Programs {
		pl := &b.Programs[i]
		if pl.Program == pt.Program.Name && pl.Unit == pt.Clock.Unit {
			return pl
		}
	}
	return nil
}

// writeLaunchTable prints the per-kernel launch statistics of a program
// (--launch-stats): the kernels with launch records.
func writeLaunchTable(p *printer, pl *analysis.ProgramLaunch, opt TextOptions) {
	u := pl.Unit
	var rows []analysis.KernelRow
	t := table{head: []string{"launched", "launch mean", "delay mean", "p50", "p99", "max", "short"}, label: "kernel (launch statistics)"}
	for _, k := range pl.Kernels {
		if k.Launched == 0 {
			continue
		}
		rows = append(rows, analysis.KernelRow{Kernel: k.Kernel})
		mean, p50, p99, mx := "-", "-", "-", "-"
		if d := k.Delay; d != nil {
			mean, p50, p99, mx = DurationF(d.Mean, u), Duration(d.P50, u), Duration(d.P99, u), Duration(d.Max, u)
		}
		short := "-"
		if k.Timed > 0 && u == "ns" {
			short = fmt.Sprintf("%d", k.Short)
		}
		t.rows = append(t.rows, []string{fmt.Sprint(k.Launched), DurationF(float64(k.LaunchTotal)/float64(k.Launched), u), mean, p50, p99, mx, short})
	}
	if len(rows) == 0 {
		return
	}
	names, tags := kernelIdents(rows, opt.FullNames)
	room := t.labelWidth(opt.width())
	widths := make([]int, len(rows))
	for i := range widths {
		if room > 0 {
			widths[i] = max(room-runes(tags[i]), minNameWidth)
		}
	}
	fitted := fitNames(names, tags, widths)
	for i := range fitted {
		fitted[i] += tags[i]
	}
	t.write(p, fitted)
}

// Threshold formats a threshold in ns without trailing zeros ("10 µs").
func Threshold(ns int64) string {
	s := units.NS(float64(ns))
	num, unit, ok := strings.Cut(s, " ")
	if ok && strings.Contains(num, ".") {
		num = strings.TrimRight(strings.TrimRight(num, "0"), ".")
	}
	return num + " " + unit
}

// lines prints each line (escaped).
func (p *printer) lines(ls []string) {
	for _, l := range ls {
		p.f("%s\n", l)
	}
}

// wrapParts joins parts with sep after lead, starting a new line (with
// indent) before a part that would pass width (0: no limit); a part is
// never split.
func wrapParts(lead, indent string, parts []string, sep string, width int) []string {
	var out []string
	line := lead
	first := true
	for _, part := range parts {
		add := part
		if !first {
			add = sep + part
		}
		if !first && width > 0 && runes(line)+runes(add) > width {
			out = append(out, strings.TrimRight(line+strings.TrimRight(sep, " "), " "))
			line = indent + part
		} else {
			line += add
		}
		first = false
	}
	return append(out, line)
}

// wrapText wraps text at spaces after lead, continuation lines indented.
func wrapText(lead, indent, text string, width int) []string {
	return wrapParts(lead, indent, strings.Fields(text), " ", width)
}
