package analysis

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// The merged breakdown of many inputs: every input's device rows (its
// (rank, device) rows, each naming its input), their sum (Total: the sum
// of windows, not a span of time — inputs' clocks are not compared), and
// the launch statistics merged as the tables are (programs by name and
// unit, kernels by list, name and category).

// mergeBreakdown sets run.Breakdown when the inputs were read with one.
func (run *Run) mergeBreakdown() {
	var opt *BreakdownOptions
	for _, in := range run.Inputs {
		if in.Breakdown != nil {
			opt = &in.Breakdown.Options
			break
		}
	}
	if opt == nil {
		return
	}
	m := &Breakdown{Options: *opt}
	total := DeviceBreakdown{Device: "all devices", Unit: "ns"}
	var ticks, failed int
	lm := &launchMerge{progs: map[progKey]int{}, kerns: map[kernKey]int{}}
	for i := range run.Inputs {
		in := &run.Inputs[i]
		b := in.Breakdown
		if b == nil {
			continue
		}
		if b.Err != nil {
			failed++
			continue
		}
		m.Untimed = capture.SatAdd(m.Untimed, b.Untimed)
		m.Aggregated = capture.SatAdd(m.Aggregated, b.Aggregated)
		m.SyncRecorded = m.SyncRecorded || b.SyncRecorded
		m.InMemory = m.InMemory || b.InMemory
		for _, r := range b.Devices {
			r.Input = in.Index
			m.Devices = append(m.Devices, r)
			if r.Unit != "ns" {
				ticks++
				continue
			}
			total.add(&r)
		}
		for _, pl := range b.Programs {
			lm.add(m, &pl)
		}
	}
	for i := range m.Programs {
		pl := &m.Programs[i]
		pl.ID = capture.ProgramID(i)
		for j := range pl.Kernels {
			k := &pl.Kernels[j]
			pl.addKernel(k, k.Delay)
			if k.Delay != nil {
				k.Delay.finish()
			}
		}
		pl.Bracketed = pl.Launched > 0 && !lm.unbracketed[i]
		pl.finish()
	}
	if ticks > 0 {
		total.Reasons = append(total.Reasons, fmt.Sprintf("%s timed in ticks not in this total (ticks of different devices do not add)",
			units.Plural(int64(ticks), "device row", "device rows")))
	}
	if failed > 0 {
		total.Reasons = append(total.Reasons, fmt.Sprintf("%s whose breakdown failed not in this total (see their sections)",
			units.Plural(int64(failed), "input", "inputs")))
	}
	total.Reasons = append(total.Reasons, "the window is the sum of the rows' windows: each device's own span, not one span of time")
	m.Total = &total
	run.Breakdown = m
}

// add sums r into t.
func (t *DeviceBreakdown) add(r *DeviceBreakdown) {
	s := capture.SatAdd
	t.Window = s(t.Window, r.Window)
	t.Dispatches = s(t.Dispatches, r.Dispatches)
	t.Queues += r.Queues
	t.Busy = Busy{s(t.Busy.Compute, r.Busy.Compute), s(t.Busy.Comm, r.Busy.Comm), s(t.Busy.Memcpy, r.Busy.Memcpy), s(t.Busy.Memset, r.Busy.Memset)}
	d, e := &t.MemcpyByDirection, r.MemcpyByDirection
	*d = Directions{s(d.HtoD, e.HtoD), s(d.DtoH, e.DtoH), s(d.DtoD, e.DtoD), s(d.PtoP, e.PtoP), s(d.Other, e.Other)}
	t.CommTotal = s(t.CommTotal, r.CommTotal)
	t.CommOverlapped = s(t.CommOverlapped, r.CommOverlapped)
	i, j := &t.Idle, r.Idle
	*i = Idle{s(i.HostWait, j.HostWait), s(i.LaunchLatency, j.LaunchLatency), s(i.OtherStream, j.OtherStream), s(i.Unrecorded, j.Unrecorded), s(i.Unexplained, j.Unexplained)}
	g, h := &t.IdleGaps, r.IdleGaps
	*g = IdleCounts{s(g.HostWait, h.HostWait), s(g.LaunchLatency, h.LaunchLatency), s(g.OtherStream, h.OtherStream), s(g.Unrecorded, h.Unrecorded), s(g.Unexplained, h.Unexplained)}
	t.HostWaitAfterSync = s(t.HostWaitAfterSync, r.HostWaitAfterSync)
	t.GraphBusy = s(t.GraphBusy, r.GraphBusy)
	t.NoLaunchNext = s(t.NoLaunchNext, r.NoLaunchNext)
	t.Launches = t.Launches || r.Launches
}

// launchMerge matches programs by name and unit, kernels by list, name and
// category within a program, as the merged tables do.
type launchMerge struct {
	progs       map[progKey]int
	kerns       map[kernKey]int
	unbracketed []bool // by merged program: some input's launched and was not bracketed
}

// add adds one input's program statistics to the merged ones; the
// program's own figures are summed from its kernels afterwards.
func (lm *launchMerge) add(m *Breakdown, pl *ProgramLaunch) {
	pk := progKey{pl.Program, pl.Unit}
	pi, ok := lm.progs[pk]
	if !ok {
		pi = len(m.Programs)
		lm.progs[pk] = pi
		m.Programs = append(m.Programs, ProgramLaunch{Program: pl.Program, Unit: pl.Unit})
		lm.unbracketed = append(lm.unbracketed, false)
	}
	mp := &m.Programs[pi]
	s := capture.SatAdd
	mp.HostLaunch = s(mp.HostLaunch, pl.HostLaunch)
	if pl.Launched > 0 && !pl.Bracketed {
		lm.unbracketed[pi] = true
	}
	for _, kl := range pl.Kernels {
		kk := kernKey{pi, kl.Kernel.List, kl.Kernel.Name, kl.Kernel.Category}
		ki, ok := lm.kerns[kk]
		if !ok {
			ki = len(mp.Kernels)
			lm.kerns[kk] = ki
			k := kl.Kernel
			k.Program = capture.ProgramID(pi)
			mp.Kernels = append(mp.Kernels, KernelLaunch{ID: capture.KernelID(ki), Kernel: k})
		}
		mk := &mp.Kernels[ki]
		mk.LaunchCounts.add(&kl.LaunchCounts)
		mk.LaunchTotal = s(mk.LaunchTotal, kl.LaunchTotal)
		if kl.Delay != nil {
			if mk.Delay == nil {
				mk.Delay = &DelayStats{}
			}
			mk.Delay.merge(kl.Delay)
		}
	}
}
