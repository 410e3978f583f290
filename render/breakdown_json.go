package render

import (
	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// The breakdown in the JSON report (docs/report-json.md, "breakdown"): one
// object per device with window_ns == sum(busy_ns) + sum(idle_ns) exactly,
// and the launch statistics per program and kernel. Times are in the
// device's unit (unit: "ns", or "ticks" for a device timed in ticks; the
// *_ns names stay).

// JSONBreakdown is the "breakdown" object.
type JSONBreakdown struct {
	LaunchLatencyNS  int64 `json:"launch_latency_ns"`
	UnrecordedWaitNS int64 `json:"unrecorded_wait_ns"`
	ShortKernelNS    int64 `json:"short_kernel_ns"`
	// Error is why the breakdown could not be made (its spill failed);
	// devices is then empty.
	Error   string                `json:"error,omitempty"`
	Devices []JSONDeviceBreakdown `json:"devices"`
	// Total sums the devices of many inputs (its window is the sum of
	// theirs); absent for one input.
	Total    *JSONDeviceBreakdown `json:"total,omitempty"`
	Programs []JSONProgramLaunch  `json:"programs"`
	// UntimedDispatches and AggregatedDispatches are in no window.
	UntimedDispatches    int64 `json:"untimed_dispatches"`
	AggregatedDispatches int64 `json:"aggregated_dispatches"`
	// SyncRecorded: some launch followed a recorded host sync call, so
	// host_wait_after_sync_ns is a measure (else null).
	SyncRecorded bool  `json:"sync_recorded"`
	SpilledBytes int64 `json:"spilled_bytes"`
	// InMemory: no spill file could be made, so every record was held in
	// memory (a note; the figures are whole).
	InMemory bool `json:"in_memory,omitempty"`
	// CaptureGaps are the kinds of the capture's gaps: the breakdown holds
	// only the recorded dispatches (see accounting).
	CaptureGaps []capture.Kind `json:"capture_gaps"`
}

// JSONDeviceBreakdown is one device's row.
type JSONDeviceBreakdown struct {
	Input      *int    `json:"input,omitempty"`
	Rank       *string `json:"rank"`
	Device     string  `json:"device"`
	Unit       string  `json:"unit"`
	Clock      string  `json:"clock,omitempty"`
	BeginNS    *int64  `json:"begin_ns,omitempty"`
	EndNS      *int64  `json:"end_ns,omitempty"`
	WindowNS   int64   `json:"window_ns"`
	Dispatches int64   `json:"dispatches"`
	Queues     int     `json:"queues"`

	BusyNS            JSONBusy       `json:"busy_ns"`
	MemcpyByDirection JSONDirections `json:"memcpy_by_direction"`
	CommTotalNS       int64          `json:"comm_total_ns"`
	CommOverlappedNS  int64          `json:"comm_overlapped_ns"`
	CommExposedNS     int64          `json:"comm_exposed_ns"`
	IdleNS            JSONIdle       `json:"idle_ns"`
	IdleGaps          JSONIdle       `json:"idle_gaps"`
	// HostWaitAfterSyncNS is null when no sync call is recorded.
	HostWaitAfterSyncNS *int64   `json:"host_wait_after_sync_ns"`
	GraphBusyNS         int64    `json:"graph_busy_ns"`
	LaunchRecords       bool     `json:"launch_records"`
	Bracketed           bool     `json:"bracketed"`
	NoLaunchNextGaps    int64    `json:"no_launch_next_gaps"`
	Reasons             []string `json:"reasons"`
}

// JSONBusy is busy time by class (exclusive, priority in this order).
type JSONBusy struct {
	Compute int64 `json:"compute"`
	Comm    int64 `json:"comm"`
	Memcpy  int64 `json:"memcpy"`
	Memset  int64 `json:"memset"`
}

// JSONDirections splits busy memcpy time by direction.
type JSONDirections struct {
	HtoD  int64 `json:"htod"`
	DtoH  int64 `json:"dtoh"`
	DtoD  int64 `json:"dtod"`
	PtoP  int64 `json:"ptop"`
	Other int64 `json:"other"`
}

// JSONIdle is idle time (or gaps) by cause.
type JSONIdle struct {
	HostWait      int64 `json:"host_wait"`
	LaunchLatency int64 `json:"launch_latency"`
	OtherStream   int64 `json:"other_stream"`
	Unrecorded    int64 `json:"unrecorded"`
	Unexplained   int64 `json:"unexplained"`
}

// JSONProgramLaunch is a program's launch statistics.
type JSONProgramLaunch struct {
	Program         string `json:"program"`
	Unit            string `json:"unit"`
	Dispatches      int64  `json:"dispatches"`
	TimedDispatches int64  `json:"timed_dispatches"`
	Launched        int64  `json:"launched"`
	DeviceNS        int64  `json:"device_ns"`
	// HostLaunchNS is the time in launch calls, each graph launch once.
	HostLaunchNS int64 `json:"host_launch_ns"`
	LaunchBound  bool  `json:"launch_bound"`
	// Bracketed: the delay is zero by construction (hrx serial), not
	// measured; delay is then null.
	Bracketed            bool               `json:"bracketed"`
	Delay                *JSONDelay         `json:"delay"`
	ShortDispatches      int64              `json:"short_dispatches"`
	ShortNS              int64              `json:"short_ns"`
	ShortShareDispatches float64            `json:"short_share_dispatches"`
	ShortShareTime       float64            `json:"short_share_time"`
	Kernels              []JSONKernelLaunch `json:"kernels"`
}

// JSONKernelLaunch is a kernel's launch statistics.
type JSONKernelLaunch struct {
	Name            string     `json:"name"`
	List            string     `json:"list,omitempty"`
	Category        string     `json:"category"`
	Dispatches      int64      `json:"dispatches"`
	TimedDispatches int64      `json:"timed_dispatches"`
	Launched        int64      `json:"launched"`
	DeviceNS        int64      `json:"device_ns"`
	LaunchTotalNS   int64      `json:"launch_total_ns"`
	Delay           *JSONDelay `json:"delay"`
	ShortDispatches int64      `json:"short_dispatches"`
	ShortNS         int64      `json:"short_ns"`
}

// JSONDelay summarises launch-to-start delays (device start − launch call
// end, ns): mean, min and max exact, p50 and p99 within 0.8%.
type JSONDelay struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean_ns"`
	P50   int64   `json:"p50_ns"`
	P99   int64   `json:"p99_ns"`
	Min   int64   `json:"min_ns"`
	Max   int64   `json:"max_ns"`
	// Graph counts the delays measured from a graph launch call.
	Graph int64 `json:"from_graph_launch"`
}

// BuildBreakdown converts b for the JSON report of capture c (whose gaps
// it names); nil when b is.
func BuildBreakdown(c *capture.Capture, b *analysis.Breakdown) *JSONBreakdown {
	if b == nil {
		return nil
	}
	o := b.Options
	j := &JSONBreakdown{LaunchLatencyNS: o.LaunchLatency, UnrecordedWaitNS: o.UnrecordedWait, ShortKernelNS: o.ShortKernel,
		Devices: []JSONDeviceBreakdown{}, Programs: []JSONProgramLaunch{}, UntimedDispatches: b.Untimed,
		AggregatedDispatches: b.Aggregated, SyncRecorded: b.SyncRecorded, SpilledBytes: b.Spilled, InMemory: b.InMemory,
		CaptureGaps: []capture.Kind{}}
	if b.Err != nil {
		j.Error = b.Err.Error()
	}
	if c != nil {
		j.CaptureGaps = GapKinds(c)
	}
	for i := range b.Devices {
		j.Devices = append(j.Devices, jsonDevice(&b.Devices[i], b.SyncRecorded, b.Total != nil))
	}
	if b.Total != nil {
		t := jsonDevice(b.Total, b.SyncRecorded, false)
		t.Rank = nil
		j.Total = &t
	}
	for i := range b.Programs {
		j.Programs = append(j.Programs, jsonLaunch(&b.Programs[i]))
	}
	return j
}

// GapKinds are the kinds of c's gaps (not notes) that have occurrences.
func GapKinds(c *capture.Capture) []capture.Kind {
	out := []capture.Kind{}
	for _, g := range c.Accounting.Gaps {
		if !g.Note && g.Count > 0 {
			out = append(out, g.Kind)
		}
	}
	return out
}

func jsonDevice(r *analysis.DeviceBreakdown, sync, many bool) JSONDeviceBreakdown {
	j := JSONDeviceBreakdown{Device: r.Device, Unit: r.Unit, Clock: r.Clock, WindowNS: r.Window, Dispatches: r.Dispatches, Queues: r.Queues,
		BusyNS:            JSONBusy{r.Busy.Compute, r.Busy.Comm, r.Busy.Memcpy, r.Busy.Memset},
		MemcpyByDirection: JSONDirections(r.MemcpyByDirection),
		CommTotalNS:       r.CommTotal, CommOverlappedNS: r.CommOverlapped, CommExposedNS: r.CommTotal - r.CommOverlapped,
		IdleNS:      JSONIdle(r.Idle),
		IdleGaps:    JSONIdle(r.IdleGaps),
		GraphBusyNS: r.GraphBusy, LaunchRecords: r.Launches, Bracketed: r.Bracketed, NoLaunchNextGaps: r.NoLaunchNext,
		Reasons: r.Reasons}
	if j.Reasons == nil {
		j.Reasons = []string{}
	}
	if r.HasRank {
		rank := r.Rank
		j.Rank = &rank
	}
	if many {
		in := r.Input
		j.Input = &in
	}
	span := r.Window > 0 || r.Dispatches > 0
	j.BeginNS, j.EndNS, j.HostWaitAfterSyncNS = i64If(r.Begin, span), i64If(r.End, span), i64If(r.HostWaitAfterSync, sync)
	return j
}

func jsonLaunch(pl *analysis.ProgramLaunch) JSONProgramLaunch {
	sd, st := pl.ShortShare()
	j := JSONProgramLaunch{Program: pl.Program, Unit: pl.Unit, Dispatches: pl.Dispatches, TimedDispatches: pl.Timed, Launched: pl.Launched,
		DeviceNS: pl.Device, HostLaunchNS: pl.HostLaunch, LaunchBound: pl.LaunchBound, Bracketed: pl.Bracketed, Delay: jsonDelay(pl.Delay),
		ShortDispatches: pl.Short, ShortNS: pl.ShortTime, ShortShareDispatches: *f64(sd), ShortShareTime: *f64(st),
		Kernels: []JSONKernelLaunch{}}
	for _, k := range pl.Kernels {
		j.Kernels = append(j.Kernels, JSONKernelLaunch{Name: k.Kernel.Name, List: k.Kernel.List, Category: k.Kernel.Category,
			Dispatches: k.Dispatches, TimedDispatches: k.Timed, Launched: k.Launched, DeviceNS: k.Device, LaunchTotalNS: k.LaunchTotal,
			Delay: jsonDelay(k.Delay), ShortDispatches: k.Short, ShortNS: k.ShortTime})
	}
	return j
}

func jsonDelay(d *analysis.DelayStats) *JSONDelay {
	if d == nil || d.N == 0 {
		return nil
	}
	return &JSONDelay{Count: d.N, Mean: *f64(d.Mean), P50: d.P50, P99: d.P99, Min: d.Min, Max: d.Max, Graph: d.Graph}
}
