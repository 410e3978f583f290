package analysis

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// BreakdownSink is a capture.Sink that gathers what the time breakdown
// needs: a compact record per timed dispatch (breakdown_records.go), the
// launch statistics per kernel, and per queue whether it has launch
// intervals. Finish makes the Breakdown once the capture is read.
type BreakdownSink struct {
	opt    BreakdownOptions
	recs   *records
	launch launchStats
	queues []queueSeen // by QueueID+1 (NoQueue first)

	untimed, aggregated int64
	sync                bool
}

// queueSeen is what the sweep needs to know of a queue before it starts.
type queueSeen struct {
	dispatches int64
	launched   bool // some dispatch has a launch interval
	unbracket  bool // some launched dispatch starts elsewhere than its launch's end
}

// NewBreakdownSink returns an empty breakdown sink.
func NewBreakdownSink(opt BreakdownOptions) *BreakdownSink {
	opt = opt.withDefaults()
	return &BreakdownSink{opt: opt, recs: newRecords(opt), launch: launchStats{short: opt.ShortKernel}}
}

// Dispatch adds one dispatch.
func (s *BreakdownSink) Dispatch(_ *capture.Capture, d *capture.Dispatch) {
	if ag := d.Aggregate; ag != nil {
		s.aggregated = capture.SatAdd(s.aggregated, ag.Count)
		return
	}
	s.launch.add(d)
	if !d.Device.Valid {
		s.untimed++
		return
	}
	qi := int(d.Queue) + 1
	if qi < 0 {
		qi = 0
	}
	s.queues = grow(s.queues, qi)
	q := &s.queues[qi]
	q.dispatches++
	r := bdRec{start: d.Device.Begin, end: d.Device.End, queue: int32(d.Queue), kernel: int32(d.Kernel)}
	if d.Launch.Valid {
		r.flags |= fLaunch
		r.lBegin, r.lEnd = d.Launch.Begin, d.Launch.End
		q.launched = true
		if d.Device.Begin != d.Launch.End {
			q.unbracket = true
		}
	}
	if d.Link == capture.LinkGraph {
		r.flags |= fGraph
	}
	if d.HostSync.Valid {
		r.flags |= fSync
		r.syncEnd = d.HostSync.End
		s.sync = true
	}
	s.recs.add(&r)
}

// devKey names a device row: rank, device and clock.
type devKey struct {
	place
	domain, unit string
}

// place is where a queue's dispatches ran: its rank and device.
type place struct {
	rank, device string
	hasRank      bool
}

// devFacts are what the sweep of a device must know before it starts,
// gathered over the device's queues.
type devFacts struct {
	launched, unbracket bool
	queues              int
}

// Finish sweeps every device of c and returns the breakdown; it releases
// the spill file. Call it once, after the read.
func (s *BreakdownSink) Finish(c *capture.Capture) *Breakdown {
	defer s.recs.close()
	b := &Breakdown{Options: s.opt, Untimed: s.untimed, Aggregated: s.aggregated, SyncRecorded: s.sync, InMemory: s.recs.inMemory}
	b.Programs = s.launch.finish(c)
	if s.recs.err != nil {
		b.Err = s.recs.err
		return b
	}
	d := newDevices(c, s.queues, &b.Options)
	if rs := s.recs; rs.ordered && len(rs.runs) == 0 {
		// Every record in order and packed (the common case): straight
		// from the packed bytes.
		u := rs.pk.reader()
		var r bdRec
		for u.next(&r) {
			d.visit(&r)
		}
	} else {
		m, err := s.recs.merger(true)
		if err != nil {
			b.Err = err
			return b
		}
		for r, ok := m.next(); ok; r, ok = m.next() {
			d.visit(r)
		}
		if m.err != nil {
			b.Err = m.err
			return b
		}
	}
	if len(s.recs.runs) > 0 {
		b.Spilled, b.Runs = s.recs.spilled, len(s.recs.runs)+1
	}
	for _, sw := range d.sweeps {
		sw.finish()
		b.Devices = append(b.Devices, *sw.row)
	}
	finishRows(b.Devices)
	return b
}

// devices routes records to their device's sweep, making rows as they
// are first met.
type devices struct {
	opt    *BreakdownOptions
	kinfo  []kernInfo
	clocks []capture.Clock
	places []place // by queue slot
	facts  map[place]*devFacts
	rows   map[devKey]int
	sweeps []*sweeper
	cache  [][]int // row of (queue slot, clock); -1 when not made yet
}

// kernInfo is a kernel's class and its program's clock (an index).
type kernInfo struct {
	cls   class
	clock int
}

func newDevices(c *capture.Capture, queues []queueSeen, opt *BreakdownOptions) *devices {
	d := &devices{opt: opt, kinfo: make([]kernInfo, len(c.Kernels)), places: make([]place, len(queues)),
		facts: map[place]*devFacts{}, rows: map[devKey]int{}, cache: make([][]int, len(queues))}
	clocks := map[capture.Clock]int{}
	for k := range c.Kernels {
		kern := &c.Kernels[k]
		ck := c.ProgramClock(kern.Program)
		ck.Description = ""
		id, ok := clocks[ck]
		if !ok {
			id = len(d.clocks)
			clocks[ck] = id
			d.clocks = append(d.clocks, ck)
		}
		d.kinfo[k] = kernInfo{cls: classOf(kern), clock: id}
	}
	for qi, qs := range queues {
		q := capture.QueueID(qi - 1)
		pl := place{device: "(no device)", rank: c.QueueRank(q)}
		pl.hasRank = pl.rank != ""
		if q >= 0 && int(q) < len(c.Queues) && c.Queues[q].Device != "" {
			pl.device = c.Queues[q].Device
		}
		d.places[qi] = pl
		if qs.dispatches == 0 {
			continue
		}
		f := d.facts[pl]
		if f == nil {
			f = &devFacts{}
			d.facts[pl] = f
		}
		f.queues++
		f.launched = f.launched || qs.launched
		f.unbracket = f.unbracket || qs.unbracket
	}
	return d
}

// row is the sweep of queue slot qi's dispatches on clock ck.
func (d *devices) row(qi, ck int) *sweeper {
	cq := d.cache[qi]
	if ck < len(cq) && cq[ck] >= 0 {
		return d.sweeps[cq[ck]]
	}
	pl, clock := d.places[qi], d.clocks[ck]
	key := devKey{place: pl, domain: clock.Domain, unit: clock.Unit}
	i, ok := d.rows[key]
	if !ok {
		i = len(d.sweeps)
		d.rows[key] = i
		sw := &sweeper{row: &DeviceBreakdown{Rank: pl.rank, HasRank: pl.hasRank, Device: pl.device, Unit: clock.Unit, Clock: clock.Domain},
			opt: d.opt, ns: clock.Unit == "ns"}
		if f := d.facts[pl]; f != nil {
			sw.launches = f.launched
			sw.row.Launches = f.launched
			sw.row.Bracketed = f.launched && !f.unbracket
			sw.row.Queues = f.queues
		}
		d.sweeps = append(d.sweeps, sw)
	}
	for len(d.cache[qi]) <= ck {
		d.cache[qi] = append(d.cache[qi], -1)
	}
	d.cache[qi][ck] = i
	return d.sweeps[i]
}

func (d *devices) visit(r *bdRec) {
	k, qi := int(r.kernel), int(r.queue)+1
	if k < 0 || k >= len(d.kinfo) || qi < 0 || qi >= len(d.places) {
		return
	}
	ki := d.kinfo[k]
	d.row(qi, ki.clock).add(r, ki.cls)
}

// finishRows orders the rows (rank, device, clock) and states each one's
// reasons.
func finishRows(rows []DeviceBreakdown) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := &rows[i], &rows[j]
		if a.Rank != b.Rank {
			return rankLess(a.Rank, b.Rank)
		}
		if a.Device != b.Device {
			return a.Device < b.Device
		}
		if a.Unit != b.Unit {
			return a.Unit < b.Unit
		}
		return a.Clock < b.Clock
	})
	clocks := map[place]int{}
	for _, r := range rows {
		clocks[place{r.Rank, r.Device, r.HasRank}]++
	}
	for i := range rows {
		r := &rows[i]
		switch {
		case !r.Launches:
			r.Reasons = append(r.Reasons, NoLaunchReason)
		case r.Bracketed:
			r.Reasons = append(r.Reasons, BracketedReason)
		}
		if r.NoLaunchNext > 0 {
			r.Reasons = append(r.Reasons, fmt.Sprintf("%s ended at a dispatch whose launch call is not in the trace: unexplained",
				units.Plural(r.NoLaunchNext, "idle gap", "idle gaps")))
		}
		if r.Launches && r.Unit != "ns" {
			r.Reasons = append(r.Reasons, "the thresholds are in ns and this device is timed in "+r.Unit+": idle beyond the host's part is unexplained")
		}
		if n := clocks[place{r.Rank, r.Device, r.HasRank}]; n > 1 {
			r.Reasons = append(r.Reasons, fmt.Sprintf("this device's programs are on %d clocks, which cannot be swept as one: one row per clock", n))
		}
	}
}

// rankLess orders ranks numerically when both are numbers.
func rankLess(a, b string) bool {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return x < y
	}
	return a < b
}
