// Package analysis turns a stream of dispatches into per-program kernel
// tables. It holds one accumulator per (program, kernel): memory grows with
// the number of kernels, never with the number of dispatches.
//
// An Input is one input read (its capture and tables, or its error); a Run
// is the inputs of a command merged into one table per program with the
// accounting of the whole (NewRun), and says whether it is reported as one
// input or as a run of many (Run.Many). inputs.Read makes them; the
// renderers and writers consume them.
package analysis

import (
	"math"

	"github.com/tallyprof/tally/capture"
)

// Aggregator is a capture.Sink that accumulates per-kernel statistics.
type Aggregator struct {
	kernels []acc // indexed by capture.KernelID
}

type acc struct {
	seen       bool
	dispatches int64
	timed      int64 // dispatches with a device time
	total      int64
	min, max   int64
	launched   int64 // dispatches with a launch time
	launch     int64
	links      [4]int64 // by capture.Link
	noLaunch   int64    // device time of the dispatches linked no-launch
	aggregated int64    // dispatches known only through aggregated records
}

// NewAggregator returns an empty aggregator.
func NewAggregator() *Aggregator { return &Aggregator{} }

// Dispatch adds one dispatch.
func (a *Aggregator) Dispatch(_ *capture.Capture, d *capture.Dispatch) {
	k := int(d.Kernel)
	if k >= len(a.kernels) {
		n := k + 1
		if n < 2*len(a.kernels) {
			n = 2 * len(a.kernels)
		}
		grown := make([]acc, n)
		copy(grown, a.kernels)
		a.kernels = grown
	}
	s := &a.kernels[k]
	if !s.seen {
		s.seen = true
		s.min = math.MaxInt64
		s.max = math.MinInt64
	}
	if ag := d.Aggregate; ag != nil {
		a.aggregate(s, d, ag)
		return
	}
	s.dispatches++
	if int(d.Link) < len(s.links) {
		s.links[d.Link]++
	}
	if dur, ok := d.Device.Duration(); ok {
		s.timed++
		s.total = capture.SatAdd(s.total, dur)
		if d.Link == capture.LinkNoLaunch {
			s.noLaunch = capture.SatAdd(s.noLaunch, dur)
		}
		if dur < s.min {
			s.min = dur
		}
		if dur > s.max {
			s.max = dur
		}
	}
	if dur, ok := d.Launch.Duration(); ok {
		s.launched++
		s.launch = capture.SatAdd(s.launch, dur)
	}
}

// aggregate adds a record that stands for ag.Count dispatches known only by
// their sums: counts and totals grow, min and max become unknown.
func (a *Aggregator) aggregate(s *acc, d *capture.Dispatch, ag *capture.Aggregate) {
	s.dispatches = capture.SatAdd(s.dispatches, ag.Count)
	s.aggregated = capture.SatAdd(s.aggregated, ag.Count)
	if int(d.Link) < len(s.links) {
		s.links[d.Link] = capture.SatAdd(s.links[d.Link], ag.Count)
	}
	if ag.DeviceValid {
		s.timed = capture.SatAdd(s.timed, ag.Count)
		s.total = capture.SatAdd(s.total, ag.Device)
		if d.Link == capture.LinkNoLaunch {
			s.noLaunch = capture.SatAdd(s.noLaunch, ag.Device)
		}
	}
	if ag.LaunchValid {
		s.launched = capture.SatAdd(s.launched, ag.Count)
		s.launch = capture.SatAdd(s.launch, ag.Launch)
	}
}
