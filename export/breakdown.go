package export

import (
	"strings"

	"github.com/tallyprof/tally/analysis"
)

// The parquet dataset's breakdown table (breakdown.parquet): one row per
// input and device row of its time breakdown (docs/breakdown.md), the
// figures of `tally report --json`'s breakdown.devices[]: window_ns equals
// the sum of the busy_*_ns and idle_*_ns columns exactly.

// BreakdownRow is one device of one input.
type BreakdownRow struct {
	Input  int32  `parquet:"input" json:"input"`
	Rank   string `parquet:"rank,dict" json:"rank"`
	Device string `parquet:"device,dict" json:"device"`
	// Unit is "ns", or "ticks" for a device timed in ticks (the *_ns
	// columns then hold ticks); Clock its clock domain.
	Unit       string `parquet:"unit,dict" json:"unit"`
	Clock      string `parquet:"clock,dict" json:"clock"`
	BeginNS    int64  `parquet:"begin_ns" json:"begin_ns"`
	EndNS      int64  `parquet:"end_ns" json:"end_ns"`
	WindowNS   int64  `parquet:"window_ns" json:"window_ns"`
	Dispatches int64  `parquet:"dispatches" json:"dispatches"`
	Queues     int32  `parquet:"queues" json:"queues"`

	BusyComputeNS int64 `parquet:"busy_compute_ns" json:"busy_compute_ns"`
	BusyCommNS    int64 `parquet:"busy_comm_ns" json:"busy_comm_ns"`
	BusyMemcpyNS  int64 `parquet:"busy_memcpy_ns" json:"busy_memcpy_ns"`
	BusyMemsetNS  int64 `parquet:"busy_memset_ns" json:"busy_memset_ns"`

	IdleHostWaitNS      int64 `parquet:"idle_host_wait_ns" json:"idle_host_wait_ns"`
	IdleLaunchLatencyNS int64 `parquet:"idle_launch_latency_ns" json:"idle_launch_latency_ns"`
	IdleOtherStreamNS   int64 `parquet:"idle_other_stream_ns" json:"idle_other_stream_ns"`
	IdleUnrecordedNS    int64 `parquet:"idle_unrecorded_ns" json:"idle_unrecorded_ns"`
	IdleUnexplainedNS   int64 `parquet:"idle_unexplained_ns" json:"idle_unexplained_ns"`

	CommTotalNS      int64 `parquet:"comm_total_ns" json:"comm_total_ns"`
	CommOverlappedNS int64 `parquet:"comm_overlapped_ns" json:"comm_overlapped_ns"`
	// HostWaitAfterSyncNS is null where the format records no sync calls.
	HostWaitAfterSyncNS *int64 `parquet:"host_wait_after_sync_ns,optional" json:"host_wait_after_sync_ns"`
	GraphBusyNS         int64  `parquet:"graph_busy_ns" json:"graph_busy_ns"`
	LaunchRecords       bool   `parquet:"launch_records" json:"launch_records"`
	// Reasons are the row's reasons, one per line.
	Reasons string `parquet:"reasons" json:"reasons"`
}

// breakdownRows are input in's device rows; none when it has no breakdown
// (or it failed: the inputs table and the gaps say why).
func breakdownRows(in *input) []BreakdownRow {
	b := in.Breakdown
	if b == nil || b.Err != nil {
		return nil
	}
	var rows []BreakdownRow
	for i := range b.Devices {
		r := &b.Devices[i]
		row := BreakdownRow{Input: int32(in.Index), Rank: r.Rank, Device: r.Device, Unit: r.Unit, Clock: r.Clock,
			BeginNS: r.Begin, EndNS: r.End, WindowNS: r.Window, Dispatches: r.Dispatches, Queues: int32(r.Queues),
			BusyComputeNS: r.Busy.Compute, BusyCommNS: r.Busy.Comm, BusyMemcpyNS: r.Busy.Memcpy, BusyMemsetNS: r.Busy.Memset,
			IdleHostWaitNS: r.Idle.HostWait, IdleLaunchLatencyNS: r.Idle.LaunchLatency, IdleOtherStreamNS: r.Idle.OtherStream,
			IdleUnrecordedNS: r.Idle.Unrecorded, IdleUnexplainedNS: r.Idle.Unexplained,
			CommTotalNS: r.CommTotal, CommOverlappedNS: r.CommOverlapped, GraphBusyNS: r.GraphBusy, LaunchRecords: r.Launches,
			Reasons: strings.Join(r.Reasons, "\n")}
		if !r.HasRank && in.Capture != nil {
			row.Rank = in.Capture.Source.Rank
		}
		if b.SyncRecorded {
			row.HostWaitAfterSyncNS = i64(r.HostWaitAfterSync)
		}
		rows = append(rows, row)
	}
	return rows
}

// breakdownOptions is what the export's read needs of the breakdown: the
// parquet dataset has a breakdown table, the other outputs none.
func breakdownOptions(to string) *analysis.BreakdownOptions {
	if to == Parquet {
		return &analysis.BreakdownOptions{}
	}
	return nil
}
