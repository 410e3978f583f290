package diff

import "github.com/tallyprof/tally/capture"

// runSums is what one run (one sample) of one kernel adds up to. Keeping
// sums per run, never dispatches, makes memory O(kernels × runs).
type runSums struct {
	dispatches int64 // every dispatch, aggregated ones included
	timed      int64 // dispatches whose device time is in total
	total      int64 // device time: single dispatches plus aggregated sums
	// single and singleTotal cover single dispatches with a device time
	// only: the time-per-dispatch sample is singleTotal/single, so an
	// aggregated record never stands in for a per-dispatch time.
	single      int64
	singleTotal int64
	aggregated  int64
}

func (s *runSums) add(o *runSums) {
	s.dispatches += o.dispatches
	s.timed += o.timed
	s.total += o.total
	s.single += o.single
	s.singleTotal += o.singleTotal
	s.aggregated += o.aggregated
}

// collector is the capture.Sink for one input: per kernel id, per run.
type collector struct {
	kernels []map[int64]*runSums // by capture.KernelID, then Dispatch.Instance
}

// Dispatch adds d to its kernel's run.
func (col *collector) Dispatch(_ *capture.Capture, d *capture.Dispatch) {
	k := int(d.Kernel)
	if k < 0 {
		return
	}
	for k >= len(col.kernels) {
		col.kernels = append(col.kernels, nil)
	}
	runs := col.kernels[k]
	if runs == nil {
		runs = map[int64]*runSums{}
		col.kernels[k] = runs
	}
	s := runs[d.Instance]
	if s == nil {
		s = &runSums{}
		runs[d.Instance] = s
	}
	if ag := d.Aggregate; ag != nil {
		s.dispatches += ag.Count
		s.aggregated += ag.Count
		if ag.DeviceValid {
			s.timed += ag.Count
			s.total += ag.Device
		}
		return
	}
	s.dispatches++
	if dur, ok := d.Device.Duration(); ok {
		s.timed++
		s.total += dur
		s.single++
		s.singleTotal += dur
	}
}
