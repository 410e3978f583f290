package capture

import (
	"fmt"
	"time"
)

// MaxDuration is the longest interval (device execution or host launch)
// tally accepts as a measurement on a ns clock: one hour. A kernel that ran
// longer inside a profile is not a profile's kernel — it is a garbage end
// time (an int64 maximum, a clock from another domain, a start of -5 on an
// absolute clock). Readers' options may raise it (--max-duration).
const MaxDuration = int64(time.Hour)

// ImpossibleTime reports why a dispatch's times cannot be a measurement: a
// negative time, an interval that ends before it begins, or one longer
// than ceiling (ns; 0 means no ceiling). Aggregated records carry no single
// times and always pass.
func ImpossibleTime(d *Dispatch, ceiling int64) (string, bool) {
	// Every dispatch of every read passes here: the test of a plausible
	// one is inlined, and only an impossible one pays for its sentence.
	if plausible(d.Device, ceiling) && plausible(d.Launch, ceiling) {
		return "", true
	}
	return impossibleWhy(d, ceiling)
}

// plausible is ImpossibleTime's test of one interval: none, or one that
// starts at or after 0, ends at or after its start (so at or after 0),
// and lasts at most ceiling. End-Begin cannot wrap with both ends ≥ 0.
func plausible(i Interval, ceiling int64) bool {
	return !i.Valid || i.Begin >= 0 && i.End >= i.Begin && (ceiling <= 0 || i.End-i.Begin <= ceiling)
}

// impossibleWhy is ImpossibleTime's sentence for a dispatch that is not
// plausible: the first interval and rule it breaks.
func impossibleWhy(d *Dispatch, ceiling int64) (string, bool) {
	for _, iv := range []struct {
		name string
		i    Interval
	}{{"device", d.Device}, {"launch", d.Launch}} {
		if !iv.i.Valid {
			continue
		}
		switch {
		case iv.i.Begin < 0:
			return fmt.Sprintf("%s interval starts at %d, a negative time", iv.name, iv.i.Begin), false
		case iv.i.End < 0:
			return fmt.Sprintf("%s interval ends at %d, a negative time", iv.name, iv.i.End), false
		case iv.i.End < iv.i.Begin:
			return fmt.Sprintf("%s interval ends (%d) before it begins (%d)", iv.name, iv.i.End, iv.i.Begin), false
		case ceiling > 0 && iv.i.End-iv.i.Begin > ceiling:
			return fmt.Sprintf("%s interval lasts %d, longer than the ceiling of %d", iv.name, iv.i.End-iv.i.Begin, ceiling), false
		}
	}
	return "", true
}

// pendingGap collects one gap's occurrences while a reader runs.
type pendingGap struct {
	count   int64
	items   []Item
	omitted int64
	figures []Count
}

func (p *pendingGap) add(it Item) {
	p.count = SatAdd(p.count, 1)
	if len(p.items) < MaxItems {
		p.items = append(p.items, it)
	} else {
		p.omitted++
	}
}

func (p *pendingGap) figure(name string, v int64) {
	for i := range p.figures {
		if p.figures[i].Name == name {
			p.figures[i].Count = SatAdd(p.figures[i].Count, v)
			return
		}
	}
	p.figures = append(p.figures, Count{Name: name, Count: v})
}

func pendingFor(m *map[ProgramID]*pendingGap, p ProgramID) *pendingGap {
	if *m == nil {
		*m = map[ProgramID]*pendingGap{}
	}
	g := (*m)[p]
	if g == nil {
		g = &pendingGap{}
		(*m)[p] = g
	}
	return g
}

func (s *Checked) invalidEvent(c *Capture, d *Dispatch, why string) {
	g := pendingFor(&s.invalid, d.Program)
	g.add(dispatchItem(c, d, why+": not in the tables"))
	if dur, ok := d.Device.Duration(); ok && dur > 0 {
		g.figure("claimed_ns", dur)
	}
}

func (s *Checked) duplicate(c *Capture, d *Dispatch) {
	g := pendingFor(&s.duplicates, d.Program)
	g.add(dispatchItem(c, d, fmt.Sprintf("record %d (scope %d) repeats one already read: counted once", d.Key.ID, d.Key.Scope)))
	if dur, ok := d.Device.Duration(); ok {
		g.figure("repeated_ns", dur)
	}
}

// dispatchItem is an occurrence at dispatch d: its program and kernel, and
// its queue and device start where it has them.
func dispatchItem(c *Capture, d *Dispatch, what string) Item {
	it := Item{What: what, Program: c.Programs[d.Program].Name, Kernel: c.Kernels[d.Kernel].Name}
	if d.Queue != NoQueue {
		it.Queue = QueueOf(d.Queue)
	}
	if d.Device.Valid {
		it.Time = TimeOf(d.Device.Begin)
	}
	return it
}

// Finish adds the gaps the checks found to c, the capture the reader
// returned. Call it once, after the read.
func (s *Checked) Finish(c *Capture) {
	if c == nil {
		return
	}
	apply := func(m map[ProgramID]*pendingGap, kind Kind, summary string) {
		for p := ProgramID(0); int(p) < len(c.Programs); p++ {
			pg := m[p]
			if pg == nil {
				continue
			}
			g := c.Accounting.Gap(kind, c.Programs[p].Name)
			if g.Summary == "" {
				g.Summary = summary
			}
			g.AddN(pg.count)
			for _, it := range pg.items {
				if len(g.Items) < MaxItems {
					g.Items = append(g.Items, it)
				} else {
					g.ItemsOmitted++
				}
			}
			g.ItemsOmitted += pg.omitted
			for _, f := range pg.figures {
				have, _ := g.Figure(f.Name)
				g.SetFigure(f.Name, SatAdd(have, f.Count))
			}
		}
	}
	apply(s.invalid, InvalidEvent, "events with impossible times — negative, reversed, or longer than the ceiling for one dispatch: not in the tables and never timed as measurements (claimed_ns is what they would have added)")
	apply(s.duplicates, DuplicateEvent, "records that repeat one already read (the same record identity): counted once, the repeats are not in the tables (repeated_ns is the time they would have added twice)")
	apply(s.raisedLong, RaisedCeiling, "dispatches longer than the default ceiling for one dispatch (one hour on a ns clock), in the tables only because the ceiling was raised (--max-duration): measurements by the user's word")
	if n := s.keys.unchecked; n > 0 {
		g := c.Accounting.Gap(DuplicatesUnchecked, "")
		g.Summary = "the duplicate check kept too many distinct record identities and stopped: repeats among these dispatches cannot be ruled out"
		g.AddN(n)
	}
	s.invalid, s.duplicates, s.raisedLong = nil, nil, nil
}
