package analysis

import "github.com/tallyprof/tally/capture"

// Tables are the per-program kernel tables of one capture.
type Tables struct {
	Programs []ProgramTable
	// Ops is the capture's dispatches by host op (optable.go), when asked
	// for (inputs.Options.Ops); nil otherwise.
	Ops *OpTable
}

// ProgramTable is one program's kernels. Shares compare kernels of this
// program only.
type ProgramTable struct {
	ID      capture.ProgramID
	Program capture.Program
	Clock   capture.Clock
	// Dispatches counts completed dispatches; Timed those with a device time.
	Dispatches int64
	Timed      int64
	// Total is the summed device time of the timed dispatches.
	Total   int64
	Kernels []KernelRow
}

// KernelRow is one kernel's statistics within its program.
type KernelRow struct {
	ID         capture.KernelID
	Kernel     capture.Kernel
	Dispatches int64
	// Timed counts dispatches with a device time; the time statistics below
	// cover only those and are meaningless when Timed is 0.
	Timed int64
	Total int64
	// Min and Max are over single dispatches; they are unknown (MinMaxKnown
	// false) when any dispatch came in an aggregated record, because a
	// minimum cannot be computed from sums.
	Min, Max    int64
	MinMaxKnown bool
	Mean        float64
	// Aggregated counts the dispatches known only through aggregated
	// records (counts and sums, no single times).
	Aggregated int64
	// Share is Total over the program's Total (0..1); valid when Timed > 0.
	Share float64
	// Launched counts dispatches with a launch (host enqueue) time.
	Launched    int64
	LaunchTotal int64
	LaunchMean  float64
	// Links counts dispatches by how they were linked to a launch.
	Links map[string]int64
	// NoLaunchTotal is the device time of the dispatches whose launch call
	// is not in the trace (link no-launch): in the tables, not attributed.
	NoLaunchTotal int64
}

// Tables builds the tables for capture c from what the aggregator saw.
// Kernels are ordered by total time, then dispatches, then name. It also
// sizes c's gaps (Size): how much of the tables each touches is known only
// once the tables are.
func (a *Aggregator) Tables(c *capture.Capture) *Tables {
	r := &Tables{Programs: make([]ProgramTable, len(c.Programs))}
	for i, p := range c.Programs {
		r.Programs[i] = ProgramTable{ID: capture.ProgramID(i), Program: p, Clock: c.ProgramClock(capture.ProgramID(i))}
	}
	for k := range a.kernels {
		s := &a.kernels[k]
		if !s.seen || k >= len(c.Kernels) {
			continue
		}
		kern := c.Kernels[k]
		if int(kern.Program) < 0 || int(kern.Program) >= len(r.Programs) {
			continue
		}
		row := KernelRow{ID: capture.KernelID(k), Kernel: kern, Dispatches: s.dispatches, Timed: s.timed,
			Total: s.total, Launched: s.launched, LaunchTotal: s.launch, Aggregated: s.aggregated, NoLaunchTotal: s.noLaunch}
		if s.timed > 0 {
			row.Mean = float64(s.total) / float64(s.timed)
			if s.aggregated == 0 {
				row.Min, row.Max, row.MinMaxKnown = s.min, s.max, true
			}
		}
		if s.launched > 0 {
			row.LaunchMean = float64(s.launch) / float64(s.launched)
		}
		for l, n := range s.links {
			if n > 0 && capture.Link(l) != capture.LinkNone {
				if row.Links == nil {
					row.Links = map[string]int64{}
				}
				row.Links[capture.Link(l).String()] = n
			}
		}
		pt := &r.Programs[kern.Program]
		pt.Kernels = append(pt.Kernels, row)
		pt.Dispatches = capture.SatAdd(pt.Dispatches, s.dispatches)
		pt.Timed = capture.SatAdd(pt.Timed, s.timed)
		pt.Total = capture.SatAdd(pt.Total, s.total)
	}
	for i := range r.Programs {
		r.Programs[i].Order()
	}
	Size(c, r)
	return r
}

// Order sets each row's share of the program's total and orders the rows
// by total time, then dispatches, then name. Tables calls it; so does any
// code that builds a table from others' rows (merged inputs).
func (pt *ProgramTable) Order() {
	for j := range pt.Kernels {
		if pt.Total > 0 {
			pt.Kernels[j].Share = float64(pt.Kernels[j].Total) / float64(pt.Total)
		}
	}
	sortCostliest(pt.Kernels, func(k *KernelRow) (int64, int64, string) { return k.Total, k.Dispatches, k.Kernel.Name })
}

// Dispatches is the total number of completed dispatches in the tables.
func (r *Tables) Dispatches() int64 {
	var n int64
	for _, p := range r.Programs {
		n = capture.SatAdd(n, p.Dispatches)
	}
	return n
}
