package analysis

import (
	"github.com/tallyprof/tally/capture"
)

// OpAggregator is a capture.Sink that accumulates device time per host-op
// signature (capture.Op) at both levels (innermost and outermost op), and
// per (op, kernel) pair: memory grows with signatures, kernels and the
// pairs of them that occur, never with dispatches. Dispatches under no op
// are kept at op 0, so that what was not attributed is a figure with its
// kernels, never folded into another row.
type OpAggregator struct {
	level [2]opLevel // inner, outer
	// noLaunch counts the dispatches whose launch call is not in the
	// trace (capture.LinkNoLaunch): they cannot lie under an op.
	noLaunch opAcc
}

type opLevel struct {
	ops   []opAcc           // indexed by capture.OpID; 0 = no op
	pairs map[uint64]*opAcc // op<<32 | kernel
	order []uint64          // pairs in first-seen order (stable output)
}

type opAcc struct {
	dispatches, timed, device int64
}

// NewOpAggregator returns an empty op aggregator.
func NewOpAggregator() *OpAggregator {
	a := &OpAggregator{}
	for i := range a.level {
		a.level[i].pairs = map[uint64]*opAcc{}
	}
	return a
}

// Dispatch adds one dispatch (or aggregated record) to both levels.
func (a *OpAggregator) Dispatch(_ *capture.Capture, d *capture.Dispatch) {
	n, dev, timed := int64(1), int64(0), false
	if ag := d.Aggregate; ag != nil {
		n = ag.Count
		dev, timed = ag.Device, ag.DeviceValid
	} else {
		dev, timed = d.Device.Duration()
	}
	if d.Link == capture.LinkNoLaunch {
		a.noLaunch.dispatches = capture.SatAdd(a.noLaunch.dispatches, n)
		if timed {
			a.noLaunch.timed = capture.SatAdd(a.noLaunch.timed, n)
			a.noLaunch.device = capture.SatAdd(a.noLaunch.device, dev)
		}
	}
	a.level[0].add(d.Op, d.Kernel, n, dev, timed)
	a.level[1].add(d.OuterOp, d.Kernel, n, dev, timed)
}

func (l *opLevel) add(op capture.OpID, k capture.KernelID, n, dev int64, timed bool) {
	if op < 0 {
		op = capture.NoOp // CheckDispatch keeps these out; never index with one
	}
	if int(op) >= len(l.ops) {
		grown := make([]opAcc, max(int(op)+1, 2*len(l.ops)))
		copy(grown, l.ops)
		l.ops = grown
	}
	key := uint64(uint32(op))<<32 | uint64(uint32(k))
	p := l.pairs[key]
	if p == nil {
		p = &opAcc{}
		l.pairs[key] = p
		l.order = append(l.order, key)
	}
	for _, s := range [2]*opAcc{&l.ops[op], p} {
		s.dispatches = capture.SatAdd(s.dispatches, n)
		if timed {
			s.timed = capture.SatAdd(s.timed, n)
			s.device = capture.SatAdd(s.device, dev)
		}
	}
}
