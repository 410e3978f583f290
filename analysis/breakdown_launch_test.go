package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Launch statistics: delays (device start − launch call end) with mean,
// percentiles and max; host launch time counting a graph launch once;
// short kernels; the launch-bound verdict.
func TestLaunchStats(t *testing.T) {
	b := newBD()
	const us = 1000
	bd := b.run(t, BreakdownOptions{ShortKernel: 10 * us},
		// gemm: 4 dispatches of 100 µs with delays 5, 10, 20, 100 µs; launch calls of 2 µs.
		disp{q: b.s1, k: b.gemm, s: 1000 * us, e: 1100 * us, lb: 993 * us, le: 995 * us},
		disp{q: b.s1, k: b.gemm, s: 2000 * us, e: 2100 * us, lb: 1988 * us, le: 1990 * us},
		disp{q: b.s1, k: b.gemm, s: 3000 * us, e: 3100 * us, lb: 2978 * us, le: 2980 * us},
		disp{q: b.s1, k: b.gemm, s: 4000 * us, e: 4100 * us, lb: 3898 * us, le: 3900 * us},
		// elementwise: 3 short kernels (4 µs) replayed by one graph launch of 30 µs.
		disp{q: b.s1, k: b.gemm2, s: 5000 * us, e: 5004 * us, lb: 4900 * us, le: 4930 * us, graph: true},
		disp{q: b.s1, k: b.gemm2, s: 5010 * us, e: 5014 * us, lb: 4900 * us, le: 4930 * us, graph: true},
		disp{q: b.s1, k: b.gemm2, s: 5020 * us, e: 5024 * us, lb: 4900 * us, le: 4930 * us, graph: true},
		// A dispatch without a launch call: in the counts, not the delays.
		disp{q: b.s1, k: b.gemm2, s: 6000 * us, e: 6004 * us, noCall: true},
	)
	if len(bd.Programs) != 1 {
		t.Fatalf("programs: got %d, want 1", len(bd.Programs))
	}
	p := bd.Programs[0]
	if p.Dispatches != 8 || p.Timed != 8 || p.Launched != 7 || p.Device != 400*us+16*us {
		t.Errorf("counts: got %d dispatches, %d timed, %d launched, device %d; want 8, 8, 7, %d", p.Dispatches, p.Timed, p.Launched, p.Device, 416*us)
	}
	// 4 × 2 µs + the graph launch once (30 µs), not three times.
	if p.HostLaunch != 38*us || p.LaunchBound {
		t.Errorf("host launch: got %d (bound %v), want %d, not launch-bound", p.HostLaunch, p.LaunchBound, 38*us)
	}
	if p.Short != 4 || p.ShortTime != 16*us {
		t.Errorf("short: got %d dispatches, %d ns; want 4, %d", p.Short, p.ShortTime, 16*us)
	}
	var gemm, elt *KernelLaunch
	for i := range p.Kernels {
		switch p.Kernels[i].Kernel.Name {
		case "sm90_gemm":
			gemm = &p.Kernels[i]
		case "elementwise":
			elt = &p.Kernels[i]
		}
	}
	d := gemm.Delay
	if d == nil || d.N != 4 || d.Mean != 33.75*us || d.Min != 5*us || d.Max != 100*us || d.Graph != 0 {
		t.Fatalf("gemm delay: got %+v, want 4 delays, mean 33.75 µs, min 5 µs, max 100 µs", d)
	}
	// p50 is the 2nd of 4 (10 µs), p99 the 4th (100 µs), within 0.8%.
	if !near(d.P50, 10*us) || !near(d.P99, 100*us) {
		t.Errorf("gemm p50, p99: got %d, %d, want 10000 and 100000 within 0.8%%", d.P50, d.P99)
	}
	if gemm.LaunchTotal != 8*us || elt.LaunchTotal != 90*us {
		t.Errorf("launch totals: got gemm %d, elementwise %d; want %d and %d (every dispatch's call)", gemm.LaunchTotal, elt.LaunchTotal, 8*us, 90*us)
	}
	// Graph replays: delays from the graph launch's end, counted as such.
	if e := elt.Delay; e == nil || e.N != 3 || e.Graph != 3 || e.Min != 70*us || e.Max != 90*us {
		t.Errorf("elementwise delay: got %+v, want 3 from a graph launch, 70–90 µs", e)
	}
	if p.Delay == nil || p.Delay.N != 7 || p.Delay.Max != 100*us {
		t.Errorf("program delay: got %+v, want the 7 delays", p.Delay)
	}
}

func near(got, want int64) bool {
	return math.Abs(float64(got-want)) <= float64(want)*histPrecision+1
}

// A program whose launch calls take longer than its kernels run is
// launch-bound; one whose kernels start where their calls end (hrx serial)
// has no delay figures.
func TestLaunchBoundAndBracketed(t *testing.T) {
	b := newBD()
	bd := b.run(t, BreakdownOptions{},
		disp{q: b.s1, k: b.gemm, s: 100, e: 110, lb: 0, le: 50},
		disp{q: b.s1, k: b.gemm, s: 200, e: 210, lb: 120, le: 170},
	)
	if p := bd.Programs[0]; !p.LaunchBound || p.HostLaunch != 100 || p.Device != 20 || p.Bracketed || p.Delay == nil {
		t.Errorf("got bound %v, host %d, device %d, bracketed %v, delay %v; want launch-bound 100 > 20, measured", p.LaunchBound, p.HostLaunch, p.Device, p.Bracketed, p.Delay)
	}
	bd = b.run(t, BreakdownOptions{},
		disp{q: b.s1, k: b.gemm, s: 50, e: 110, lb: 0, le: 50},
		disp{q: b.s1, k: b.gemm, s: 170, e: 210, lb: 120, le: 170},
	)
	if p := bd.Programs[0]; p.LaunchBound || !p.Bracketed || p.Delay != nil || p.Kernels[0].Delay != nil {
		t.Errorf("got bound %v, bracketed %v, delay %v; want not bound, bracketed, no delay figures", p.LaunchBound, p.Bracketed, p.Delay)
	}
}

// Percentiles from the histogram are within histPrecision of the exact
// ones, negative delays included, and merging histograms is adding them.
func TestHistPrecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 20 {
		var vs []int64
		var d, a, b DelayStats
		for i := range 1 + rng.IntN(5000) {
			v := int64(math.Exp(rng.Float64()*30)) - 1000
			if trial%3 == 0 {
				v = rng.Int64N(200) // the exact buckets
			}
			vs = append(vs, v)
			d.add(v, false)
			if i%2 == 0 {
				a.add(v, false)
			} else {
				b.add(v, false)
			}
		}
		d.finish()
		a.merge(&b)
		a.finish()
		slices.Sort(vs)
		for _, q := range []struct {
			q   float64
			got int64
		}{{0.5, d.P50}, {0.99, d.P99}} {
			want := vs[max(int(math.Ceil(q.q*float64(len(vs))))-1, 0)]
			if math.Abs(float64(q.got-want)) > math.Abs(float64(want))*histPrecision+1 {
				t.Fatalf("trial %d: p%v got %d, want %d within %.2f%%", trial, q.q*100, q.got, want, histPrecision*100)
			}
		}
		if a.P50 != d.P50 || a.P99 != d.P99 || a.N != d.N || a.Min != d.Min || a.Max != d.Max {
			t.Fatalf("trial %d: merged halves give %+v, want %+v", trial, a, d)
		}
	}
}

// Many inputs' launch statistics merge as the tables do: a kernel's counts
// and launch time are the inputs' summed, its program's the merged
// kernels'.
func TestLaunchStatsMerged(t *testing.T) {
	const us = 1000
	var ins []Input
	// rank0 runs each kernel once, rank1 twice.
	for i, path := range []string{"rank0", "rank1"} {
		n := int64(i + 1)
		b := newBD()
		var ds []disp
		for j := range n {
			s := (10*j + 1) * 100 * us
			ds = append(ds, disp{q: b.s1, k: b.gemm, s: s, e: s + 100*us, lb: s - 10*us, le: s - 8*us},
				disp{q: b.s1, k: b.gemm2, s: s + 200*us, e: s + 204*us, noCall: true})
		}
		ins = append(ins, Input{Path: path, Capture: b.c, Tables: NewAggregator().Tables(b.c),
			Breakdown: b.run(t, BreakdownOptions{ShortKernel: 10 * us}, ds...)})
	}
	run := NewRun(ins, nil, true)
	if len(run.Breakdown.Programs) != 1 {
		t.Fatalf("merged programs: got %d, want the one program of both inputs", len(run.Breakdown.Programs))
	}
	p := run.Breakdown.Programs[0]
	want := LaunchCounts{Dispatches: 6, Timed: 6, Launched: 3, Device: 3 * 104 * us, Short: 3, ShortTime: 3 * 4 * us}
	if p.LaunchCounts != want || p.HostLaunch != 3*2*us {
		t.Errorf("program: got %+v, host launch %d; want %+v, %d", p.LaunchCounts, p.HostLaunch, want, 3*2*us)
	}
	for _, k := range p.Kernels {
		want := LaunchCounts{Dispatches: 3, Timed: 3, Launched: 3, Device: 3 * 100 * us}
		launch := int64(3 * 2 * us)
		if k.Kernel.Name == "elementwise" {
			want, launch = LaunchCounts{Dispatches: 3, Timed: 3, Device: 3 * 4 * us, Short: 3, ShortTime: 3 * 4 * us}, 0
		}
		if k.LaunchCounts != want || k.LaunchTotal != launch || k.Delay == nil != (launch == 0) {
			t.Errorf("%s: got %+v, launch total %d, delay %+v; want %+v, %d", k.Kernel.Name, k.LaunchCounts, k.LaunchTotal, k.Delay, want, launch)
		}
	}
}
