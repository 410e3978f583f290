package export

import (
	"strconv"
)

// OpRow is one row of the op table (--per-op: the CSV or JSON Lines
// table, parquet ops.parquet):
// one host op name of one input at the inner level (the innermost op
// around each launch), with its modelled work; one row per input with op
// "" stands for the dispatches under no op. Columns are documented in
// docs/export.md ("Ops"); never rename one.
type OpRow struct {
	Rank       string   `parquet:"rank,dict" json:"rank"`
	Input      int32    `parquet:"input" json:"input"`
	Op         string   `parquet:"op,dict" json:"op"`
	Calls      int64    `parquet:"calls" json:"calls"`
	Dispatches int64    `parquet:"dispatches" json:"dispatches"`
	Timed      int64    `parquet:"timed" json:"timed"`
	DeviceNS   *int64   `parquet:"device_ns,optional" json:"device_ns"`
	HostNS     *int64   `parquet:"host_ns,optional" json:"host_ns"`
	FLOPs      *float64 `parquet:"flops,optional" json:"flops"`
	Bytes      *float64 `parquet:"bytes,optional" json:"bytes"`
	ModelledNS *int64   `parquet:"modelled_ns,optional" json:"modelled_ns"`
	TFLOPS     *float64 `parquet:"tflops,optional" json:"tflops"`
	TBps       *float64 `parquet:"tbps,optional" json:"tbps"`
	OfPeak     *float64 `parquet:"of_peak,optional" json:"of_peak"`
	Kernel     string   `parquet:"top_kernel,dict" json:"top_kernel"`
}

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
