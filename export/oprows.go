package export

import (
	"strconv"
)

// OpRow is one row of the op table (CSV and JSON Lines with --per-op):
// one host op name of one input at the inner level (the innermost op
// around each launch), with its modelled work; one row per input with op
// "" stands for the dispatches under no op. Columns are documented in
// docs/export.md ("Ops"); never rename one.
type OpRow struct {
	Rank       string   `json:"rank"`
	Input      int32    `json:"input"`
	Op         string   `json:"op"`
	Calls      int64    `json:"calls"`
	Dispatches int64    `json:"dispatches"`
	Timed      int64    `json:"timed"`
	DeviceNS   *int64   `json:"device_ns"`
	HostNS     *int64   `json:"host_ns"`
	FLOPs      *float64 `json:"flops"`
	Bytes      *float64 `json:"bytes"`
	ModelledNS *int64   `json:"modelled_ns"`
	TFLOPS     *float64 `json:"tflops"`
	TBps       *float64 `json:"tbps"`
	OfPeak     *float64 `json:"of_peak"`
	Kernel     string   `json:"top_kernel"`
}

var opColumns = []string{"rank", "input", "op", "calls", "dispatches", "timed", "device_ns", "host_ns", "flops", "bytes",
	"modelled_ns", "tflops", "tbps", "of_peak", "top_kernel"}

// opRows lists input in's op table rows (analysis.OpTable), costliest
// first, then the row of the dispatches under no op when there are any.
func opRows(in *input) []OpRow {
	t := in.Tables.Ops
	if t == nil {
		return nil
	}
	ns := t.Unit == "ns"
	rank := in.inputRank(in.Capture)
	var rows []OpRow
	for i := range t.Rows {
		r := &t.Rows[i]
		o := OpRow{Rank: rank, Input: int32(in.Index), Op: r.Name, Calls: r.Calls, Dispatches: r.Dispatches, Timed: r.Timed}
		if ns {
			o.DeviceNS, o.ModelledNS = i64(r.Device), i64(r.Roof.Modelled)
		}
		if r.HostValid {
			o.HostNS = i64(r.Host)
		}
		if r.Roof.FLOPs > 0 {
			o.FLOPs = f64p(r.Roof.FLOPs)
		}
		if r.Roof.Bytes > 0 {
			o.Bytes = f64p(r.Roof.Bytes)
		}
		if v, ok := r.Roof.TFLOPS(); ok {
			o.TFLOPS = f64p(v)
		}
		if v, ok := r.Roof.TBps(); ok {
			o.TBps = f64p(v)
		}
		if v, ok := r.Roof.OfPeak(); ok {
			o.OfPeak = f64p(v)
		}
		if len(r.Kernels) > 0 {
			o.Kernel = r.Kernels[0].Name
		}
		rows = append(rows, o)
	}
	if u := &t.Unattributed; u.Dispatches > 0 {
		o := OpRow{Rank: rank, Input: int32(in.Index), Dispatches: u.Dispatches, Timed: u.Timed}
		if ns {
			o.DeviceNS = i64(u.Device)
		}
		if len(u.Kernels) > 0 {
			o.Kernel = u.Kernels[0].Name
		}
		rows = append(rows, o)
	}
	return rows
}

func f64p(v float64) *float64 { return &v }

// optF is a rate to 15 significant digits (past them, float noise).
func optF(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'g', 15, 64)
}

// optWhole is a count of FLOPs or bytes, in whole digits.
func optWhole(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', 0, 64)
}

func (r *OpRow) cells(rec []string) []string {
	return append(rec, r.Rank, strconv.Itoa(int(r.Input)), r.Op, itoa(r.Calls), itoa(r.Dispatches), itoa(r.Timed),
		optI(r.DeviceNS), optI(r.HostNS), optWhole(r.FLOPs), optWhole(r.Bytes), optI(r.ModelledNS), optF(r.TFLOPS), optF(r.TBps),
		optF(r.OfPeak), r.Kernel)
}
