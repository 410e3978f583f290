package capture

import (
	"math"
	"testing"
)

// The inlined tests Checked runs on every dispatch (fits, plausible) give
// the verdicts of the full checks (CheckDispatch, impossibleWhy) on every
// edge of their ranges.
func TestFastChecksAgree(t *testing.T) {
	edges := []int64{math.MinInt64, -1, 0, 1, 5, MaxDuration, MaxDuration + 1, math.MaxInt64 - 1, math.MaxInt64}
	for _, ceil := range []int64{0, -1, 1, MaxDuration, math.MaxInt64} {
		for _, b := range edges {
			for _, e := range edges {
				for _, valid := range []bool{true, false} {
					iv := Interval{Begin: b, End: e, Valid: valid}
					for _, d := range []*Dispatch{{Device: iv}, {Launch: iv}, {Device: iv, Launch: Interval{Begin: 1, End: 0, Valid: true}}} {
						_, want := impossibleWhy(d, ceil)
						if got := plausible(d.Device, ceil) && plausible(d.Launch, ceil); got != want {
							t.Fatalf("device %+v launch %+v ceiling %d: plausible %v, impossibleWhy %v", d.Device, d.Launch, ceil, got, want)
						}
						if _, got := ImpossibleTime(d, ceil); got != want {
							t.Fatalf("device %+v launch %+v ceiling %d: ImpossibleTime %v, impossibleWhy %v", d.Device, d.Launch, ceil, got, want)
						}
					}
				}
			}
		}
	}
	c := &Capture{Programs: []Program{{Name: "a"}, {Name: "b"}}, Queues: []Queue{{Name: "q"}},
		Kernels: []Kernel{{Program: 0, Name: "k0"}, {Program: 1, Name: "k1"}}}
	for _, k := range []KernelID{-1, 0, 1, 2} {
		for _, p := range []ProgramID{-1, 0, 1, 2} {
			for _, q := range []QueueID{NoQueue, -2, 0, 1} {
				for _, ag := range []*Aggregate{nil, {Count: 1}, {Count: 0}} {
					d := &Dispatch{Kernel: k, Program: p, Queue: q, Aggregate: ag}
					want := c.CheckDispatch(d) == nil
					// fits may send a good dispatch on to CheckDispatch
					// (aggregated records), never pass a bad one.
					if got := fits(c, d); got && !want || !got && want && ag == nil {
						t.Fatalf("kernel %d program %d queue %d aggregate %v: fits %v, CheckDispatch ok %v", k, p, q, ag, got, want)
					}
				}
			}
		}
	}
}
