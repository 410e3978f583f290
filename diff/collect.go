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

// add adds o's sums to s's, each saturating as the report's tables do: a
// hostile or absurd input pins a sum at the maximum, never wraps it negative.
func (s *runSums) add(o *runSums) {
	s.dispatches = capture.SatAdd(s.dispatches, o.dispatches)
	s.timed = capture.SatAdd(s.timed, o.timed)
	s.total = capture.SatAdd(s.total, o.total)
	s.single = capture.SatAdd(s.single, o.single)
	s.singleTotal = capture.SatAdd(s.singleTotal, o.singleTotal)
	s.aggregated = capture.SatAdd(s.aggregated, o.aggregated)
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
		s.dispatches = capture.SatAdd(s.dispatches, ag.Count)
		s.aggregated = capture.SatAdd(s.aggregated, ag.Count)
		if ag.DeviceValid {
			s.timed = capture.SatAdd(s.timed, ag.Count)
			s.total = capture.SatAdd(s.total, ag.Device)
		}
		return
	}
	s.dispatches = capture.SatAdd(s.dispatches, 1)
	if dur, ok := d.Device.Duration(); ok {
		s.timed = capture.SatAdd(s.timed, 1)
		s.total = capture.SatAdd(s.total, dur)
		s.single = capture.SatAdd(s.single, 1)
		s.singleTotal = capture.SatAdd(s.singleTotal, dur)
	}
}
