package capture

import "math"

// Dispatch is one completed kernel (or copy, or fill) execution. Times are in
// the unit of its program's clock. A dispatch that was launched and never
// finished is not a Dispatch: it is an unfinished_dispatch gap item.
type Dispatch struct {
	Program ProgramID
	Queue   QueueID
	Kernel  KernelID

	// Instance is the program run this dispatch belongs to (0-based), or -1.
	Instance int64
	// List, Index and Ordinal place the dispatch inside its program where
	// the format says so (hrx: list "init"/"main", index in list, ordinal
	// in the compiled program); -1 when unknown.
	List    string
	Index   int64
	Ordinal int64

	// Launch is the host-side enqueue interval, when recorded.
	Launch Interval
	// Device is the execution interval: the kernel's start and end, or an
	// upper bound of it when the format can only bracket it (hrx serial).
	Device Interval

	// Link says how the dispatch was tied to its launch.
	Link Link

	// HostSync is the host synchronise call (cudaDeviceSynchronize,
	// cudaStreamSynchronize, hipEventSynchronize, …) on the launching
	// thread that ended most recently before the launch call began, when
	// it ended after that thread's previous launch call: the launch
	// followed it. Invalid when there is none, or when the format records
	// no sync calls (all but Kineto). The time breakdown states how much
	// of the host's lateness followed a sync (analysis.Breakdown).
	HostSync Interval

	// Op is the innermost host op whose call encloses the dispatch's launch
	// (Capture.Op), OuterOp the outermost one; NoOp when the launch lies
	// under no op or the format records none (Capture.OpSource). A graph
	// replay's kernels take the op around their graph launch.
	Op, OuterOp OpID

	// Key identifies the input record the dispatch came from, where the
	// format's records carry identity; a repeat is a duplicate_event gap
	// (see Checked).
	Key RecordKey

	// Aggregate, when non-nil, makes this record stand for Aggregate.Count
	// dispatches of one kernel that the input reports only as sums (a
	// windowed profiler's per-family rows). Launch and Device are then
	// invalid: per-dispatch times, min and max are unknown, never invented.
	Aggregate *Aggregate

	// Collective, when non-nil, says the dispatch is a collective's
	// communication kernel and what the input knows of it (identity and
	// size); nil for every other dispatch.
	Collective *Collective
}

// Aggregate is what an aggregated record knows: how many dispatches, and
// the sums of their times when printed.
type Aggregate struct {
	Count int64
	// Device is the summed device (execution) time; DeviceValid false when
	// the input gives none.
	Device      int64
	DeviceValid bool
	// Launch is the summed host-side launch time, when given.
	Launch      int64
	LaunchValid bool
}

// Count is how many dispatches d stands for: 1 for a single dispatch,
// Aggregate.Count for an aggregated record.
func (d *Dispatch) Count() int64 {
	if d.Aggregate != nil {
		return d.Aggregate.Count
	}
	return 1
}

// Interval is a [Begin, End] pair on the program's clock. Valid is false when
// the input does not carry the times (untimed input), so a missing duration is
// never mistaken for zero.
type Interval struct {
	Begin, End int64
	Valid      bool
}

// Duration returns End-Begin and whether it is known.
func (i Interval) Duration() (int64, bool) {
	if !i.Valid {
		return 0, false
	}
	d := i.End - i.Begin
	if d < 0 && i.End >= i.Begin {
		// Wrapped: the ends are more than 2^63 apart (garbage times).
		// Saturate rather than turn a forward interval negative.
		d = math.MaxInt64
	}
	return d, true
}

// Link states how a dispatch relates to the host call that launched it.
type Link uint8

const (
	// LinkNone: the format has no launch records (hrx, IREE).
	LinkNone Link = iota
	// LinkLaunched: matched with its launch call.
	LinkLaunched
	// LinkNoLaunch: the format has launch records but none matched.
	LinkNoLaunch
	// LinkGraph: replayed by a graph launch; per-op attribution unavailable.
	LinkGraph
)

func (l Link) String() string {
	switch l {
	case LinkLaunched:
		return "launched"
	case LinkNoLaunch:
		return "no-launch"
	case LinkGraph:
		return "graph"
	}
	return "none"
}

// Sink receives dispatches as a reader produces them. The *Dispatch is only
// valid during the call: readers reuse it, so a Sink that keeps dispatches
// copies the value.
type Sink interface {
	Dispatch(c *Capture, d *Dispatch)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(c *Capture, d *Dispatch)

// Dispatch calls f.
func (f SinkFunc) Dispatch(c *Capture, d *Dispatch) { f(c, d) }

// Discard is a Sink that drops every dispatch (e.g. for `tally inspect`).
var Discard Sink = SinkFunc(func(*Capture, *Dispatch) {})

// Collect is a Sink that keeps every dispatch in memory, in order. It is
// O(dispatches): use it for timelines and tests, not for aggregation.
type Collect struct {
	Dispatches []Dispatch
}

// Dispatch appends a copy of d (and of its collective, which the reader
// reuses).
func (s *Collect) Dispatch(_ *Capture, d *Dispatch) {
	s.Dispatches = append(s.Dispatches, *d)
	if d.Collective != nil {
		c := *d.Collective
		s.Dispatches[len(s.Dispatches)-1].Collective = &c
	}
}

// Tee sends every dispatch to each sink in turn.
type Tee []Sink

// Dispatch forwards d.
func (t Tee) Dispatch(c *Capture, d *Dispatch) {
	for _, s := range t {
		s.Dispatch(c, d)
	}
}
