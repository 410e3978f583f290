package render

import (
	"fmt"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// How much the gaps touch, in words: the figure family of capture.Affected,
// as the text report, the HTML page and other renderers state it.

// timeShare formats an amount of device time and its share of the capture's
// device time in that unit ("13.700 ms (30.1%)").
func timeShare(v, whole int64, unit string) string {
	s := Duration(v, unit)
	if whole > 0 {
		s += " (" + Share(float64(v)/float64(whole)) + ")"
	}
	return s
}

// touchedParts lists what a gap (or all of them, the totals t) touches, in
// words, each time with its share of t's device time.
// sum says af is t's own sum over the gaps.
func touchedParts(af capture.Touched, t *capture.AffectedTotals, sum bool) []string {
	var parts []string
	var devNs, devTk, tabNs, tabTk int64
	if t != nil {
		devNs, devTk = t.DeviceNs+t.MissingNs, t.DeviceTicks+t.MissingTicks
		if sum {
			tabNs, tabTk = t.DeviceNs, t.DeviceTicks
		}
	}
	if af.MissingNs > 0 {
		parts = append(parts, timeShare(af.MissingNs, devNs, "ns")+" of device time known missing")
	}
	if af.MissingTicks > 0 {
		parts = append(parts, timeShare(af.MissingTicks, devTk, "ticks")+" of device time known missing")
	}
	if af.UnattributedNs > 0 {
		parts = append(parts, unattributed(af.UnattributedNs, devNs, tabNs, "ns"))
	}
	if af.UnattributedTicks > 0 {
		parts = append(parts, unattributed(af.UnattributedTicks, devTk, tabTk, "ticks"))
	}
	if af.LostDispatches > 0 {
		parts = append(parts, units.Plural(af.LostDispatches, "dispatch", "dispatches")+" lost")
	}
	return parts
}

// unattributed words unattributed time v of whole. Summed over gaps (the
// totals) it can pass the tables' own time — a dispatch both unnamed and
// without a launch call is under two gaps — and read "18.000 µs (112.5%)
// of device time in the tables": the tables' time is then the bound, said
// to be one, with the sum beside it.
// tables is 0 for one gap's figure.
func unattributed(v, whole, tables int64, unit string) string {
	const what = " of device time in the tables, not fully attributed"
	if tables > 0 && v > tables {
		return "up to " + timeShare(tables, whole, unit) + what + " (the gaps' figures sum to " + Duration(v, unit) + ": a dispatch under several gaps is in each)"
	}
	return timeShare(v, whole, unit) + what
}

// GapTouches is the line under a gap that says how much of the capture it
// touches ("touches: …"), or "" when it is not sized (a note).
func GapTouches(c *capture.Capture, g *capture.Gap) string {
	af := g.Affected
	if af == nil || g.Note {
		return ""
	}
	parts := touchedParts(af.Touched, c.Accounting.Affected, false)
	switch {
	case !af.Known && len(parts) == 0:
		return "touches: an unknown amount — " + af.Basis
	case !af.Known:
		return "touches: " + strings.Join(parts, ", ") + ", and an unknown amount more — " + af.Basis
	case len(parts) == 0:
		return "touches: no device time of the tables — " + af.Basis
	}
	return "touches: " + strings.Join(parts, ", ") + " — " + af.Basis
}

// AffectedClause is the verdict's figure: how much the capture's gaps touch
// in all ("13.7 ms (30.1%) of device time …; an unknown amount more:
// truncated_input"). Empty when the gaps are not sized.
func AffectedClause(c *capture.Capture) string {
	t := c.Accounting.Affected
	if t == nil {
		return ""
	}
	parts := touchedParts(t.Touched, t, true)
	s := strings.Join(parts, ", ")
	if s == "" {
		s = "no device time known to be missing or unattributed"
	}
	if len(t.Unknown) > 0 {
		var ks []string
		for _, k := range t.Unknown {
			ks = append(ks, string(k))
		}
		s += "; an unknown amount more " + NamedKinds(ks)
	}
	return s
}

// NamedKinds is how a verdict names gap kinds: "(device_fault,
// unfinished_dispatch)". tally timeline's line names them so too.
func NamedKinds(kinds []string) string {
	return "(" + strings.Join(kinds, ", ") + ")"
}

// IncompleteVerdict is the verdict line of an incomplete capture: the
// number of gaps and how much they touch.
func IncompleteVerdict(c *capture.Capture, gaps, scoped int) string {
	s := fmt.Sprintf("INCOMPLETE: %s", units.Plural(int64(gaps), "gap", "gaps"))
	if cl := AffectedClause(c); cl != "" {
		s += " — " + cl
	}
	s += ". What they list happened or was in the input, and is not in the tables"
	if scoped > 0 {
		s += fmt.Sprintf(" (%d listed under their program above)", scoped)
	}
	return s
}

// ShortVerdict is a capture's verdict in a phrase, for outputs that state
// it beside other things (export comments, timeline metadata): "complete",
// "complete up to the last line (…)", or "INCOMPLETE: " and what the gaps
// touch.
func ShortVerdict(c *capture.Capture) string {
	a := &c.Accounting
	switch {
	case !a.Complete():
		if cl := AffectedClause(c); cl != "" {
			return "INCOMPLETE: " + cl
		}
		return "INCOMPLETE"
	case a.CutUnit != "":
		return "complete up to the last " + a.CutUnit + " (no end marker: a cut at a " + a.CutUnit + " boundary cannot be seen)"
	}
	return "complete"
}
