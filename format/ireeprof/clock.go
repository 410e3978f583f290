package ireeprof

// The clock statements: what a program's (and the capture's) times are.

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
)

// hostClock is the clock of host execution spans.
var hostClock = capture.Clock{
	Domain:      "iree-host-ns",
	Unit:        "ns",
	Timed:       true,
	Description: "ns on IREE's host clock (iree_time_now): host execution spans a CPU producer timed itself",
}

// fittedDomain is the domain of device ticks converted through a fit.
const fittedDomain = "device-ticks fitted to host CPU ns"

// deviceClock is the clock of the device programs of (s, dev).
func (r *reader) deviceClock(s *session, dev uint32) capture.Clock {
	where := ""
	if r.res.multiSession || len(s.dispatchDevices) > 1 {
		where = fmt.Sprintf(" (session %d, device %s)", s.occ, ordinal(dev))
	}
	d := s.devices[dev]
	if d != nil && d.fit.ok {
		return capture.Clock{Domain: fittedDomain, Unit: "ns", Timed: true,
			Description: fmt.Sprintf("ns%s: device ticks converted by a per-session fit over %d clock samples (%s ns/tick); durations are device execution times",
				where, d.fit.samples, d.fit.nsPerTick())}
	}
	why := "no clock samples"
	if d != nil {
		why = d.fit.why
	}
	return capture.Clock{Domain: "device-ticks", Unit: "ticks", Timed: true,
		Description: fmt.Sprintf("device ticks%s: no tick-to-ns fit was possible (%s), so times and durations stay in raw device ticks", where, why)}
}

// setClock states the capture's clock: the one clock all programs share,
// or a statement that each program has its own.
func (r *reader) setClock() {
	var clocks []capture.Clock
	for _, p := range r.res.progs {
		seen := false
		for _, c := range clocks {
			seen = seen || c == p.clock
		}
		if !seen {
			clocks = append(clocks, p.clock)
		}
	}
	switch {
	case len(clocks) == 1:
		r.c.Clock = clocks[0]
	case len(clocks) == 0:
		r.c.Clock = r.idleClock()
	default:
		allNS, allFit := true, true
		for _, c := range clocks {
			allNS = allNS && c.Unit == "ns"
			allFit = allFit && c.Domain == fittedDomain
		}
		c := capture.Clock{Domain: "mixed", Timed: true,
			Description: "mixed: each program states its clock below (device programs in ns through their own session's clock fit, or in device ticks where no fit was possible; host execution programs on IREE's host clock)"}
		if allNS {
			c.Unit = "ns"
		}
		if allFit {
			c.Domain = fittedDomain
			c.Description = "ns: device ticks converted by per-session, per-device clock fits (each program states its own); durations are device execution times"
		}
		r.c.Clock = c
	}
	for _, p := range r.res.progs {
		if p.clock == r.c.Clock {
			r.c.Programs[p.id].Clock = nil
		}
	}
}

// idleClock is the clock statement of a capture without dispatches: the fit
// its first device would have had.
func (r *reader) idleClock() capture.Clock {
	for _, s := range r.sessions {
		for _, dev := range s.deviceList {
			if s.devices[dev].samples > 0 {
				return r.deviceClock(s, dev)
			}
		}
	}
	return capture.Clock{Description: "none: the bundle holds no dispatch times"}
}
