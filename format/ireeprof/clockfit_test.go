package ireeprof

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// bigScale is floor((t×Δns + Δticks/2) / Δticks) in arbitrary precision.
func bigScale(t, dNS, dTicks uint64) *big.Int {
	n := new(big.Int).Mul(new(big.Int).SetUint64(t), new(big.Int).SetUint64(dNS))
	n.Add(n, new(big.Int).SetUint64(dTicks/2))
	return n.Div(n, new(big.Int).SetUint64(dTicks))
}

func TestScaleRounding(t *testing.T) {
	f := fit{ok: true, dTicks: 3, dNS: 10, inv: math.MaxUint64 / 3}
	for ticks, want := range map[uint64]int64{0: 0, 1: 3, 2: 7, 3: 10, 4: 13} {
		if got, ok := f.scale(ticks); !ok || got != want {
			t.Errorf("scale(%d) = %d, want %d", ticks, got, want)
		}
	}
}

// TestScale128 checks scale against big.Int where the product overflows 64
// bits, and that results past int64 are refused, never wrapped.
func TestScale128(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		f := fit{ok: true, dTicks: rng.Uint64()>>uint(rng.Intn(64)) | 1, dNS: rng.Uint64() >> uint(1+rng.Intn(63))}
		f.inv = math.MaxUint64 / f.dTicks
		ticks := rng.Uint64() >> uint(rng.Intn(64))
		want := bigScale(ticks, f.dNS, f.dTicks)
		got, ok := f.scale(ticks)
		fits := want.IsInt64()
		if ok != fits || (ok && got != want.Int64()) {
			t.Fatalf("scale(%d) with %d ns / %d ticks = %d, %v; want %s", ticks, f.dNS, f.dTicks, got, ok, want)
		}
	}
	f := fit{ok: true, dTicks: 1, dNS: math.MaxInt64, inv: math.MaxUint64}
	if _, ok := f.scale(3); ok {
		t.Error("scale: got an overflowing result accepted, want it refused")
	}
}

func TestInterval(t *testing.T) {
	f := fit{ok: true, firstTick: 1000, lastTick: 2000, firstNS: 5000, dTicks: 1000, dNS: 10000, inv: math.MaxUint64 / 1000}
	b, e, ok := f.interval(1100, 1140)
	if !ok || b != 6000 || e != 6400 {
		t.Errorf("interval = %d..%d %v, want 6000..6400 true", b, e, ok)
	}
	// Before the first sample: placed before its host time.
	if b, _, _ := f.interval(900, 950); b != 4000 {
		t.Errorf("begin before first sample = %d, want 4000", b)
	}
	if !f.extrapolated(900, 950) || f.extrapolated(1000, 2000) || !f.extrapolated(1500, 2001) {
		t.Errorf("extrapolated: got %v %v %v for 900–950, 1000–2000, 1500–2001; want true false true", f.extrapolated(900, 950), f.extrapolated(1000, 2000), f.extrapolated(1500, 2001))
	}
	if _, _, ok := f.interval(1000, math.MaxUint64); ok {
		t.Error("overflowing end: got ok, want refused")
	}
}

func TestFitConditions(t *testing.T) {
	both := uint32(clockDeviceTick | clockHostCPUTimestamp)
	cases := []struct {
		name    string
		samples []clockSample
		ok      bool
	}{
		{"two", []clockSample{{flags: both, tick: 100, hostNS: 1000}, {flags: both, tick: 200, hostNS: 2000}}, true},
		{"one", []clockSample{{flags: both, tick: 100, hostNS: 1000}}, false},
		{"ticks back", []clockSample{{flags: both, tick: 200, hostNS: 1000}, {flags: both, tick: 100, hostNS: 2000}}, false},
		{"host back", []clockSample{{flags: both, tick: 100, hostNS: 2000}, {flags: both, tick: 200, hostNS: 1000}}, false},
		{"no host flag", []clockSample{{flags: clockDeviceTick, tick: 100, hostNS: 1000}, {flags: both, tick: 200, hostNS: 2000}}, false},
		{"host beyond 2^63", []clockSample{{flags: both, tick: 100, hostNS: 1000}, {flags: both, tick: 200, hostNS: 1 << 63}}, false},
		{"unaligned middle", []clockSample{{flags: both, tick: 100, hostNS: 1000}, {flags: both | clockDeviceTickUnaligned, tick: 150, hostNS: 1500}, {flags: both, tick: 200, hostNS: 2000}}, false},
	}
	for _, c := range cases {
		d := &device{}
		for _, s := range c.samples {
			d.addSample(s)
		}
		d.computeFit()
		if d.fit.ok != c.ok || (!c.ok && d.fit.why == "") {
			t.Errorf("%s: got fit %v (%q), want %v with a reason when false", c.name, d.fit.ok, d.fit.why, c.ok)
		}
	}
}
