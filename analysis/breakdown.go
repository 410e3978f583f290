package analysis

// The time breakdown (issue 21): where each device's time went, and why the
// device waited. Per device, over its window (its first recorded start to
// its last recorded end), every nanosecond is busy with exactly one class
// (compute > comm > memcpy > memset) or idle for exactly one cause, so
// Window equals the sum of Busy and Idle to the nanosecond, by construction.
// The breakdown is a capture.Sink fed beside the Aggregator
// (NewBreakdownSink); Finish sweeps each device in time order. Files:
// breakdown_class.go (what a dispatch is), breakdown_records.go (the
// buffered, sorted and spilled records), breakdown_packed.go (records in
// order, packed), breakdown_sweep.go (the sweep and
// the idle causes), breakdown_launch.go (launch statistics),
// breakdown_merge.go (the merged view of many inputs).

// Defaults of the thresholds (BreakdownOptions).
const (
	// DefaultLaunchLatency is the longest launch-to-start wait called
	// launch_latency: HTA's consecutive_kernel_delay default.
	DefaultLaunchLatency = 30_000
	// DefaultUnrecordedWait is the shortest unexplained wait called
	// unrecorded: the Kineto reader's unrecorded_device_work default.
	DefaultUnrecordedWait = 1_000_000
	// DefaultShortKernel is the device time under which a dispatch counts
	// as a short kernel.
	DefaultShortKernel = 10_000
	// DefaultBreakdownRecords is how many dispatch records the breakdown
	// holds in memory (about 56 bytes each: 14 MiB) before it sorts them
	// and spills them to TMPDIR as one sorted run; records in order are
	// packed (about 10 bytes each) in the same 14 MiB.
	DefaultBreakdownRecords = 256 << 10
)

// BreakdownOptions are the thresholds of the breakdown and its memory
// budget. Zero values take the defaults.
type BreakdownOptions struct {
	// LaunchLatency (ns) is the longest wait, once the host's part is
	// taken out, that counts as launch_latency (--launch-latency).
	LaunchLatency int64
	// UnrecordedWait (ns) is the shortest such wait that counts as
	// unrecorded device work (--unrecorded-wait).
	UnrecordedWait int64
	// ShortKernel (ns): dispatches shorter than this are short kernels
	// (--short-kernel).
	ShortKernel int64
	// Records is how many records are held in memory before a sorted run
	// is spilled (0: DefaultBreakdownRecords); records in order are packed
	// in as many bytes (Records × 56), 5 times as many on hrx's traces.
	Records int
	// SpillLimit bounds the bytes the spilled runs may take in TempDir (0:
	// no limit); SpillHint says how to raise it, for the error.
	SpillLimit int64
	SpillHint  string
	// TempDir holds the spill file ("" is the system's TMPDIR).
	TempDir string
}

func (o BreakdownOptions) withDefaults() BreakdownOptions {
	if o.LaunchLatency <= 0 {
		o.LaunchLatency = DefaultLaunchLatency
	}
	if o.UnrecordedWait <= 0 {
		o.UnrecordedWait = DefaultUnrecordedWait
	}
	if o.ShortKernel <= 0 {
		o.ShortKernel = DefaultShortKernel
	}
	if o.Records <= 0 {
		o.Records = DefaultBreakdownRecords
	}
	return o
}

// Breakdown is the time breakdown of one capture (or the merged view of a
// run): one row per device, and launch statistics per program.
type Breakdown struct {
	// Options are the thresholds used (defaults filled in).
	Options BreakdownOptions
	Devices []DeviceBreakdown
	// Total is the sum over Devices, for the merged view of many inputs
	// (nil for one input): its window is the sum of the devices' windows,
	// not a span of time.
	Total *DeviceBreakdown
	// Programs are the launch statistics, in the capture's program order.
	Programs []ProgramLaunch
	// Untimed counts dispatches without a device interval and Aggregated
	// those known only from aggregated records: in no window (they have no
	// single times).
	Untimed, Aggregated int64
	// SyncRecorded is set when any dispatch carries a host sync call
	// (capture.Dispatch.HostSync): HostWaitAfterSync is then a measure,
	// else unknown.
	SyncRecorded bool
	// Spilled is the bytes of sorted runs written to TMPDIR (0 when the
	// records fit the memory budget); Runs how many runs were merged.
	Spilled int64
	Runs    int
	// InMemory is set when the records outgrew the memory budget and no
	// spill file could be made in TMPDIR: they were all held in memory
	// (InMemoryReason), as the Kineto reader's dispatch log does.
	InMemory bool
	// Err is why the breakdown could not be made (its spill failed); the
	// report states it in place of the figures.
	Err error
}

// DeviceBreakdown is one device's window, split exactly:
// Window == Busy.Sum() + Idle.Sum().
type DeviceBreakdown struct {
	// Input is the index of the input the row comes from (merged view;
	// 0 for one input).
	Input int
	// Rank is the distributed rank, when known (HasRank).
	Rank    string
	HasRank bool
	// Device names the device as the input does ("GPU 0"); "(no device)"
	// when its queues record none.
	Device string
	// Unit and Clock are the unit ("ns", "ticks") and clock domain of the
	// device's times; a device whose programs are on two clocks is two
	// rows.
	Unit, Clock string
	// Begin and End bound the window: the first start and last end of the
	// device's recorded dispatches (not the profiler's window).
	Begin, End int64
	Window     int64
	Dispatches int64
	Queues     int

	Busy Busy
	// MemcpyByDirection splits Busy.Memcpy by the direction the kernel
	// names say (HtoD, DtoH, DtoD, PtoP, other), the same exclusive time.
	MemcpyByDirection Directions
	// CommTotal is all communication time (the union of comm dispatches,
	// whatever else ran); CommOverlapped the part when compute ran too
	// (hidden). Exposed communication is CommTotal − CommOverlapped.
	CommTotal, CommOverlapped int64

	Idle Idle
	// IdleGaps counts the idle gaps by cause (a gap's host part and rest
	// may fall under two causes).
	IdleGaps IdleCounts
	// HostWaitAfterSync is the part of Idle.HostWait whose next activity's
	// launch followed a host sync call that ended after the device went
	// idle; meaningful only when Breakdown.SyncRecorded.
	HostWaitAfterSync int64
	// GraphBusy is the busy time of dispatches replayed by graph launches
	// (their gaps are never host_wait).
	GraphBusy int64
	// Launches says whether any of the device's dispatches has a launch
	// interval; without one every idle gap is unexplained (NoLaunchReason).
	Launches bool
	// Bracketed is set when every launched dispatch starts exactly where
	// its launch call ended: the format times the device from the host
	// (hrx serial mode), so busy is an upper bound and idle a lower one.
	Bracketed bool
	// NoLaunchNext counts the gaps whose next activity has no launch call
	// in the trace (their whole length is unexplained).
	NoLaunchNext int64
	// Reasons say what the figures cannot tell, one sentence each.
	Reasons []string
}

// Busy is device time by class, exclusively: a moment when several
// classes ran counts for the first of compute, comm, memcpy, memset.
type Busy struct {
	Compute, Comm, Memcpy, Memset int64
}

// Sum is all busy time.
func (b Busy) Sum() int64 { return b.Compute + b.Comm + b.Memcpy + b.Memset }

// Directions splits memcpy time by direction.
type Directions struct {
	HtoD, DtoH, DtoD, PtoP, Other int64
}

// Idle is the device's idle time by cause (see breakdown_sweep.go for the
// rules).
type Idle struct {
	HostWait, LaunchLatency, OtherStream, Unrecorded, Unexplained int64
}

// Sum is all idle time.
func (i Idle) Sum() int64 {
	return i.HostWait + i.LaunchLatency + i.OtherStream + i.Unrecorded + i.Unexplained
}

// IdleCounts counts idle gaps by cause.
type IdleCounts struct {
	HostWait, LaunchLatency, OtherStream, Unrecorded, Unexplained int64
}

// InMemoryReason says that the breakdown's records were held in memory.
const InMemoryReason = "no spill file could be made in TMPDIR, so the breakdown held every record in memory (up to 56 bytes per dispatch, about 10 while they arrive in start order): set TMPDIR to a writable disk"

// NoLaunchReason is the reason a device without launch records gives.
const NoLaunchReason = "cause unknown: the format records no launch calls, so every idle gap is unexplained"

// BracketedReason is the reason of a device whose dispatches all start at
// their launch call's end (hrx serial mode).
const BracketedReason = "serial timing: each device time runs from its launch call's return to the sync after it, " +
	"so busy is an upper bound and idle a lower bound; between commands the device waits on the host (host_wait)"
