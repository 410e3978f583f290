package analysis

import (
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// bdCapture is a capture of one ns program on GPU 0 with two streams and
// kernels of every class.
type bdCapture struct {
	c                                            *capture.Capture
	p                                            capture.ProgramID
	s1, s2                                       capture.QueueID
	gemm, nccl, htod, dtoh, memset, other, gemm2 capture.KernelID
}

func newBD() *bdCapture {
	c := &capture.Capture{Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true}}
	b := &bdCapture{c: c}
	b.p = c.AddProgram(capture.Program{Name: "step"})
	b.s1 = c.AddQueue(capture.Queue{Name: "stream 7", Device: "GPU 0"})
	b.s2 = c.AddQueue(capture.Queue{Name: "stream 13", Device: "GPU 0"})
	b.gemm = c.AddKernel(capture.Kernel{Program: b.p, Name: "sm90_gemm", Category: "kernel"})
	b.gemm2 = c.AddKernel(capture.Kernel{Program: b.p, Name: "elementwise", Category: "kernel"})
	b.nccl = c.AddKernel(capture.Kernel{Program: b.p, Name: "ncclDevKernel_AllReduce_Sum_f32_RING_LL", Category: "kernel"})
	b.htod = c.AddKernel(capture.Kernel{Program: b.p, Name: "Memcpy HtoD (Pageable -> Device)", Category: "memcpy"})
	b.dtoh = c.AddKernel(capture.Kernel{Program: b.p, Name: "Memcpy DtoH (Device -> Pageable)", Category: "memcpy"})
	b.memset = c.AddKernel(capture.Kernel{Program: b.p, Name: "Memset (Device)", Category: "memset"})
	b.other = c.AddKernel(capture.Kernel{Program: b.p, Name: "Memcpy (unknown)", Category: "memcpy"})
	return b
}

// disp is a dispatch: device [s, e], launch call [lb, le] when le > 0.
type disp struct {
	q      capture.QueueID
	k      capture.KernelID
	s, e   int64
	lb, le int64
	graph  bool
	noCall bool  // launch record kind, no call in the trace
	sync   int64 // host sync end, when > 0
}

func (b *bdCapture) run(t *testing.T, opt BreakdownOptions, ds ...disp) *Breakdown {
	t.Helper()
	bd := b.feed(opt, ds...).Finish(b.c)
	if bd.Err != nil {
		t.Fatal(bd.Err)
	}
	for _, r := range bd.Devices {
		checkSums(t, &r)
	}
	return bd
}

// feed returns a sink given ds, not finished.
func (b *bdCapture) feed(opt BreakdownOptions, ds ...disp) *BreakdownSink {
	return b.feedInto(NewBreakdownSink(opt), ds...)
}

// feedInto gives ds to s.
func (b *bdCapture) feedInto(s *BreakdownSink, ds ...disp) *BreakdownSink {
	for _, d := range ds {
		cd := &capture.Dispatch{Program: b.p, Queue: d.q, Kernel: d.k, Device: capture.Interval{Begin: d.s, End: d.e, Valid: true}}
		switch {
		case d.noCall:
			cd.Link = capture.LinkNoLaunch
		case d.le > 0:
			cd.Launch = capture.Interval{Begin: d.lb, End: d.le, Valid: true}
			cd.Link = capture.LinkLaunched
			if d.graph {
				cd.Link = capture.LinkGraph
			}
		}
		if d.sync > 0 {
			cd.HostSync = capture.Interval{Begin: d.sync - 5, End: d.sync, Valid: true}
		}
		s.Dispatch(b.c, cd)
	}
	return s
}

// checkSums holds the contract: the window is the sum of busy and idle.
func checkSums(t *testing.T, r *DeviceBreakdown) {
	t.Helper()
	if got := r.Busy.Sum() + r.Idle.Sum(); got != r.Window {
		t.Fatalf("%s: busy %+v + idle %+v = %d, want the window %d", r.Device, r.Busy, r.Idle, got, r.Window)
	}
	d := r.MemcpyByDirection
	if got := d.HtoD + d.DtoH + d.DtoD + d.PtoP + d.Other; got != r.Busy.Memcpy {
		t.Fatalf("%s: memcpy by direction %+v sums to %d, want %d", r.Device, d, got, r.Busy.Memcpy)
	}
}

func one(t *testing.T, bd *Breakdown) DeviceBreakdown {
	t.Helper()
	if len(bd.Devices) != 1 {
		t.Fatalf("devices: got %d (%+v), want 1", len(bd.Devices), bd.Devices)
	}
	return bd.Devices[0]
}

func TestBreakdownBusyPriority(t *testing.T) {
	b := newBD()
	// compute [0,100) on s1; comm [50,250) on s2 (50 hidden, 150 exposed
	// but memcpy [200,300) under it); memset [280, 320); memcpy other
	// [400, 410) after a gap.
	r := one(t, b.run(t, BreakdownOptions{},
		disp{q: b.s1, k: b.gemm, s: 0, e: 100, lb: 0, le: 1},
		disp{q: b.s2, k: b.nccl, s: 50, e: 250, lb: 0, le: 1},
		disp{q: b.s1, k: b.htod, s: 200, e: 300, lb: 0, le: 1},
		disp{q: b.s1, k: b.memset, s: 280, e: 320, lb: 0, le: 1},
		disp{q: b.s2, k: b.other, s: 400, e: 410, lb: 0, le: 1},
	))
	want := Busy{Compute: 100, Comm: 150, Memcpy: 50 + 10, Memset: 20}
	if r.Busy != want || r.Window != 410 {
		t.Fatalf("busy: got %+v over %d, want %+v over 410", r.Busy, r.Window, want)
	}
	if r.MemcpyByDirection != (Directions{HtoD: 50, Other: 10}) {
		t.Fatalf("memcpy by direction: got %+v, want HtoD 50, other 10", r.MemcpyByDirection)
	}
	if r.CommTotal != 200 || r.CommOverlapped != 50 {
		t.Fatalf("comm: got total %d, overlapped %d, want 200 and 50", r.CommTotal, r.CommOverlapped)
	}
	if r.Queues != 2 || r.Dispatches != 5 || r.Device != "GPU 0" {
		t.Fatalf("row: got %d queues, %d dispatches on %q, want 2, 5 on GPU 0", r.Queues, r.Dispatches, r.Device)
	}
}

func TestBreakdownIdleCauses(t *testing.T) {
	b := newBD()
	const us = 1000
	r := one(t, b.run(t, BreakdownOptions{},
		// A: [0, 100us) launched at [-, 0].
		disp{q: b.s1, k: b.gemm, s: 0, e: 100 * us, lb: 0, le: 0 + 1},
		// host late: launch ends 40us after the device went idle, kernel
		// starts 5us after the launch: host_wait 40us, launch_latency 5us.
		disp{q: b.s1, k: b.gemm, s: 145 * us, e: 200 * us, lb: 130 * us, le: 140 * us, sync: 120 * us},
		// queued: launched long before, started 8us after the previous end
		// on the same stream: launch_latency 8us.
		disp{q: b.s1, k: b.gemm2, s: 208 * us, e: 300 * us, lb: 10 * us, le: 20 * us},
		// cross-stream wait: s2's kernel launched at 50us, starts 12us after
		// s1's work ends at 300us: other_stream 12us.
		disp{q: b.s2, k: b.gemm2, s: 312 * us, e: 400 * us, lb: 40 * us, le: 50 * us},
		// unrecorded: queued on s2, starts 2ms after: unrecorded.
		disp{q: b.s2, k: b.gemm2, s: 2400 * us, e: 2500 * us, lb: 60 * us, le: 70 * us},
		// unexplained: 100us after, queued on the same stream.
		disp{q: b.s2, k: b.gemm2, s: 2600 * us, e: 2700 * us, lb: 80 * us, le: 90 * us},
		// no launch call: 50us gap unexplained.
		disp{q: b.s2, k: b.gemm2, s: 2750 * us, e: 2800 * us, noCall: true},
	))
	want := Idle{HostWait: 40 * us, LaunchLatency: 5*us + 8*us, OtherStream: 12 * us, Unrecorded: 2000 * us, Unexplained: 100*us + 50*us}
	if r.Idle != want {
		t.Fatalf("idle: got %+v, want %+v", r.Idle, want)
	}
	if r.HostWaitAfterSync != 40*us {
		t.Fatalf("host wait after sync: got %d, want %d", r.HostWaitAfterSync, 40*us)
	}
	if r.IdleGaps != (IdleCounts{HostWait: 1, LaunchLatency: 2, OtherStream: 1, Unrecorded: 1, Unexplained: 2}) {
		t.Fatalf("gaps: got %+v, want 1 host wait, 2 launch latency, 1 other stream, 1 unrecorded, 2 unexplained", r.IdleGaps)
	}
	if r.NoLaunchNext != 1 || len(r.Reasons) != 1 || !strings.Contains(r.Reasons[0], "1 idle gap ended at a dispatch whose launch call is not in the trace") {
		t.Fatalf("no-launch next: got %d, reasons %q, want 1 and its reason", r.NoLaunchNext, r.Reasons)
	}
}

// A sync that ended before the device went idle is not "after a sync".
func TestBreakdownSyncBeforeIdle(t *testing.T) {
	b := newBD()
	r := one(t, b.run(t, BreakdownOptions{},
		disp{q: b.s1, k: b.gemm, s: 0, e: 100, lb: 0, le: 1},
		disp{q: b.s1, k: b.gemm, s: 200, e: 300, lb: 150, le: 190, sync: 100},
	))
	if r.Idle.HostWait != 90 || r.HostWaitAfterSync != 0 || r.Idle.LaunchLatency != 10 {
		t.Fatalf("got host wait %d (%d after sync), latency %d; want 90 (0 after sync), 10", r.Idle.HostWait, r.HostWaitAfterSync, r.Idle.LaunchLatency)
	}
}

func TestBreakdownThresholds(t *testing.T) {
	b := newBD()
	ds := []disp{
		{q: b.s1, k: b.gemm, s: 0, e: 100, lb: 0, le: 1},
		{q: b.s1, k: b.gemm, s: 150, e: 200, lb: 0, le: 1}, // 50 ns queued
	}
	if r := one(t, b.run(t, BreakdownOptions{LaunchLatency: 50}, ds...)); r.Idle.LaunchLatency != 50 {
		t.Fatalf("at the threshold: got %+v, want launch_latency 50", r.Idle)
	}
	if r := one(t, b.run(t, BreakdownOptions{LaunchLatency: 49}, ds...)); r.Idle.Unexplained != 50 {
		t.Fatalf("above the threshold: got %+v, want unexplained 50", r.Idle)
	}
	if r := one(t, b.run(t, BreakdownOptions{UnrecordedWait: 50}, ds...)); r.Idle.Unrecorded != 50 {
		t.Fatalf("at the unrecorded threshold: got %+v, want unrecorded 50", r.Idle)
	}
}

func TestBreakdownGraphReplay(t *testing.T) {
	b := newBD()
	// One graph launch [0, 500] replays three kernels; the first starts
	// after the launch returned... no: 100 before it ended, so the host was
	// late for it; the gaps between the replayed kernels are never
	// host_wait, though the launch call ended after them.
	r := one(t, b.run(t, BreakdownOptions{},
		disp{q: b.s1, k: b.gemm, s: 0, e: 100, lb: 0, le: 1},
		disp{q: b.s1, k: b.gemm, s: 300, e: 400, lb: 0, le: 500, graph: true},
		disp{q: b.s1, k: b.gemm2, s: 410, e: 450, lb: 0, le: 500, graph: true},
		disp{q: b.s1, k: b.gemm2, s: 470, e: 480, lb: 0, le: 500, graph: true},
	))
	// First replayed kernel: gap [100, 300) — host part clamp(500−100) =
	// 200: host_wait (the graph launch had not returned). Then gaps of 10
	// and 20: launch_latency, not host_wait.
	if r.Idle.HostWait != 200 || r.Idle.LaunchLatency != 30 || r.GraphBusy != 150 {
		t.Fatalf("got idle %+v, graph busy %d; want host_wait 200, launch_latency 30, graph busy 150", r.Idle, r.GraphBusy)
	}
}

func TestBreakdownNoLaunchRecords(t *testing.T) {
	b := newBD()
	r := one(t, b.run(t, BreakdownOptions{},
		disp{q: b.s1, k: b.gemm, s: 0, e: 100},
		disp{q: b.s1, k: b.gemm, s: 150, e: 200},
	))
	if r.Idle != (Idle{Unexplained: 50}) || r.Launches || len(r.Reasons) != 1 || r.Reasons[0] != NoLaunchReason {
		t.Fatalf("got idle %+v, launches %v, reasons %q; want 50 unexplained and %q", r.Idle, r.Launches, r.Reasons, NoLaunchReason)
	}
}

// hrx serial mode: every device time starts where its launch returned.
func TestBreakdownBracketed(t *testing.T) {
	b := newBD()
	r := one(t, b.run(t, BreakdownOptions{},
		disp{q: capture.NoQueue, k: b.gemm, s: 10, e: 100, lb: 0, le: 10},
		disp{q: capture.NoQueue, k: b.gemm, s: 130, e: 200, lb: 120, le: 130},
	))
	if r.Device != "(no device)" || !r.Bracketed || r.Idle != (Idle{HostWait: 30}) || len(r.Reasons) != 1 || r.Reasons[0] != BracketedReason {
		t.Fatalf("got %q bracketed %v idle %+v reasons %q; want (no device), bracketed, host_wait 30", r.Device, r.Bracketed, r.Idle, r.Reasons)
	}
	// One dispatch that starts elsewhere than its launch's end: measured.
	r = one(t, b.run(t, BreakdownOptions{},
		disp{q: capture.NoQueue, k: b.gemm, s: 10, e: 100, lb: 0, le: 10},
		disp{q: capture.NoQueue, k: b.gemm, s: 131, e: 200, lb: 120, le: 130},
	))
	if r.Bracketed || len(r.Reasons) != 0 {
		t.Fatalf("got bracketed %v, reasons %q; want neither", r.Bracketed, r.Reasons)
	}
}

// Devices, ranks and clocks are rows of their own.
func TestBreakdownRows(t *testing.T) {
	b := newBD()
	g1 := b.c.AddQueue(capture.Queue{Name: "stream 7", Device: "GPU 1"})
	tick := b.c.AddProgram(capture.Program{Name: "ticked", Clock: &capture.Clock{Domain: "device-ticks", Unit: "ticks", Timed: true}})
	tk := b.c.AddKernel(capture.Kernel{Program: tick, Name: "k"})
	s := NewBreakdownSink(BreakdownOptions{})
	add := func(p capture.ProgramID, q capture.QueueID, k capture.KernelID, s0, e int64) {
		s.Dispatch(b.c, &capture.Dispatch{Program: p, Queue: q, Kernel: k, Device: capture.Interval{Begin: s0, End: e, Valid: true}})
	}
	add(b.p, b.s1, b.gemm, 0, 10)
	add(b.p, g1, b.gemm, 5, 50)
	add(tick, b.s2, tk, 1000, 2000)
	s.Dispatch(b.c, &capture.Dispatch{Program: b.p, Queue: b.s1, Kernel: b.gemm})
	s.Dispatch(b.c, &capture.Dispatch{Program: b.p, Queue: b.s1, Kernel: b.gemm, Aggregate: &capture.Aggregate{Count: 7}})
	bd := s.Finish(b.c)
	if len(bd.Devices) != 3 || bd.Untimed != 1 || bd.Aggregated != 7 {
		t.Fatalf("got %d rows, %d untimed, %d aggregated; want 3, 1, 7", len(bd.Devices), bd.Untimed, bd.Aggregated)
	}
	got := []string{}
	for _, r := range bd.Devices {
		got = append(got, r.Device+"/"+r.Unit)
		checkSums(t, &r)
	}
	if strings.Join(got, " ") != "GPU 0/ns GPU 0/ticks GPU 1/ns" {
		t.Fatalf("rows: got %q, want GPU 0/ns GPU 0/ticks GPU 1/ns", got)
	}
	if !strings.Contains(strings.Join(bd.Devices[1].Reasons, "\n"), "on 2 clocks") {
		t.Fatalf("GPU 0 on two clocks: got reasons %q, want it said", bd.Devices[1].Reasons)
	}
	if bd.Devices[2].Window != 45 {
		t.Fatalf("GPU 1 window: got %d, want 45", bd.Devices[2].Window)
	}
}

// randomDispatches makes n dispatches on two queues with small times, so
// that they overlap and leave gaps of every kind.
func randomDispatches(b *bdCapture, rng *rand.Rand, n int) []disp {
	kerns := []capture.KernelID{b.gemm, b.gemm2, b.nccl, b.htod, b.dtoh, b.memset, b.other}
	var ds []disp
	for range n {
		s := rng.Int64N(100 * int64(n))
		d := disp{q: []capture.QueueID{b.s1, b.s2}[rng.IntN(2)], k: kerns[rng.IntN(len(kerns))], s: s, e: s + rng.Int64N(200)}
		switch rng.IntN(4) {
		case 0:
		case 1:
			d.noCall = true
		default:
			d.lb = max(0, s-rng.Int64N(300))
			d.le = d.lb + rng.Int64N(100) + 1
			d.graph = rng.IntN(5) == 0
			if rng.IntN(3) == 0 {
				d.sync = d.lb - 1
			}
		}
		ds = append(ds, d)
	}
	return ds
}

// bruteBusy classifies every ns of the window on its own.
func bruteBusy(b *bdCapture, ds []disp) (busy Busy, comm, overlap, window int64) {
	lo, hi := ds[0].s, ds[0].e
	for _, d := range ds {
		lo, hi = min(lo, d.s), max(hi, d.e)
	}
	for t := lo; t < hi; t++ {
		var act [numClasses]bool
		for _, d := range ds {
			if d.s <= t && t < d.e {
				act[classOf(&b.c.Kernels[d.k])] = true
			}
		}
		switch {
		case act[clsCompute]:
			busy.Compute++
		case act[clsComm]:
			busy.Comm++
		case act[clsMemcpyHtoD] || act[clsMemcpyDtoH] || act[clsMemcpyDtoD] || act[clsMemcpyPtoP] || act[clsMemcpyOther]:
			busy.Memcpy++
		case act[clsMemset]:
			busy.Memset++
		}
		if act[clsComm] {
			comm++
			if act[clsCompute] {
				overlap++
			}
		}
	}
	return busy, comm, overlap, hi - lo
}

func TestBreakdownAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		b := newBD()
		ds := randomDispatches(b, rng, 1+rng.IntN(40))
		r := one(t, b.run(t, BreakdownOptions{}, ds...))
		busy, comm, overlap, window := bruteBusy(b, ds)
		if r.Busy != busy || r.CommTotal != comm || r.CommOverlapped != overlap || r.Window != window {
			t.Fatalf("trial %d: got busy %+v comm %d/%d window %d, want %+v %d/%d %d", trial, r.Busy, r.CommTotal, r.CommOverlapped, r.Window, busy, comm, overlap, window)
		}
	}
}

// The spilled path (sorted runs in TMPDIR, merged; more than maxRuns runs
// compacted) gives what the in-memory one gives, in any input order.
func TestBreakdownSpillSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	b := newBD()
	ds := randomDispatches(b, rng, 500)
	want := b.run(t, BreakdownOptions{}, ds...)
	rng.Shuffle(len(ds), func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
	got := b.run(t, BreakdownOptions{Records: 3, TempDir: t.TempDir()}, ds...)
	if got.Spilled == 0 || got.Runs < 2 {
		t.Fatalf("spill: got %d bytes in %d runs, want a spill", got.Spilled, got.Runs)
	}
	if g, w := one(t, got), one(t, want); !sameRow(g, w) {
		t.Fatalf("spilled: got %+v, want %+v", g, w)
	}
	// The spill file is unlinked: nothing is left in TempDir.
	dir := t.TempDir()
	b.run(t, BreakdownOptions{Records: 3, TempDir: dir}, ds...)
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("TempDir after the breakdown: got %d files, want none", len(left))
	}
}

func sameRow(a, b DeviceBreakdown) bool {
	a.Reasons, b.Reasons = nil, nil
	return a.Window == b.Window && a.Busy == b.Busy && a.Idle == b.Idle && a.IdleGaps == b.IdleGaps &&
		a.HostWaitAfterSync == b.HostWaitAfterSync && a.GraphBusy == b.GraphBusy && a.CommTotal == b.CommTotal &&
		a.CommOverlapped == b.CommOverlapped && a.MemcpyByDirection == b.MemcpyByDirection && a.Dispatches == b.Dispatches
}

// The spill limit stops the spill of records out of order (chunks) and in
// order (packed: more of them fit the budget before a run is spilled).
func TestBreakdownSpillLimit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		reverse bool
	}{{"out of order", 10, true}, {"in order", 200, false}} {
		b := newBD()
		s := NewBreakdownSink(BreakdownOptions{Records: 2, SpillLimit: 3 * recSize, SpillHint: "raise it", TempDir: t.TempDir()})
		for i := range tc.n {
			at := int64(i)
			if tc.reverse {
				at = int64(tc.n - i)
			}
			s.Dispatch(b.c, &capture.Dispatch{Program: b.p, Queue: b.s1, Kernel: b.gemm, Device: capture.Interval{Begin: at, End: at + 1, Valid: true}})
		}
		if s.recs.ordered == tc.reverse {
			t.Fatalf("%s: got ordered %v, want %v", tc.name, s.recs.ordered, !tc.reverse)
		}
		bd := s.Finish(b.c)
		if bd.Err == nil || !strings.Contains(bd.Err.Error(), "spill limit") || !strings.Contains(bd.Err.Error(), "raise it") || bd.Devices != nil {
			t.Fatalf("%s: got err %v, %d rows; want the spill limit error and no rows", tc.name, bd.Err, len(bd.Devices))
		}
	}
}

// A spill file that cannot be written is an error the report states.
func TestBreakdownSpillWriteFails(t *testing.T) {
	rs := newRecords(BreakdownOptions{Records: 1}.withDefaults())
	f, err := os.CreateTemp(t.TempDir(), "ro")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	ro, err := os.Open(f.Name()) // read-only: every write fails
	if err != nil {
		t.Fatal(err)
	}
	rs.f = ro
	rs.limit = 1
	rs.add(&bdRec{start: 1})
	rs.add(&bdRec{start: 2})
	defer rs.close()
	if rs.err == nil || !strings.Contains(rs.err.Error(), "writing the breakdown's temporary spill file") {
		t.Fatalf("got %v, want the write error", rs.err)
	}
	var pe *os.PathError
	if !errors.As(rs.err, &pe) {
		t.Fatalf("got %T, want the *os.PathError wrapped", rs.err)
	}
}

// Without a TMPDIR to spill to, the records stay in memory and the
// breakdown says so; its figures are the same.
func TestBreakdownNoSpillFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	b := newBD()
	ds := randomDispatches(b, rng, 100)
	want := b.run(t, BreakdownOptions{}, ds...)
	got := b.run(t, BreakdownOptions{Records: 3, TempDir: "/nonexistent/tally-test"}, ds...)
	if !got.InMemory || got.Spilled != 0 || want.InMemory {
		t.Fatalf("got in memory %v, spilled %d (unspilled run: in memory %v); want in memory, nothing spilled", got.InMemory, got.Spilled, want.InMemory)
	}
	if g, w := one(t, got), one(t, want); !sameRow(g, w) {
		t.Fatalf("in memory: got %+v, want %+v", g, w)
	}
}

// recOf is the record the sink makes of d.
func recOf(d disp) bdRec {
	r := bdRec{start: d.s, end: d.e, queue: int32(d.q), kernel: int32(d.k)}
	if !d.noCall && d.le > 0 {
		r.flags |= fLaunch
		r.lBegin, r.lEnd = d.lb, d.le
		if d.graph {
			r.flags |= fGraph
		}
	}
	if d.sync > 0 {
		r.flags |= fSync
		r.syncEnd = d.sync
	}
	return r
}

// Records that arrive in order are packed and skip the sort and the merge
// (the runs are read one after another): the same breakdown as shuffled
// ones, in memory and spilled, and when the order breaks only after some
// runs were written in order.
func TestBreakdownOrderedSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	b := newBD()
	ds := randomDispatches(b, rng, 600)
	want := b.run(t, BreakdownOptions{}, ds...)
	if s := b.feed(BreakdownOptions{}, ds...); s.recs.ordered {
		t.Fatal("random dispatches: got ordered, want not")
	}
	slices.SortFunc(ds, func(x, y disp) int {
		a, b := recOf(x), recOf(y)
		return recCmp(&a, &b)
	})
	late := slices.Clone(ds)
	i := len(late) - 1
	for late[i-1].s == late[i].s {
		i--
	}
	late[i-1], late[i] = late[i], late[i-1] // out of order after the runs
	for _, tc := range []struct {
		name    string
		opt     BreakdownOptions
		ds      []disp
		ordered bool
		runs    int
	}{
		{"in memory", BreakdownOptions{}, ds, true, 0},
		{"spilled", BreakdownOptions{Records: 3, TempDir: t.TempDir()}, ds, true, 2},
		{"spilled, odd chunks", BreakdownOptions{Records: 7, TempDir: t.TempDir()}, ds, true, 2},
		{"order broken late", BreakdownOptions{Records: 3, TempDir: t.TempDir()}, late, false, 2},
		{"order broken late, in memory", BreakdownOptions{}, late, false, 0},
	} {
		s := b.feed(tc.opt, tc.ds...)
		if s.recs.ordered != tc.ordered {
			t.Fatalf("%s: got ordered %v, want %v", tc.name, s.recs.ordered, tc.ordered)
		}
		got := s.Finish(b.c)
		if got.Err != nil {
			t.Fatalf("%s: got error %v, want none", tc.name, got.Err)
		}
		if got.Runs < tc.runs || tc.runs == 0 && got.Runs != 0 {
			t.Fatalf("%s: got %d runs, want at least %d", tc.name, got.Runs, tc.runs)
		}
		if g, w := one(t, got), one(t, want); !sameRow(g, w) || g.NoLaunchNext != w.NoLaunchNext {
			t.Fatalf("%s: got %+v, want %+v", tc.name, g, w)
		}
		if tc.runs > 0 {
			// Packed, records in order spill less than the same records
			// shuffled (chunked): more of them fit the budget.
			shuffled := slices.Clone(tc.ds)
			rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			u := b.run(t, tc.opt, shuffled...)
			if got.Spilled >= u.Spilled || got.Spilled%recSize != 0 {
				t.Fatalf("%s: got %d bytes spilled in %d runs, want fewer bytes than the %d in %d shuffled, in whole records", tc.name, got.Spilled, got.Runs, u.Spilled, u.Runs)
			}
		}
	}
}

// A chunk sorts into recCmp order whether its starts pack into 8-byte keys
// or span too much for them, ties ordered by the whole record.
func TestRecordsSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	// Starts span [base, base+span): 2^51 apart is the first too wide.
	for _, span := range []int64{10, 1 << 40, 1 << 51, 1<<51 + 1, 1 << 62} {
		rs := newRecords(BreakdownOptions{}.withDefaults())
		rs.ordered = false
		c := make([]bdRec, 0, chunkRecs)
		base := int64(-1 << 62)
		for i := range chunkRecs {
			s := base + rng.Int64N(span)
			if i%2 == 0 { // ties
				s = base + (span-1)/7*rng.Int64N(8)
			}
			if i == 0 {
				s = base + span - 1
			}
			if i == 1 {
				s = base
			}
			c = append(c, bdRec{start: s, end: s + rng.Int64N(3), queue: int32(rng.IntN(3)), kernel: int32(rng.IntN(3)), flags: uint8(rng.IntN(2))})
		}
		want := slices.Clone(c)
		slices.SortFunc(want, func(a, b bdRec) int { return recCmp(&a, &b) })
		if got := rs.sorted(c); !slices.Equal(got, want) {
			t.Fatalf("span %d: got the records out of recCmp order, want them sorted", span)
		}
	}
}

// Chunks come two made alone, then from slabs (each as large as all made
// so far, at least 4 chunks, within the budget), then one by one past the
// budget: each holds chunk records and none shares memory with another.
func TestRecordsChunks(t *testing.T) {
	rs := newRecords(BreakdownOptions{Records: 64}.withDefaults())
	rs.chunk = 8 // budget: 64/8 + 2 = 10 chunks
	var cs [][]bdRec
	// Slabs: chunks 3-6 (4), 7-10 (4, the budget's rest); 11-12 alone.
	wantLeft := []int{0, 0, 3, 2, 1, 0, 3, 2, 1, 0, 0, 0}
	for i := range wantLeft {
		c := rs.newChunk()
		if len(c) != 0 || cap(c) != 8 {
			t.Fatalf("chunk %d: got len %d cap %d, want 0 and 8", i, len(c), cap(c))
		}
		if got := len(rs.slab) / 8; got != wantLeft[i] {
			t.Fatalf("chunk %d: got %d chunks left in the slab, want %d", i, got, wantLeft[i])
		}
		for j := range cap(c) {
			c = append(c, bdRec{start: int64(i), end: int64(j)})
		}
		cs = append(cs, c)
	}
	for i, c := range cs {
		for j, r := range c {
			if r.start != int64(i) || r.end != int64(j) {
				t.Fatalf("chunk %d record %d: got %+v, want start %d end %d (chunks overlap)", i, j, r, i, j)
			}
		}
	}
}
