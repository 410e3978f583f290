package htmlreport

import (
	"math"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/render"
)

const huge = int64(math.MaxInt64)

// The timeline's counts of aggregated dispatches and of unfinished ones
// it cannot place pin at MaxInt64: a wrapped, negative count read as none.
func TestTimelineCountsSaturate(t *testing.T) {
	c := &capture.Capture{Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true}}
	p := c.AddProgram(capture.Program{Name: "step"})
	k := c.AddKernel(capture.Kernel{Program: p, Name: "k"})
	tl := NewTimeline()
	for range 2 {
		tl.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k, Queue: capture.NoQueue, Aggregate: &capture.Aggregate{Count: huge}})
	}
	tl.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k, Queue: capture.NoQueue, Device: capture.Interval{Begin: 0, End: 10, Valid: true}})
	// Omitted items past MaxInt64, then one listed without a launch time.
	c.Accounting.Gaps = append(c.Accounting.Gaps,
		&capture.Gap{Kind: capture.UnfinishedDispatch, Program: "step", Count: huge, ItemsOmitted: huge},
		&capture.Gap{Kind: capture.UnfinishedDispatch, Program: "step", Count: 1, Items: []capture.Item{{What: "launched, never finished"}}})
	var names []string
	sec := timeline(c, tl, &names)
	if sec.Aggregated != huge {
		t.Errorf("aggregated: got %d, want %d", sec.Aggregated, huge)
	}
	if len(sec.Groups) != 1 || sec.Groups[0].Unplaced != huge {
		t.Errorf("groups: got %+v, want one with %d unplaced", sec.Groups, huge)
	}
}

// A breakdown bar's parts are laid end to end: parts of MaxInt64 ns keep
// their positions in order, never wrapped back before the first.
func TestBreakdownBarSaturates(t *testing.T) {
	d := &render.JSONDeviceBreakdown{Device: "GPU 0", Unit: "ns", WindowNS: huge}
	d.BusyNS.Compute, d.BusyNS.Comm, d.BusyNS.Memcpy = huge, huge, huge
	r := bdRow(d, false, false)
	if len(r.Parts) != 3 {
		t.Fatalf("got %d parts, want 3: %+v", len(r.Parts), r.Parts)
	}
	for i, want := range []float64{0, 1000, 1000} {
		if r.Parts[i].X != want {
			t.Errorf("part %s: got x %v, want %v", r.Parts[i].Key, r.Parts[i].X, want)
		}
	}
}
