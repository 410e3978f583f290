package ireeprof

// The end of a JSONL read: gaps, clocks and the inventory.

import (
	"fmt"
	"strconv"

	"github.com/tallyprof/tally/capture"
)

// jsonlFitDomain is the domain of durations iree-profile converted.
const jsonlFitDomain = "device-ticks fitted to host CPU ns (by iree-profile)"

func (j *jsonlReader) deviceClock(dev uint32) capture.Clock {
	where := ""
	if j.rowDevices > 1 {
		where = " (device " + ordinal(dev) + ")"
	}
	d := j.devs[dev]
	if d != nil && d.fit {
		return capture.Clock{Domain: jsonlFitDomain, Unit: "ns", Timed: true,
			Description: fmt.Sprintf("ns: device-tick durations converted by iree-profile's clock fit%s (%s; the JSONL does not say over how many clock samples); begin times are estimated from start ticks",
				where, j.rate(d))}
	}
	why := "iree-profile reported clock_fit_available false"
	if d != nil && d.mixed {
		why = "its rows disagree on clock_fit_available"
	}
	return capture.Clock{Domain: "device-ticks", Unit: "ticks", Timed: true,
		Description: fmt.Sprintf("device ticks%s: no tick-to-ns fit (%s), so times and durations stay in raw device ticks", where, why)}
}

func (j *jsonlReader) rate(d *jsonDevice) string {
	if d.ticks == 0 {
		return "tick rate unknown"
	}
	return "≈" + strconv.FormatFloat(d.ns/d.ticks, 'g', 6, 64) + " ns/tick from the rows' durations"
}

func (j *jsonlReader) finish() {
	c := j.c
	for _, p := range j.progs {
		c.Programs[p.id].Instances = p.runs
		for _, u := range p.unresolved {
			u.gap.SetFigure("dispatches", figure(u.gap, "dispatches")+u.dispatches)
		}
	}
	j.endGaps()
	g := gapOf(c, LossesUnknown, "")
	g.Summary = "the iree-profile JSONL does not carry the bundle's loss records (truncated chunks, dropped records, sessions that never ended or failed, a cut file), so tally cannot tell whether dispatches are missing: run tally on the .ireeprof bundle itself to check."
	g.Add(capture.Item{What: "sessions, clock samples, truncated chunks, dropped records and the file's end state are not in the JSONL"})
	if j.rows+j.hostRows == 0 {
		e := gapOf(c, capture.EmptyCapture, "")
		e.Summary = "the JSONL holds no dispatch rows: iree-profile found no dispatch events in the bundle, failed, or printed aggregate rows; run tally on the .ireeprof bundle itself to learn why (it checks whether dispatch events were requested and whether the capture ended cleanly)."
		e.Add(capture.Item{What: "no dispatch_event or host_dispatch_event row"})
	}
	for _, dev := range j.devOrder {
		if d := j.devs[dev]; !d.fit {
			gapOf(c, NoClockFit, "").Add(capture.Item{What: fmt.Sprintf("device %s: iree-profile had no clock fit (clock_fit_available false)", ordinal(dev))})
		}
	}
	j.dedupeKernelNames()
	j.setClock()
	j.inventory()
}

// endGaps checks the summary row against the rows, and the input's end.
func (j *jsonlReader) endGaps() {
	c := j.c
	s := j.summary
	if j.cutLast {
		gapOf(c, capture.TruncatedInput, "").Add(capture.Item{What: "the last line is cut (no newline, not valid JSON)"})
	}
	if s == nil {
		if c.Accounting.Find(ToolError) == nil {
			g := gapOf(c, capture.TruncatedInput, "")
			g.Add(capture.Item{What: "no dispatch_summary row: iree-profile prints one after the last dispatch row"})
		}
	}
	if j.aggregate > 0 || s != nil && s.Mode == "aggregate" {
		g := gapOf(c, capture.SkippedInput, "")
		g.Add(capture.Item{What: fmt.Sprintf("%d aggregate rows (per kernel totals): rerun iree-profile with --dispatch_events for per-dispatch rows", j.aggregate)})
	}
	if s != nil {
		if s.Filter != "" && s.Filter != "*" || s.Matched < s.Total || s.MatchedHost < s.TotalHost {
			g := gapOf(c, capture.SkippedInput, "")
			g.Add(capture.Item{What: fmt.Sprintf("iree-profile was run with filter %q: it matched %d of %d dispatch events and %d of %d host dispatches", s.Filter, s.Matched, s.Total, s.MatchedHost, s.TotalHost)})
		}
		if s.Mode != "aggregate" && (s.Matched != j.rows || s.MatchedHost != j.hostRows) {
			g := gapOf(c, capture.InconsistentTrace, "")
			g.Add(capture.Item{What: fmt.Sprintf("the dispatch_summary counts %d dispatch and %d host dispatch rows, the JSONL holds %d and %d", s.Matched, s.MatchedHost, j.rows, j.hostRows)})
		}
	}
	if g := c.Accounting.Find(capture.TruncatedInput); g != nil {
		g.Summary = "the JSONL ends early (a cut last line, or no closing dispatch_summary row), so the dispatches after the cut are missing: rerun iree-profile and keep its whole output."
	}
	if g := c.Accounting.Find(ToolError); g != nil {
		g.Summary = "iree-profile printed an error and stopped, so its rows end there (on a cut bundle it prints no dispatch at all): run tally on the .ireeprof bundle itself, which keeps every complete record."
	}
	if g := c.Accounting.Find(capture.SkippedInput); g != nil {
		g.Summary = "parts of the JSONL are not per-dispatch rows (aggregate rows, a filter, or lines that are not JSON), so the dispatches they stand for are not in the tables: run `iree-profile --format=jsonl --dispatch_events dispatch FILE` without a filter."
	}
	if g := c.Accounting.Find(capture.InconsistentTrace); g != nil {
		g.Summary = "the rows do not add up to iree-profile's own dispatch_summary, so rows are missing or duplicated: rerun iree-profile and keep its whole output."
	}
}

func (j *jsonlReader) dedupeKernelNames() {
	for _, p := range j.progs {
		p.dedupeKernelNames(j.c)
	}
}

func (j *jsonlReader) setClock() {
	var clocks []capture.Clock
	for _, p := range j.progs {
		seen := false
		for _, c := range clocks {
			seen = seen || c == p.clock
		}
		if !seen {
			clocks = append(clocks, p.clock)
		}
	}
	switch len(clocks) {
	case 0:
		j.c.Clock = capture.Clock{Description: "none: the JSONL holds no dispatch times"}
	case 1:
		j.c.Clock = clocks[0]
	default:
		j.c.Clock = capture.Clock{Domain: "mixed", Timed: true,
			Description: "mixed: each program states its clock below (device programs in ns through iree-profile's clock fit, or in device ticks; host execution programs on IREE's host clock)"}
	}
	for _, p := range j.progs {
		if p.clock == j.c.Clock {
			j.c.Programs[p.id].Clock = nil
		}
	}
}

func (j *jsonlReader) inventory() {
	c := j.c
	sec := capture.Section{Title: "iree-profile JSONL"}
	sec.Add("dispatch_event rows", j.rows)
	sec.Add("host_dispatch_event rows", j.hostRows)
	if s := j.summary; s != nil {
		sec.Add("dispatch_summary", fmt.Sprintf("mode %s, filter %q: %d dispatches (%d matched, %d valid, %d invalid), %d host dispatches (%d matched, %d valid, %d invalid)",
			s.Mode, s.Filter, s.Total, s.Matched, s.ValidCount, s.InvalidCount, s.TotalHost, s.MatchedHost, s.ValidHostCount, s.InvalidHostCount))
	} else {
		sec.Add("dispatch_summary", "absent")
	}
	if j.aggregate > 0 {
		sec.Add("aggregate rows (not read)", j.aggregate)
	}
	for _, dev := range j.devOrder {
		d := j.devs[dev]
		v := "no fit: durations in device ticks"
		if d.fit {
			v = "iree-profile's fit: " + j.rate(d)
		}
		sec.Add("clock, device "+ordinal(dev), v)
	}
	c.Inventory = append(c.Inventory, sec)
	not := capture.Section{Title: "not in the JSONL"}
	not.Add("sessions", "which session each row belongs to, and how each session ended (iree-profile merges sessions that share a device ordinal)")
	not.Add("clock", "the clock samples and the exact fit; begin times are estimated from start ticks")
	not.Add("losses", "truncated chunks, dropped records, an unfinalised or cut bundle")
	not.Add("metadata", "queue records (events on unknown queues), executables beyond the function name")
	c.Inventory = append(c.Inventory, not, missingSection(c))
	c.CommentsAt = len(c.Inventory)
	for _, dev := range j.devOrder {
		key := "clock"
		if len(j.devOrder) > 1 {
			key = "clock (device " + ordinal(dev) + ")"
		}
		if d := j.devs[dev]; d.fit {
			c.Comment(key, "device ticks converted to ns by iree-profile's clock fit ("+j.rate(d)+"; the JSONL does not say over how many clock samples)")
		} else {
			c.Comment(key, "no tick-to-ns fit in iree-profile's output: times are in device ticks")
		}
	}
	c.Comment("source", "iree-profile JSONL: no session, clock-sample or loss records; read the .ireeprof bundle for those")
}
