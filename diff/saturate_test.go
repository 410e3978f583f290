package diff

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// A run's sums pin at the maximum instead of wrapping: a negative sum would
// read as a kernel that took no time, or ran no dispatches.
func TestRunSumsSaturate(t *testing.T) {
	var col collector
	c := &capture.Capture{}
	huge := &capture.Dispatch{Queue: capture.NoQueue, Aggregate: &capture.Aggregate{Count: math.MaxInt64, Device: math.MaxInt64, DeviceValid: true}}
	col.Dispatch(c, huge)
	col.Dispatch(c, huge)
	col.Dispatch(c, &capture.Dispatch{Queue: capture.NoQueue, Device: capture.Interval{Begin: 0, End: math.MaxInt64, Valid: true}})
	col.Dispatch(c, &capture.Dispatch{Queue: capture.NoQueue, Device: capture.Interval{Begin: 0, End: math.MaxInt64, Valid: true}})
	const m = math.MaxInt64
	want := runSums{dispatches: m, timed: m, total: m, single: 2, singleTotal: m, aggregated: m}
	if got := *col.kernels[0][0]; got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	sum := want
	sum.add(&want)
	if want.single = 4; sum != want {
		t.Errorf("added: got %+v, want %+v", sum, want)
	}
}

// A kind that several inputs share is stated once with the sum of their
// counts, saturated like every count.
func TestGapLinesSumSaturates(t *testing.T) {
	pr := &Program{GapsA: []*capture.Gap{{Kind: "dropped_records", Count: math.MaxInt64}, {Kind: "dropped_records", Count: 5}}}
	lines := gapLines(pr)
	want := fmt.Sprintf("dropped_records (%d in 2 inputs)", int64(math.MaxInt64))
	if len(lines) != 1 || !strings.Contains(lines[0], want) {
		t.Errorf("got %q, want one line with %q", lines, want)
	}
}
