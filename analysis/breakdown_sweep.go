package analysis

// The sweep of one device: its dispatches in start order. For each class
// it keeps only how far the dispatches started so far reach (cov): a class
// is active at the sweep's position exactly when that reach is beyond it,
// so the state is a few integers per device, whatever the overlap.
//
// Each elementary segment between two event points is busy with the
// highest-priority active class, or idle. An idle gap [g0, g1) is
// classified by the next activity N (the dispatch that starts at g1; of
// several, the one whose launch call ended first):
//
//  1. the device's dispatches carry no launch interval at all: the gap is
//     unexplained (NoLaunchReason);
//  2. N has no launch interval (its call is not in the trace): unexplained;
//  3. N's launch call ended at L: the host part, clamp(L − g0, 0, g1 − g0),
//     is host_wait — except when N is a graph replay and an earlier kernel
//     of the same graph launch (the same launch interval) already ran on
//     the device: kernels behind one graph launch have no call of their
//     own, so their host part is 0. Of host_wait, the part whose N followed
//     a host sync call that ended after g0 is HostWaitAfterSync. The rest r:
//     a. r ≥ UnrecordedWait: unrecorded (device work the trace does not
//     hold, as Kineto's unrecorded_device_work finds it);
//     b. the dispatch that ended the busy time at g0 ran on another queue
//     than N, and N's launch ended before g0 (N was queued while that
//     stream ran): other_stream — N waited on the other stream's work;
//     c. r ≤ LaunchLatency: launch_latency;
//     d. else unexplained.
//
// Thresholds are in ns: on a device timed in ticks the rest r is
// unexplained.

// graphRing is how many recent graph launches a device remembers to tell a
// replay's first kernel from the others.
const graphRing = 16

type graphSeen struct {
	lBegin, lEnd int64
	first        int64 // start of the launch's first kernel on this device
	used         bool
}

// next is the candidate next activity of an idle gap.
type next struct {
	has          bool
	launch       bool
	graph        bool
	sync         bool
	lBegin, lEnd int64
	syncEnd      int64
	queue        int32
}

type pendingIdle struct {
	has       bool
	g0, g1    int64
	prevQueue int32 // queue of the dispatch that ended the busy time at g0
	n         next
}

type sweeper struct {
	row      *DeviceBreakdown
	opt      *BreakdownOptions
	ns       bool
	launches bool // the device has launch intervals (rule 1)

	started   bool
	pos       int64
	cov       [numClasses]int64
	graphCov  int64
	maxEnd    int64
	lastQueue int32
	pend      pendingIdle
	graphs    [graphRing]graphSeen
	gi        int

	busy [numClasses]int64
}

func (s *sweeper) add(r *bdRec, c class) {
	if !s.started {
		s.started = true
		s.row.Begin, s.pos, s.maxEnd, s.lastQueue = r.start, r.start, r.start, r.queue
		for i := range s.cov {
			s.cov[i] = r.start
		}
		s.graphCov = r.start
	}
	if r.start > s.pos {
		s.classify()
		s.advance(r.start)
	}
	if s.pend.has && s.pend.g1 == r.start {
		s.pend.offer(r)
	}
	s.row.Dispatches++
	s.cov[c] = max(s.cov[c], r.end)
	if r.flags&fGraph != 0 {
		s.graphCov = max(s.graphCov, r.end)
		if r.flags&fLaunch != 0 {
			s.rememberGraph(r)
		}
	}
	if r.end >= s.maxEnd {
		s.maxEnd, s.lastQueue = r.end, r.queue
	}
}

// offer makes r the gap's next activity if its launch ended first.
func (p *pendingIdle) offer(r *bdRec) {
	launch := r.flags&fLaunch != 0
	if p.n.has && (!launch || p.n.launch && p.n.lEnd <= r.lEnd) {
		return
	}
	p.n = next{has: true, launch: launch, graph: r.flags&fGraph != 0, sync: r.flags&fSync != 0,
		lBegin: r.lBegin, lEnd: r.lEnd, syncEnd: r.syncEnd, queue: r.queue}
}

// advance moves the position to t, splitting what lies between by class.
func (s *sweeper) advance(t int64) {
	for s.pos < t {
		if s.maxEnd <= s.pos {
			// Nothing reaches past pos (maxEnd bounds every cov): idle
			// until t, as the loop below would find in 8 steps.
			s.pend = pendingIdle{has: true, g0: s.pos, g1: t, prevQueue: s.lastQueue}
			s.pos = t
			return
		}
		b := t
		active := -1
		for c := range s.cov {
			if e := s.cov[c]; e > s.pos {
				if active < 0 {
					active = c
				}
				b = min(b, e)
			}
		}
		if s.graphCov > s.pos {
			b = min(b, s.graphCov)
		}
		seg := b - s.pos
		if active < 0 {
			// Nothing runs until t: an idle gap, classified once every
			// dispatch starting at t is seen.
			s.pend = pendingIdle{has: true, g0: s.pos, g1: t, prevQueue: s.lastQueue}
		} else {
			s.busy[active] += seg
			if s.cov[clsComm] > s.pos {
				s.row.CommTotal += seg
				if s.cov[clsCompute] > s.pos {
					s.row.CommOverlapped += seg
				}
			}
			if s.graphCov > s.pos {
				s.row.GraphBusy += seg
			}
		}
		s.pos = b
	}
}

// classify splits the pending idle gap by cause (the rules above).
func (s *sweeper) classify() {
	p := &s.pend
	if !p.has {
		return
	}
	p.has = false
	gap := p.g1 - p.g0
	id, n := &s.row.Idle, &s.row.IdleGaps
	switch {
	case !s.launches:
		id.Unexplained += gap
		n.Unexplained++
		return
	case !p.n.launch:
		id.Unexplained += gap
		n.Unexplained++
		s.row.NoLaunchNext++
		return
	}
	host := min(max(p.n.lEnd-p.g0, 0), gap)
	if p.n.graph && s.graphRan(p.n.lBegin, p.n.lEnd, p.g1) {
		host = 0
	}
	if host > 0 {
		id.HostWait += host
		n.HostWait++
		if p.n.sync && p.n.syncEnd > p.g0 {
			s.row.HostWaitAfterSync += host
		}
	}
	rest := gap - host
	if rest <= 0 {
		return
	}
	switch {
	case !s.ns:
		id.Unexplained += rest
		n.Unexplained++
	case rest >= s.opt.UnrecordedWait:
		id.Unrecorded += rest
		n.Unrecorded++
	case p.prevQueue != p.n.queue && p.n.lEnd < p.g0:
		id.OtherStream += rest
		n.OtherStream++
	case rest <= s.opt.LaunchLatency:
		id.LaunchLatency += rest
		n.LaunchLatency++
	default:
		id.Unexplained += rest
		n.Unexplained++
	}
}

// rememberGraph notes the graph launch of r with the start of its first
// kernel on this device.
func (s *sweeper) rememberGraph(r *bdRec) {
	for i := range s.graphs {
		g := &s.graphs[i]
		if g.used && g.lBegin == r.lBegin && g.lEnd == r.lEnd {
			return
		}
	}
	s.graphs[s.gi] = graphSeen{lBegin: r.lBegin, lEnd: r.lEnd, first: r.start, used: true}
	s.gi = (s.gi + 1) % graphRing
}

// graphRan reports whether a kernel of the graph launch [lb, le] started
// on this device before t.
func (s *sweeper) graphRan(lb, le, t int64) bool {
	for i := range s.graphs {
		g := &s.graphs[i]
		if g.used && g.lBegin == lb && g.lEnd == le && g.first < t {
			return true
		}
	}
	return false
}

// finish closes the window at the last end and fills the row.
func (s *sweeper) finish() {
	if !s.started {
		return
	}
	s.classify()
	s.advance(s.maxEnd)
	r := s.row
	r.End = s.maxEnd
	r.Window = r.End - r.Begin
	r.Busy = Busy{Compute: s.busy[clsCompute], Comm: s.busy[clsComm], Memset: s.busy[clsMemset]}
	r.MemcpyByDirection = Directions{HtoD: s.busy[clsMemcpyHtoD], DtoH: s.busy[clsMemcpyDtoH], DtoD: s.busy[clsMemcpyDtoD],
		PtoP: s.busy[clsMemcpyPtoP], Other: s.busy[clsMemcpyOther]}
	d := r.MemcpyByDirection
	r.Busy.Memcpy = d.HtoD + d.DtoH + d.DtoD + d.PtoP + d.Other
}
