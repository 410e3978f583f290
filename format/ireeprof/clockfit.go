package ireeprof

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
)

// fit converts one device's ticks to ns for one session occurrence, from
// its first and last clock sample (spec §8). It is never shared between
// sessions: two GPUs that both call themselves device 0 of session 1 have
// their own fits.
type fit struct {
	ok      bool
	why     string // why there is no fit, when !ok
	samples int64

	firstTick, lastTick uint64
	firstNS             int64
	dTicks, dNS         uint64
	// inv is floor((2^64−1)/dTicks): dividing by dTicks becomes a
	// multiplication and at most a few corrections (scale runs twice per
	// dispatch, and a hardware divide costs as much as the rest).
	inv uint64
}

// addSample folds one clock sample into the device's first/last pair.
func (d *device) addSample(c clockSample) {
	if c.flags&clockDeviceTickUnaligned != 0 {
		d.unaligned++
	}
	if d.samples == 0 {
		d.first = c
	}
	d.last = c
	d.samples++
}

// computeFit decides whether the device's samples give a fit, and why not.
func (d *device) computeFit() {
	f := fit{samples: d.samples}
	both := uint32(clockDeviceTick | clockHostCPUTimestamp)
	switch {
	case d.samples == 0:
		f.why = "no clock samples"
	case d.samples == 1:
		f.why = "only 1 clock sample; a fit needs the ones written at profiling begin and end"
	case d.unaligned > 0:
		f.why = fmt.Sprintf("%d clock sample(s) flagged DEVICE_TICK_UNALIGNED", d.unaligned)
	case d.first.flags&both != both || d.last.flags&both != both:
		f.why = "the first or last clock sample lacks a device tick or a host CPU timestamp"
	case d.first.hostNS > math.MaxInt64 || d.last.hostNS > math.MaxInt64:
		f.why = "a host CPU timestamp is beyond 2^63-1 ns"
	case d.last.tick <= d.first.tick:
		f.why = fmt.Sprintf("device ticks did not increase between the first and last clock sample (%d, then %d)", d.first.tick, d.last.tick)
	case d.last.hostNS <= d.first.hostNS:
		f.why = fmt.Sprintf("host CPU timestamps did not increase between the first and last clock sample (%d ns, then %d ns)", d.first.hostNS, d.last.hostNS)
	default:
		f.ok = true
		f.firstTick, f.lastTick = d.first.tick, d.last.tick
		f.firstNS = int64(d.first.hostNS)
		f.dTicks = d.last.tick - d.first.tick
		f.dNS = d.last.hostNS - d.first.hostNS
		f.inv = math.MaxUint64 / f.dTicks
	}
	d.fit = f
}

// scale converts a tick count to ns: floor((ticks×Δns + Δticks/2) / Δticks),
// in 128-bit arithmetic so no product overflows. ok is false when the result
// does not fit an int64.
func (f *fit) scale(ticks uint64) (int64, bool) {
	hi, lo := bits.Mul64(ticks, f.dNS)
	var c uint64
	lo, c = bits.Add64(lo, f.dTicks/2, 0)
	hi += c
	if hi >= f.dTicks { // quotient would not fit 64 bits (and Div64 would panic)
		return 0, false
	}
	var q uint64
	if hi == 0 {
		q = f.div(lo)
	} else {
		q, _ = bits.Div64(hi, lo, f.dTicks)
	}
	if q > math.MaxInt64 {
		return 0, false
	}
	return int64(q), true
}

// div is n / dTicks through the precomputed reciprocal: the estimate
// mulhi(n, inv) is at most 2 below the quotient, and the loop corrects it
// exactly (TestScale128 compares with big.Int).
func (f *fit) div(n uint64) uint64 {
	q, _ := bits.Mul64(n, f.inv)
	r := n - q*f.dTicks
	for r >= f.dTicks {
		q++
		r -= f.dTicks
	}
	return q
}

// interval places a valid event on the host CPU ns timeline:
// begin = first sample's host time ± scale(|start − first tick|), and
// end = begin + scale(end − start), so the duration is exactly the fitted
// duration iree-profile prints. ok is false when a time overflows int64.
func (f *fit) interval(start, end uint64) (b, e int64, ok bool) {
	if start >= f.firstTick {
		off, ok := f.scale(start - f.firstTick)
		if !ok || off > math.MaxInt64-f.firstNS {
			return 0, 0, false
		}
		b = f.firstNS + off
	} else {
		off, ok := f.scale(f.firstTick - start)
		if !ok {
			return 0, 0, false
		}
		b = f.firstNS - off
	}
	d, ok := f.scale(end - start)
	if !ok || (b > 0 && d > math.MaxInt64-b) {
		return 0, 0, false
	}
	return b, b + d, true
}

// extrapolated reports whether an event lies outside the sampled tick range.
func (f *fit) extrapolated(start, end uint64) bool { return start < f.firstTick || end > f.lastTick }

// nsPerTick is Δns/Δticks for display.
func (f *fit) nsPerTick() string {
	return strconv.FormatFloat(float64(f.dNS)/float64(f.dTicks), 'g', 9, 64)
}

// statement is the fit in one line: "a fit over 2 clock samples: 10 ns/tick".
func (f *fit) statement() string {
	if !f.ok {
		return "no fit: " + f.why
	}
	return fmt.Sprintf("a fit over %d clock samples: %s ns/tick", f.samples, f.nsPerTick())
}
