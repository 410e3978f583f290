package analysis

import (
	"math"
	"slices"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/perfmodel"
)

// opsCapture has one op of each kind of outcome: a modelled GEMM (FLOPs and
// bytes), a modelled elementwise op (bytes only), an op without shapes, an
// op with shapes but no model, and a dispatch under no op. Device times:
// mm 2×100 µs, add 10 µs, region 5 µs, foo 7 µs, orphan 3 µs.
func opsCapture() (*capture.Capture, *OpAggregator) {
	c := &capture.Capture{Clock: capture.Clock{Unit: "ns", Timed: true}, OpSource: "test", OpDevice: "NVIDIA H100 80GB HBM3"}
	p := c.AddProgram(capture.Program{Name: "step"})
	gemm := c.AddKernel(capture.Kernel{Program: p, Name: "gemm"})
	ew := c.AddKernel(capture.Kernel{Program: p, Name: "ew"})
	orphan := c.AddKernel(capture.Kernel{Program: p, Name: "orphan"})
	region := c.AddOp(capture.Op{Name: "region", Calls: 1, HostNS: 1000, HostValid: true})
	mm := c.AddOp(capture.Op{Name: "aten::mm", Dims: "[[1024,2048],[2048,4096]]", Types: `["c10::BFloat16","c10::BFloat16"]`, Calls: 2, HostNS: 100, HostValid: true})
	add := c.AddOp(capture.Op{Name: "aten::add", Dims: "[[1024,1024],[1024,1024],[]]", Types: `["float","float","Scalar"]`, Calls: 1, HostNS: 10, HostValid: true})
	foo := c.AddOp(capture.Op{Name: "aten::foo", Dims: "[[8]]", Types: `["float"]`, Calls: 1, HostNS: 7, HostValid: true})
	a := NewOpAggregator()
	emit := func(k capture.KernelID, op, outer capture.OpID, dur int64) {
		a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k, Op: op, OuterOp: outer, Device: capture.Interval{Begin: 1, End: 1 + dur, Valid: true}})
	}
	emit(gemm, mm, region, 100_000)
	emit(gemm, mm, region, 100_000)
	emit(ew, add, add, 10_000)
	emit(ew, region, region, 5_000)
	emit(ew, foo, foo, 7_000)
	emit(orphan, capture.NoOp, capture.NoOp, 3_000)
	return c, a
}

func nearFloat(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Abs(want) }

func TestOpTableFigures(t *testing.T) {
	c, a := opsCapture()
	tb := a.Table(c, OpOptions{})
	if tb.Level != "inner" || tb.Device != 225_000 || tb.Dispatches != 6 || tb.Peaks != "H100 SXM" {
		t.Fatalf("got level %s, device %d, %d dispatches, peaks %q; want inner, 225000, 6, H100 SXM", tb.Level, tb.Device, tb.Dispatches, tb.Peaks)
	}
	// The partition: modelled + unmodelled + unattributed = all.
	if tb.Modelled != 210_000 || tb.NoShapes != 5_000 || tb.NoModel != 7_000 || tb.Unmodelled != 12_000 || tb.Unattributed.Device != 3_000 || tb.Unattributed.Dispatches != 1 {
		t.Fatalf("got modelled %d, no shapes %d, no model %d, unmodelled %d, unattributed %d in %d; want 210000, 5000, 7000, 12000, 3000 in 1",
			tb.Modelled, tb.NoShapes, tb.NoModel, tb.Unmodelled, tb.Unattributed.Device, tb.Unattributed.Dispatches)
	}
	if k := tb.Unattributed.Kernels; len(k) != 1 || k[0].Name != "orphan" {
		t.Errorf("unattributed kernels: got %+v, want orphan", k)
	}
	if len(tb.Rows) != 4 || tb.Rows[0].Name != "aten::mm" || tb.Rows[1].Name != "aten::add" || tb.Rows[2].Name != "aten::foo" || tb.Rows[3].Name != "region" {
		t.Fatalf("rows: got %+v, want mm, add, foo, region by device time", tb.Rows)
	}
	mm := &tb.Rows[0]
	if mm.Calls != 2 || mm.Dispatches != 2 || mm.Device != 200_000 || mm.Host != 100 || !nearFloat(mm.Share, 200.0/225) {
		t.Errorf("mm: got %d calls, %d dispatches, %d ns, host %d, share %g; want 2, 2, 200000, 100, 0.888…", mm.Calls, mm.Dispatches, mm.Device, mm.Host, mm.Share)
	}
	// By hand: FLOPs = 2·M·N·K = 2·1024·4096·2048 = 17179869184 per call,
	// two calls; bytes = (M·K + K·N + M·N)·2 = 29360128 per call.
	r := &mm.Roof
	tf, _ := r.TFLOPS()
	tbps, _ := r.TBps()
	in, _ := r.Intensity()
	of, _ := r.OfPeak()
	if r.FLOPs != 34359738368 || r.Bytes != 58720256 || !nearFloat(tf, 171.79869184) || !nearFloat(tbps, 0.29360128) || !nearFloat(in, 585.142857142857) {
		t.Errorf("mm roofline: got %g FLOPs, %g bytes, %g TFLOP/s, %g TB/s, intensity %g; want 34359738368, 58720256, 171.79869184, 0.29360128, 585.142857…", r.FLOPs, r.Bytes, tf, tbps, in)
	}
	// At H100 SXM's 989.5 bf16 TFLOP/s the FLOPs take 34724.35 ns of the
	// 200000 ns: 17.36% of peak, compute-bound (bytes take 17528 ns at 3.35 TB/s).
	if !nearFloat(of, 34359738368/989.5e3/200000) || r.Bound() != "compute" || r.Family != perfmodel.GEMM || r.DType != "bf16" {
		t.Errorf("mm: got %g of peak, bound %q, family %q, dtype %q; want 0.173618…, compute, gemm, bf16", of, r.Bound(), r.Family, r.DType)
	}
	add := &tb.Rows[1].Roof
	if _, ok := add.TFLOPS(); ok || add.Bytes != 12582912 || add.Bound() != "memory" {
		t.Errorf("add: got %g bytes, bound %q; want 12582912 bytes (two 4 MiB inputs, a 4 MiB output), no FLOPs, memory", add.Bytes, add.Bound())
	}
	if of, _ := add.OfPeak(); !nearFloat(of, 12582912/3.35e3/10000) {
		t.Errorf("add: got %g of peak, want 0.3756…", of)
	}
	if _, ok := tb.Rows[3].Roof.TFLOPS(); ok || tb.Rows[3].Roof.NoShapes != 5_000 {
		t.Errorf("region: got %+v, want no model, 5000 ns without shapes", tb.Rows[3].Roof)
	}

	// The outer level: the GEMMs sit under region, which has no model.
	out := a.Table(c, OpOptions{Outer: true})
	if out.Level != "outer" || out.Rows[0].Name != "region" || out.Rows[0].Device != 205_000 || out.NoShapes != 205_000 || out.Modelled != 10_000 {
		t.Errorf("outer: got %+v, want region first with 205000 ns without shapes, 10000 modelled", out)
	}

	// A peak override replaces the device's.
	ov := a.Table(c, OpOptions{Peaks: perfmodel.Override{TFLOPS: 100, TBps: 1}})
	if of, _ := ov.Rows[0].Roof.OfPeak(); ov.Peaks != "--peak-tflops" || !nearFloat(of, 34359738368/100e3/200000) {
		t.Errorf("override: got %g of peak from %q, want 1.7179… from --peak-tflops", of, ov.Peaks)
	}
	// An unknown device: no peaks, no percentages, figures still.
	c.OpDevice = "Some NPU"
	np := a.Table(c, OpOptions{})
	if _, ok := np.Rows[0].Roof.OfPeak(); ok || np.Peaks != "" || np.Rows[0].Roof.FLOPs != 34359738368 {
		t.Errorf("unknown device: got peaks %q, %+v; want none, FLOPs kept", np.Peaks, np.Rows[0].Roof)
	}
}

// Merging inputs adds every figure; rates stay.
func TestMergeOps(t *testing.T) {
	c, a := opsCapture()
	tb := a.Table(c, OpOptions{})
	m := MergeOps([]*OpTable{tb, nil, a.Table(c, OpOptions{})})
	if m.Device != 450_000 || m.Unattributed.Device != 6_000 || m.Modelled != 420_000 || m.Unmodelled != 24_000 {
		t.Fatalf("merged: got device %d, unattributed %d, modelled %d, unmodelled %d; want 450000, 6000, 420000, 24000", m.Device, m.Unattributed.Device, m.Modelled, m.Unmodelled)
	}
	r := &m.Rows[0]
	tf, _ := r.Roof.TFLOPS()
	if r.Name != "aten::mm" || r.Calls != 4 || !nearFloat(tf, 171.79869184) || len(r.Kernels) != 1 || r.Kernels[0].Dispatches != 4 {
		t.Errorf("merged mm: got %+v, %g TFLOP/s; want 4 calls, 171.8 TFLOP/s, one kernel of 4 dispatches", r, tf)
	}
	if MergeOps(nil) != nil {
		t.Error("merging no tables: got a table, want nil")
	}
}

// Dispatches under no op when the format records none: all unattributed.
func TestOpTableNoSource(t *testing.T) {
	c, p, ks := nsProgram("p", "k")
	a := NewOpAggregator()
	a.Dispatch(c, &capture.Dispatch{Program: p, Kernel: ks[0], Aggregate: &capture.Aggregate{Count: 5, Device: 50, DeviceValid: true}})
	tb := a.Table(c, OpOptions{})
	if tb.Source != "" || len(tb.Rows) != 0 || tb.Unattributed.Dispatches != 5 || tb.Unattributed.Device != 50 || tb.Device != 50 {
		t.Errorf("got %+v, want no rows, 5 dispatches and 50 ns unattributed", tb)
	}
}

// An op's kernels of one name are merged, then listed costliest first: by
// device time, then dispatches, then name.
func TestOpKernelsMergedCostliestFirst(t *testing.T) {
	f := OpFigures{Kernels: []OpKernel{{Name: "b", Dispatches: 1, Device: 10}, {Name: "a", Dispatches: 2, Device: 30},
		{Name: "c", Dispatches: 1, Device: 10}, {Name: "b", Dispatches: 1, Device: 20}, {Name: "d", Dispatches: 3, Device: 10}}}
	f.sortKernels()
	want := []OpKernel{{Name: "a", Dispatches: 2, Device: 30}, {Name: "b", Dispatches: 2, Device: 30},
		{Name: "d", Dispatches: 3, Device: 10}, {Name: "c", Dispatches: 1, Device: 10}}
	if !slices.Equal(f.Kernels, want) {
		t.Errorf("got %+v, want %+v", f.Kernels, want)
	}
}
