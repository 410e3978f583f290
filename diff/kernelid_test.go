package diff

import (
	"testing"

	"github.com/tallyprof/tally/capture"
)

// Kernel ids are a capture's own numbering (the probe numbers kernels in
// first-use order): two captures that both name a kernel, with different
// names under one id, hold two kernels. Matching them by id would compare
// different kernels under side A's name.
func TestNamedKernelsNotMatchedByID(t *testing.T) {
	build := func(names ...string) func(capture.Sink) (*capture.Capture, error) {
		return func(sink capture.Sink) (*capture.Capture, error) {
			c := &capture.Capture{Source: capture.Source{Path: names[0]}, Clock: nsClock}
			p := c.AddProgram(capture.Program{Name: "decode", Instances: 1})
			for i, n := range names {
				k := c.AddKernel(capture.Kernel{Program: p, Name: n, ID: uint64(i), HasID: true, Resolved: true})
				sink.Dispatch(c, &capture.Dispatch{Program: p, Queue: capture.NoQueue, Kernel: k, Instance: 0, Device: capture.Interval{Begin: 0, End: int64(10 * (i + 1)), Valid: true}})
			}
			return c, nil
		}
	}
	// B launches softmax first: id 0 is softmax there.
	p := compareBuilt(t, build("matmul", "softmax"), build("softmax", "matmul")).program(t, "decode")
	if len(p.Kernels) != 2 {
		t.Fatalf("%d kernel rows, want 2: %+v", len(p.Kernels), p.Kernels)
	}
	for _, name := range []string{"matmul", "softmax"} {
		k := p.kernel(t, name)
		if k.Status != Matched {
			t.Errorf("%s: got %s, want %s", name, k.Status, Matched)
		}
		// Each kernel's time is its own on both sides.
		if k.PerDispatch.A == nil || k.PerDispatch.B == nil {
			t.Fatalf("%s: got no time per dispatch on a side, want both: %+v", name, k)
		}
		if a, b := k.PerDispatch.A.Center, k.PerDispatch.B.Center; a+b != 30 || a == b {
			t.Errorf("%s: got time per dispatch A %v B %v, want its own on both (summing to 30, not equal)", name, a, b)
		}
	}
}

// Two kernels of one name in one program (two ids, one name) are one row:
// each run's sums are both kernels' — counts, aggregated dispatches and
// times per dispatch alike.
func TestSameNameKernelsAdded(t *testing.T) {
	build := func(sink capture.Sink) (*capture.Capture, error) {
		c := &capture.Capture{Source: capture.Source{Path: "a.trace"}, Clock: nsClock}
		p := c.AddProgram(capture.Program{Name: "decode", Instances: 1})
		for i := range 2 {
			k := c.AddKernel(capture.Kernel{Program: p, Name: "matmul", ID: uint64(i), HasID: true, Resolved: true})
			sink.Dispatch(c, &capture.Dispatch{Program: p, Queue: capture.NoQueue, Kernel: k, Device: capture.Interval{Begin: 0, End: int64(10 + 20*i), Valid: true}})
			sink.Dispatch(c, &capture.Dispatch{Program: p, Queue: capture.NoQueue, Kernel: k, Aggregate: &capture.Aggregate{Count: 2, Device: 100, DeviceValid: true}})
		}
		return c, nil
	}
	k := compareBuilt(t, build, build).program(t, "decode").kernel(t, "matmul")
	if k.AggregatedA != 4 || k.AggregatedB != 4 {
		t.Errorf("aggregated dispatches: got %d/%d, want 4/4", k.AggregatedA, k.AggregatedB)
	}
	if k.Dispatches.A == nil || k.Dispatches.A.Center != 6 {
		t.Errorf("dispatches per run: got %+v, want 6", k.Dispatches.A)
	}
	if k.PerDispatch.A == nil || k.PerDispatch.A.Center != 20 {
		t.Errorf("time per dispatch: got %+v, want 20 (the single dispatches 10 and 30)", k.PerDispatch.A)
	}
	if k.PerRun.A == nil || k.PerRun.A.Center != 240 {
		t.Errorf("time per run: got %+v, want 240", k.PerRun.A)
	}
}
