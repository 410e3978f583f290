package kineto

import (
	"fmt"
	"math"

	"github.com/tallyprof/tally/capture"
)

// clockStats watch the ts values of complete events to tell the three
// timestamp generations apart (spec §2).
type clockStats struct {
	n         int64 // X events with a ts
	nonzero   int64
	min, max  int64 // over nonzero ts
	frac      int64 // written with a fraction
	nonzeroFr int64 // with a fraction that is not all zeros
	ts0       int64 // ts exactly 0 (the writer clamps negative relative times)
	absolute  int64 // ts ≥ absThreshold
	relative  int64 // 0 < ts < absThreshold
	exponent  int64
	maxEnd    int64 // latest ts + dur (or ts) of an X event
}

// absThreshold separates absolute epoch times (≈1.6·10^18 ns) from times
// relative to baseTimeNanoseconds (< ~7.9·10^15 ns, as the base is floored
// to a ~3-month bucket): 10^17 ns is 1973 as an epoch time.
const absThreshold = 100_000_000_000_000_000

func (c *clockStats) observe(e *event) {
	c.n++
	if e.tsFl&numFrac != 0 {
		c.frac++
	}
	if e.tsFl&numNonzeroFrac != 0 {
		c.nonzeroFr++
	}
	if e.tsFl&numExp != 0 {
		c.exponent++
	}
	end := e.ts
	if e.hasDur && !e.badDur && e.dur > 0 {
		end += e.dur // handle() made sure it does not overflow
	}
	if c.n == 1 || end > c.maxEnd {
		c.maxEnd = end
	}
	if e.ts == 0 {
		c.ts0++
		return
	}
	if c.nonzero == 0 || e.ts < c.min {
		c.min = e.ts
	}
	if c.nonzero == 0 || e.ts > c.max {
		c.max = e.ts
	}
	c.nonzero++
	if e.ts >= absThreshold {
		c.absolute++
	} else {
		c.relative++
	}
}

// timeBase is the decision made at the end of the file.
type timeBase struct {
	add   int64 // added to every time in the file
	clock capture.Clock
	gen   string // "A", "B", "C" or "" when no time was read
	// mismatch describes a base that disagrees with the ts magnitudes.
	mismatch string
}

// decideClock states the clock once the whole object has been read.
func (r *reader) decideClock() timeBase {
	c := &r.clock
	top := &r.top
	tb := timeBase{clock: capture.Clock{Domain: "unix-epoch", Unit: "ns", Timed: true}}
	precision := "µs precision"
	if c.nonzeroFr > 0 {
		precision = "ns precision"
	}
	subns := ""
	if n := r.stats.subns; n > 0 {
		subns = fmt.Sprintf("; %d values had digits below 1 ns, rounded half-even", n)
	}
	switch {
	case c.nonzero == 0 && !top.hasBase:
		tb.clock.Description = "ns since the Unix epoch (wall clock, UTC); the trace holds no timed event"
		if c.n == 0 {
			tb.clock.Timed = false
			tb.clock.Unit = ""
			tb.clock.Description = "none: the trace holds no timed event"
		}
	case top.hasBase && c.absolute == 0 && top.base > 0 && c.maxEnd > math.MaxInt64-top.base:
		// Adding the base would wrap the latest times past the int64 ns
		// range: keep the file's relative times.
		tb.gen = "C"
		tb.clock.Domain = "trace-relative"
		tb.mismatch = fmt.Sprintf("baseTimeNanoseconds=%d plus the latest event end (%d ns) passes the int64 ns range: the base was not added", top.base, c.maxEnd)
		tb.clock.Description = fmt.Sprintf("ns from an unknown origin: times are relative µs and baseTimeNanoseconds cannot be added to them (see inconsistent_trace); durations are exact (%s%s)", precision, subns)
	case top.hasBase && c.absolute == 0:
		tb.gen = "C"
		tb.add = top.base
		tb.clock.Description = fmt.Sprintf("ns since the Unix epoch (wall clock, UTC), from µs with up to 3 decimals relative to baseTimeNanoseconds=%d (generation C, %s%s)", top.base, precision, subns)
	case top.hasBase:
		// Absolute times with a base as well: adding it would double it.
		tb.gen = genAB(c)
		tb.mismatch = fmt.Sprintf("baseTimeNanoseconds=%d is present but %d of %d event times are already absolute epoch µs (%d relative): the base was not added", top.base, c.absolute, c.nonzero, c.relative)
		tb.clock.Description = fmt.Sprintf("ns since the Unix epoch (wall clock, UTC), from absolute µs (generation %s, %s%s); baseTimeNanoseconds ignored, see inconsistent_trace", tb.gen, precision, subns)
	case c.relative == 0:
		tb.gen = genAB(c)
		if tb.gen == "A" {
			tb.clock.Description = "ns since the Unix epoch (wall clock, UTC), from integer absolute µs (generation A, µs precision: events under 1 µs read as dur 0)" + subns
		} else {
			tb.clock.Description = "ns since the Unix epoch (wall clock, UTC), from absolute µs with up to 3 decimals (generation B, ns precision)" + subns
		}
	default:
		// Relative times and no base.
		tb.clock.Domain = "trace-relative"
		why := "the file has no baseTimeNanoseconds"
		if r.stop != nil {
			why = "baseTimeNanoseconds was not reached before the input ended"
		}
		tb.clock.Description = fmt.Sprintf("ns from an unknown origin: times are relative µs and %s, so absolute times are unknown (durations are exact; %s%s)", why, precision, subns)
		if c.absolute > 0 {
			tb.mismatch = fmt.Sprintf("%d event times are absolute epoch µs and %d relative, with no baseTimeNanoseconds: they cannot be put on one clock", c.absolute, c.relative)
		}
	}
	return tb
}

func genAB(c *clockStats) string {
	if c.nonzeroFr > 0 {
		return "B"
	}
	return "A"
}
