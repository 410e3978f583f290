package analysis

import "github.com/tallyprof/tally/capture"

// Launch statistics, per kernel and per program, O(kernels): the delay from
// a dispatch's launch call to its start (HTA's launch delay: device start −
// launch call end; for a graph replay the graph launch call's end), the
// host time in launch calls, and the short kernels.

// ProgramLaunch is one program's launch statistics.
type ProgramLaunch struct {
	ID      capture.ProgramID
	Program string
	Unit    string
	// LaunchCounts are the program's kernels' summed.
	LaunchCounts
	// HostLaunch is the time in launch calls, each graph launch counted
	// once (its kernels share its interval) as far as the last
	// graphLaunchRing distinct graph launches of the program tell.
	HostLaunch int64
	// LaunchBound: the host spent longer in launch calls than the device
	// ran (HostLaunch > Device).
	LaunchBound bool
	// Delay is the launch-to-start delay over the dispatches with both
	// times; nil when none has, or when Bracketed.
	Delay *DelayStats
	// Bracketed: every launched dispatch starts where its launch call
	// ended (hrx serial mode): the delay is zero by construction, not
	// measured.
	Bracketed bool
	Kernels   []KernelLaunch
}

// KernelLaunch is one kernel's launch statistics.
type KernelLaunch struct {
	ID     capture.KernelID
	Kernel capture.Kernel
	LaunchCounts
	// LaunchTotal is the time in launch calls (every dispatch's, as the
	// tables' launch mean).
	LaunchTotal int64
	Delay       *DelayStats
}

// LaunchCounts are a kernel's launch counts. A program's are its kernels'
// summed, as a kernel's over many inputs are the inputs' summed (add).
type LaunchCounts struct {
	// Dispatches counts single dispatches; Timed those with a device time
	// (Device is their sum); Launched those with a launch interval.
	Dispatches, Timed, Launched int64
	Device                      int64
	// Short and ShortTime are the dispatches shorter than
	// BreakdownOptions.ShortKernel and their device time (ns programs
	// only).
	Short, ShortTime int64
}

// add adds o's counts to c's, each saturating.
func (c *LaunchCounts) add(o *LaunchCounts) {
	c.Dispatches = capture.SatAdd(c.Dispatches, o.Dispatches)
	c.Timed = capture.SatAdd(c.Timed, o.Timed)
	c.Launched = capture.SatAdd(c.Launched, o.Launched)
	c.Device = capture.SatAdd(c.Device, o.Device)
	c.Short = capture.SatAdd(c.Short, o.Short)
	c.ShortTime = capture.SatAdd(c.ShortTime, o.ShortTime)
}

// DelayStats summarise launch-to-start delays: N values, Mean, Min and Max
// exact, P50 and P99 read from a log-bucketed histogram (within 0.8%,
// clamped to [Min, Max]). Graph counts the delays measured from a graph
// launch call.
type DelayStats struct {
	N        int64
	Mean     float64
	P50, P99 int64
	Min, Max int64
	Graph    int64
	sum      float64
	h        hist
	minSet   bool
}

func (d *DelayStats) add(v int64, graph bool) {
	d.N++
	d.sum += float64(v)
	if !d.minSet || v < d.Min {
		d.Min = v
	}
	if !d.minSet || v > d.Max {
		d.Max = v
	}
	d.minSet = true
	if graph {
		d.Graph++
	}
	d.h.add(v)
}

func (d *DelayStats) merge(o *DelayStats) {
	if o == nil || o.N == 0 {
		return
	}
	if !d.minSet || o.Min < d.Min {
		d.Min = o.Min
	}
	if !d.minSet || o.Max > d.Max {
		d.Max = o.Max
	}
	d.minSet = true
	d.N += o.N
	d.sum += o.sum
	d.Graph += o.Graph
	d.h.merge(&o.h)
}

// finish computes the mean and percentiles.
func (d *DelayStats) finish() {
	if d.N == 0 {
		return
	}
	d.Mean = d.sum / float64(d.N)
	clamp := func(v int64) int64 { return min(max(v, d.Min), d.Max) }
	d.P50 = clamp(d.h.quantile(0.50, d.N))
	d.P99 = clamp(d.h.quantile(0.99, d.N))
}

// graphLaunchRing is how many distinct graph launches per program the host
// launch time remembers, to count each once.
const graphLaunchRing = 64

type launchKernel struct {
	seen                        bool
	dispatches, timed, launched int64
	device, launch              int64
	short, shortTime            int64
	delay                       DelayStats
}

type launchProgram struct {
	hostLaunch  int64
	notBracket  bool
	launched    int64
	graphs      [graphLaunchRing][2]int64
	graphsUsed  int
	graphsWrite int
}

// launchStats accumulates per kernel and program.
type launchStats struct {
	short    int64
	kernels  []launchKernel
	programs []launchProgram
}

func grow[T any](s []T, i int) []T {
	if i < len(s) {
		return s
	}
	n := max(i+1, 2*len(s))
	g := make([]T, n)
	copy(g, s)
	return g
}

func (ls *launchStats) add(d *capture.Dispatch) {
	k, p := int(d.Kernel), int(d.Program)
	if k < 0 || p < 0 {
		return
	}
	ls.kernels = grow(ls.kernels, k)
	ls.programs = grow(ls.programs, p)
	a, pr := &ls.kernels[k], &ls.programs[p]
	a.seen = true
	a.dispatches++
	dur, timed := d.Device.Duration()
	if timed {
		a.timed++
		a.device = capture.SatAdd(a.device, dur)
		if dur < ls.short {
			a.short++
			a.shortTime = capture.SatAdd(a.shortTime, dur)
		}
	}
	ldur, launched := d.Launch.Duration()
	if !launched {
		return
	}
	a.launched++
	pr.launched++
	a.launch = capture.SatAdd(a.launch, ldur)
	graph := d.Link == capture.LinkGraph
	if !graph || pr.newGraph(d.Launch) {
		pr.hostLaunch = capture.SatAdd(pr.hostLaunch, ldur)
	}
	if timed {
		if d.Device.Begin != d.Launch.End {
			pr.notBracket = true
		}
		a.delay.add(delay(d.Device.Begin, d.Launch.End), graph)
	}
}

// delay is start − launchEnd: times are ≥ 0 (capture.Checked), so it
// cannot overflow.
func delay(start, lend int64) int64 { return start - lend }

// newGraph reports whether the graph launch iv was not counted yet, and
// remembers it.
func (pr *launchProgram) newGraph(iv capture.Interval) bool {
	// A graph launch's kernels mostly come one after another: the last
	// launch remembered first.
	if pr.graphsUsed > 0 && pr.graphs[(pr.graphsWrite+graphLaunchRing-1)%graphLaunchRing] == [2]int64{iv.Begin, iv.End} {
		return false
	}
	for i := 0; i < pr.graphsUsed; i++ {
		if pr.graphs[i] == [2]int64{iv.Begin, iv.End} {
			return false
		}
	}
	pr.graphs[pr.graphsWrite] = [2]int64{iv.Begin, iv.End}
	pr.graphsWrite = (pr.graphsWrite + 1) % graphLaunchRing
	pr.graphsUsed = min(pr.graphsUsed+1, graphLaunchRing)
	return true
}

// finish builds the per-program statistics of capture c.
func (ls *launchStats) finish(c *capture.Capture) []ProgramLaunch {
	out := make([]ProgramLaunch, len(c.Programs))
	for i, p := range c.Programs {
		out[i] = ProgramLaunch{ID: capture.ProgramID(i), Program: p.Name, Unit: c.ProgramClock(capture.ProgramID(i)).Unit}
		if i < len(ls.programs) {
			pr := &ls.programs[i]
			out[i].HostLaunch = pr.hostLaunch
			out[i].Bracketed = pr.launched > 0 && !pr.notBracket
		}
	}
	for k := range ls.kernels {
		a := &ls.kernels[k]
		if !a.seen || k >= len(c.Kernels) {
			continue
		}
		kern := c.Kernels[k]
		if int(kern.Program) < 0 || int(kern.Program) >= len(out) {
			continue
		}
		pl := &out[kern.Program]
		kl := KernelLaunch{ID: capture.KernelID(k), Kernel: kern, LaunchTotal: a.launch,
			LaunchCounts: LaunchCounts{Dispatches: a.dispatches, Timed: a.timed, Launched: a.launched, Device: a.device}}
		if pl.Unit == "ns" {
			kl.Short, kl.ShortTime = a.short, a.shortTime
		}
		if a.delay.N > 0 && pl.Unit == "ns" && !pl.Bracketed {
			d := a.delay
			d.finish()
			kl.Delay = &d
		}
		pl.Kernels = append(pl.Kernels, kl)
		pl.addKernel(&kl, &a.delay)
	}
	for i := range out {
		out[i].finish()
	}
	return out
}

// addKernel adds a kernel's figures to its program's.
func (pl *ProgramLaunch) addKernel(kl *KernelLaunch, d *DelayStats) {
	pl.LaunchCounts.add(&kl.LaunchCounts)
	if d != nil && d.N > 0 && pl.Unit == "ns" && !pl.Bracketed {
		if pl.Delay == nil {
			pl.Delay = &DelayStats{}
		}
		pl.Delay.merge(d)
	}
}

// finish orders the kernels (device time, then dispatches, then name),
// computes the program's delay figures and its verdict.
func (pl *ProgramLaunch) finish() {
	sortCostliest(pl.Kernels, func(k *KernelLaunch) (int64, int64, string) { return k.Device, k.Dispatches, k.Kernel.Name })
	if pl.Delay != nil {
		pl.Delay.finish()
	}
	pl.LaunchBound = pl.Unit == "ns" && pl.Launched > 0 && pl.HostLaunch > pl.Device
}

// ShortShare is the short dispatches' share of the timed dispatches and of
// the device time (0 when there are none).
func (pl *ProgramLaunch) ShortShare() (dispatches, time float64) {
	if pl.Timed > 0 {
		dispatches = float64(pl.Short) / float64(pl.Timed)
	}
	if pl.Device > 0 {
		time = float64(pl.ShortTime) / float64(pl.Device)
	}
	return dispatches, time
}
