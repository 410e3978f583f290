package capture

import "math"

// Checked wraps a sink so that every dispatch is held to the model's rules
// before it is passed on, for every reader alike:
//
//   - a dispatch that breaks the tables (CheckDispatch) is a reader bug: the
//     first is kept in Err and none is passed on;
//   - a dispatch with impossible times (ImpossibleTime) is an invalid_event
//     gap with its figures, and is not passed on: it never reads as a
//     measurement;
//   - a dispatch whose record key (Dispatch.Key) was seen before is a
//     duplicate_event gap, and only the first is passed on.
//
// Gaps are collected here and added to the capture by Finish, once the
// reader has returned it.
type Checked struct {
	Next Sink
	// Err is the first violation of the model; Bad counts every dispatch
	// that broke it.
	Err error
	Bad int64
	// Ceiling is the longest device or launch interval accepted as
	// measured, in ns (0: MaxDuration). A program whose clock is not (or
	// not yet) stated in ns — device ticks of unknown length, or a reader
	// that states its clock only when the read ends — is held to
	// TicksPerNs times it: no device clock ticks faster than 10 GHz, so that
	// many ticks are at least as long as the ceiling.
	Ceiling int64

	invalid    map[ProgramID]*pendingGap
	duplicates map[ProgramID]*pendingGap
	raisedLong map[ProgramID]*pendingGap // RaisedCeiling
	keys       keySets
}

// Dispatch checks d and forwards it when it holds.
func (s *Checked) Dispatch(c *Capture, d *Dispatch) {
	if !fits(c, d) {
		if err := c.CheckDispatch(d); err != nil {
			if s.Err == nil {
				s.Err = err
			}
			s.Bad++
			return
		}
	}
	// ImpossibleTime, with its test inlined.
	if ceil := s.ceiling(c, d); !plausible(d.Device, ceil) || !plausible(d.Launch, ceil) {
		why, _ := impossibleWhy(d, ceil)
		s.invalidEvent(c, d, why)
		return
	} else if s.Ceiling > MaxDuration {
		s.raised(c, d, ceil)
	}
	if d.Key.Set {
		if first := s.keys.add(d.Key); !first {
			s.duplicate(c, d)
			return
		}
	}
	s.Next.Dispatch(c, d)
}

// fits is CheckDispatch's verdict for a single dispatch that holds, small
// enough to inline: false sends the dispatch (and every aggregated record)
// to CheckDispatch, which decides and says why.
func fits(c *Capture, d *Dispatch) bool {
	k, p := int(d.Kernel), int(d.Program)
	return k >= 0 && k < len(c.Kernels) && p >= 0 && p < len(c.Programs) &&
		c.Kernels[k].Program == d.Program && d.Aggregate == nil && d.Collective == nil &&
		(d.Queue == NoQueue || d.Queue >= 0 && int(d.Queue) < len(c.Queues))
}

func (s *Checked) ceiling(c *Capture, d *Dispatch) int64 {
	ceil := MaxDuration
	if s.Ceiling > 0 {
		ceil = s.Ceiling
	}
	return inClockOf(c, d, ceil)
}

// inClockOf is a ceiling of ns in the unit of d's program's clock.
func inClockOf(c *Capture, d *Dispatch, ceil int64) int64 {
	// c.ProgramClock(d.Program).Unit, without copying the Clock.
	unit := c.Clock.Unit
	if p := int(d.Program); p >= 0 && p < len(c.Programs) && c.Programs[p].Clock != nil {
		unit = c.Programs[p].Clock.Unit
	}
	if unit == "ns" {
		return ceil
	}
	if ceil > math.MaxInt64/TicksPerNs {
		return math.MaxInt64
	}
	return ceil * TicksPerNs
}

// TicksPerNs bounds the tick rate of any device clock (10 GHz): the ceiling
// in ticks of unknown length is this many times the ns ceiling.
const TicksPerNs = 10
