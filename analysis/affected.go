package analysis

import (
	"github.com/tallyprof/tally/capture"
)

// Size states how much of the capture each gap touches (Gap.Affected), by
// its kind's rule (capture.RegisterKind) and the tables, and sets the
// totals (Accounting.Affected) over the tables' device time. A gap already
// sized by its reader keeps its figures.
func Size(c *capture.Capture, t *Tables) {
	for _, g := range c.Accounting.Gaps {
		if g.Note || g.Count == 0 || g.Affected != nil {
			continue
		}
		g.Affected = sizeGap(g, t)
	}
	var ns, ticks int64
	for _, pt := range t.Programs {
		if !pt.Clock.Timed {
			continue
		}
		if pt.Clock.Unit == "ns" {
			ns = capture.SatAdd(ns, pt.Total)
		} else {
			ticks = capture.SatAdd(ticks, pt.Total)
		}
	}
	tot := c.Accounting.Totals(ns, ticks, nil)
	c.Accounting.Affected = &tot
}

func sizeGap(g *capture.Gap, t *Tables) *capture.Affected {
	rule, ok := capture.RuleOf(g.Kind)
	if !ok {
		return &capture.Affected{Basis: "no rule sizes this kind"}
	}
	af := &capture.Affected{Basis: rule.Why}
	switch rule.Lost {
	case capture.LostCount:
		af.LostDispatches = g.Count
	case capture.LostFigure:
		af.LostDispatches, _ = g.Figure(rule.LostFigure)
	}
	switch rule.Measure {
	case capture.TouchesNone:
		af.Known = true
	case capture.MissingTime, capture.UnattributedTime:
		missing := rule.Measure == capture.MissingTime
		if rule.Derive != capture.DeriveNone {
			ns, ticks := derive(rule.Derive, g.Program, t)
			if missing {
				af.MissingNs, af.MissingTicks = ns, ticks
			} else {
				af.UnattributedNs, af.UnattributedTicks = ns, ticks
			}
			af.Known = true
			break
		}
		v, ok := g.Figure(rule.Figure)
		if !ok {
			af.Basis = rule.Why + "; the figure is absent, so the size is unknown"
			break
		}
		if missing {
			af.MissingNs = max(v, 0)
		} else {
			af.UnattributedNs = max(v, 0)
		}
		af.Known = true
	}
	return af
}

// derive sums, over the programs in scope (one by name, or all for ""),
// the time the derivation selects, per unit.
func derive(d capture.Derivation, program string, t *Tables) (ns, ticks int64) {
	for _, pt := range t.Programs {
		if program != "" && pt.Program.Name != program || !pt.Clock.Timed {
			continue
		}
		var sum int64
		for _, k := range pt.Kernels {
			switch d {
			case capture.DeriveUnresolved:
				if !k.Kernel.Resolved && k.Timed > 0 {
					sum = capture.SatAdd(sum, k.Total)
				}
			case capture.DeriveNoLaunch:
				sum = capture.SatAdd(sum, k.NoLaunchTotal)
			}
		}
		if pt.Clock.Unit == "ns" {
			ns = capture.SatAdd(ns, sum)
		} else {
			ticks = capture.SatAdd(ticks, sum)
		}
	}
	return ns, ticks
}
