package analysis

import (
	"testing"

	"github.com/tallyprof/tally/capture"
)

func TestSharesWithinProgram(t *testing.T) {
	c := &capture.Capture{Clock: capture.Clock{Unit: "ns", Timed: true}}
	p1 := c.AddProgram(capture.Program{Name: "prefill"})
	p2 := c.AddProgram(capture.Program{Name: "decode"})
	big := c.AddKernel(capture.Kernel{Program: p1, Name: "matmul"})
	small := c.AddKernel(capture.Kernel{Program: p1, Name: "norm"})
	other := c.AddKernel(capture.Kernel{Program: p2, Name: "norm"})
	a := NewAggregator()
	emit := func(k capture.KernelID, p capture.ProgramID, dur int64, timed bool) {
		a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k, Device: capture.Interval{Begin: 100, End: 100 + dur, Valid: timed},
			Launch: capture.Interval{Begin: 0, End: 10, Valid: timed}})
	}
	emit(big, p1, 300, true)
	emit(big, p1, 100, true)
	emit(small, p1, 100, true)
	emit(other, p2, 24_000_000, true)
	emit(other, p2, 0, false)
	r := a.Tables(c)
	pre := r.Programs[0]
	if pre.Total != 500 || pre.Kernels[0].Kernel.Name != "matmul" || pre.Kernels[0].Share != 0.8 || pre.Kernels[1].Share != 0.2 {
		t.Fatalf("prefill: got %+v, want total 500, matmul first, shares 0.8 and 0.2", pre)
	}
	if pre.Kernels[0].Min != 100 || pre.Kernels[0].Max != 300 || pre.Kernels[0].Mean != 200 || pre.Kernels[0].LaunchMean != 10 {
		t.Fatalf("matmul: got %+v, want min 100, max 300, mean 200, launch mean 10", pre.Kernels[0])
	}
	dec := r.Programs[1]
	// A 24 ms kernel in another program does not dilute prefill's shares.
	if dec.Kernels[0].Share != 1 || dec.Kernels[0].Dispatches != 2 || dec.Kernels[0].Timed != 1 || dec.Timed != 1 {
		t.Fatalf("decode: got %+v, want its norm at share 1, 2 dispatches, 1 timed", dec)
	}
	if r.Dispatches() != 5 {
		t.Fatalf("dispatches: got %d, want 5", r.Dispatches())
	}
}

func TestUntimedKernel(t *testing.T) {
	c := &capture.Capture{}
	p := c.AddProgram(capture.Program{Name: "p"})
	k := c.AddKernel(capture.Kernel{Program: p, Name: "k"})
	a := NewAggregator()
	a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k})
	row := a.Tables(c).Programs[0].Kernels[0]
	if row.Timed != 0 || row.Min != 0 || row.Max != 0 || row.Share != 0 || row.Dispatches != 1 {
		t.Fatalf("untimed row: got %+v, want 1 dispatch and every time 0", row)
	}
}

func TestProgramsWithoutDispatchesListed(t *testing.T) {
	c := &capture.Capture{}
	c.AddProgram(capture.Program{Name: "idle", Instances: 3})
	r := NewAggregator().Tables(c)
	if len(r.Programs) != 1 || r.Programs[0].Program.Instances != 3 {
		t.Fatalf("got programs %+v, want idle, with its 3 runs (a program that ran without dispatches is listed)", r.Programs)
	}
}

func TestAggregatedRecords(t *testing.T) {
	c, p, ks := nsProgram("decode", "gemm", "single")
	k, only := ks[0], ks[1]
	a := NewAggregator()
	a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k, Device: capture.Interval{Begin: 0, End: 50, Valid: true}})
	a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k, Aggregate: &capture.Aggregate{Count: 4, Device: 350, DeviceValid: true, Launch: 40, LaunchValid: true}})
	a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: only, Device: capture.Interval{Begin: 0, End: 100, Valid: true}})
	r := a.Tables(c).Programs[0]
	g := r.Kernels[0]
	if g.Kernel.Name != "gemm" || g.Dispatches != 5 || g.Timed != 5 || g.Total != 400 || g.Mean != 80 || g.Aggregated != 4 {
		t.Fatalf("aggregated row: got %+v, want gemm, 5 dispatches (4 aggregated), 5 timed, total 400, mean 80", g)
	}
	if g.MinMaxKnown || g.Min != 0 || g.Max != 0 {
		t.Fatalf("aggregated row: got %+v, want min and max unknown (not computed from sums)", g)
	}
	if g.Launched != 4 || g.LaunchMean != 10 {
		t.Fatalf("aggregated row: got %+v, want 4 launched, launch mean 10", g)
	}
	if s := r.Kernels[1]; !s.MinMaxKnown || s.Min != 100 || s.Max != 100 {
		t.Fatalf("single row: got %+v, want min and max 100", s)
	}
	if r.Dispatches != 6 || r.Total != 500 {
		t.Fatalf("program: got %+v, want 6 dispatches, total 500", r)
	}
}

// An aggregated record counts its dispatches in its link, and its device
// time as not attributed when its launch call is not in the trace, as
// single dispatches do.
func TestAggregatedRecordsLinks(t *testing.T) {
	c, p, ks := nsProgram("decode", "gemm")
	a := NewAggregator()
	a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: ks[0], Link: capture.LinkNoLaunch, Device: capture.Interval{Begin: 0, End: 30, Valid: true}})
	a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: ks[0], Link: capture.LinkNoLaunch, Aggregate: &capture.Aggregate{Count: 3, Device: 90, DeviceValid: true}})
	a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: ks[0], Link: capture.LinkLaunched, Aggregate: &capture.Aggregate{Count: 2, Device: 20, DeviceValid: true}})
	g := a.Tables(c).Programs[0].Kernels[0]
	if g.Links["no-launch"] != 4 || g.Links["launched"] != 2 || g.NoLaunchTotal != 120 {
		t.Errorf("got links %v, no-launch total %d; want no-launch 4, launched 2, no-launch total 120", g.Links, g.NoLaunchTotal)
	}
}

// Garbage durations (centuries) and counts must not wrap the sums into
// negative totals and shares above 100%: sums saturate, and a wrapped
// interval too.
func TestTimeSumsDoNotWrap(t *testing.T) {
	c, p, ks := nsProgram("p", "huge", "wide")
	huge, wide := ks[0], ks[1]
	a := NewAggregator()
	for range 2 {
		a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: huge, Device: capture.Interval{Begin: 0, End: 9e18, Valid: true},
			Launch: capture.Interval{Begin: 0, End: 9e18, Valid: true}})
	}
	a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: wide, Device: capture.Interval{Begin: -9e18, End: 9e18, Valid: true}})
	pt := a.Tables(c).Programs[0]
	if pt.Total < 0 {
		t.Fatalf("program total: got %d, want ≥ 0 (saturated, not wrapped)", pt.Total)
	}
	for _, k := range pt.Kernels {
		if k.Total < 0 || k.LaunchTotal < 0 || k.Min < 0 || k.Share < 0 || k.Share > 1 {
			t.Errorf("%s: got %+v, want every total ≥ 0 and shares within [0, 1]", k.Kernel.Name, k)
		}
	}
	// Aggregated records carry counts from the input: two of 2^62 each.
	agg := c.AddKernel(capture.Kernel{Program: p, Name: "agg"})
	for range 2 {
		a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: agg, Link: capture.LinkLaunched,
			Aggregate: &capture.Aggregate{Count: 1 << 62, Device: 1, DeviceValid: true, Launch: 1, LaunchValid: true}})
	}
	tb := a.Tables(c)
	if pt := tb.Programs[0]; pt.Dispatches < 0 || pt.Timed < 0 || tb.Dispatches() < 0 {
		t.Errorf("program counts: got %+v, want ≥ 0 (saturated, not wrapped)", pt)
	}
	for _, k := range tb.Programs[0].Kernels {
		if k.Dispatches < 0 || k.Timed < 0 || k.Aggregated < 0 || k.Launched < 0 || k.Links["launched"] < 0 {
			t.Errorf("%s counts: got %+v, want ≥ 0 (saturated, not wrapped)", k.Kernel.Name, k)
		}
	}
}

// A negative duration cannot reach the tables through a reader (Checked
// turns it into an invalid_event gap), but the Aggregator is a public Sink:
// fed one directly, it adds nothing rather than lower the total.
func TestNegativeDurationAddsNothing(t *testing.T) {
	c, p, ks := nsProgram("p", "k")
	k := ks[0]
	a := NewAggregator()
	a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k, Device: capture.Interval{Begin: 0, End: 100, Valid: true}})
	a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k, Device: capture.Interval{Begin: 100, End: 40, Valid: true}})
	a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k, Aggregate: &capture.Aggregate{Count: 1, Device: -50, DeviceValid: true}})
	if got := a.Tables(c).Programs[0].Total; got != 100 {
		t.Errorf("program total: got %d, want 100", got)
	}
}
