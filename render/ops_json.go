package render

import (
	"math"

	"github.com/tallyprof/tally/analysis"
)

// JSONOps is the report's op table (`tally report --by op`), added within
// tally.report/v1: embedded in the report and in each section, present
// only when asked for. docs/report-json.md defines it.
type JSONOps struct {
	Ops []JSONOp `json:"ops"`
	// OpsUnattributedDeviceNS is the device time of dispatches whose
	// launch lies under no host op; OpsUnmodelledDeviceNS that of the
	// attributed dispatches whose op has no cost model. Null when device
	// times are not in ns.
	OpsUnattributedDeviceNS *int64      `json:"ops_unattributed_device_ns"`
	OpsUnmodelledDeviceNS   *int64      `json:"ops_unmodelled_device_ns"`
	OpTable                 JSONOpTable `json:"op_table"`
}

// JSONOpTable is what the op rows stand on: the level, how the reader
// attributed, the device and its peaks, and the partition of device time.
type JSONOpTable struct {
	Level      string `json:"level"`
	Source     string `json:"source"`
	Device     string `json:"device,omitempty"`
	Peaks      string `json:"peaks,omitempty"`
	Dispatches int64  `json:"dispatches"`
	// DeviceNS = modelled + unmodelled + unattributed.
	DeviceNS                   *int64         `json:"device_ns"`
	ModelledDeviceNS           *int64         `json:"modelled_device_ns"`
	UnmodelledNoShapesDeviceNS *int64         `json:"unmodelled_no_shapes_device_ns"`
	UnmodelledNoModelDeviceNS  *int64         `json:"unmodelled_no_model_device_ns"`
	UnattributedDispatches     int64          `json:"unattributed_dispatches"`
	UnattributedKernels        []JSONOpKernel `json:"unattributed_kernels"`
	// Of the unattributed: the dispatches whose launch call is not in the
	// trace (see gpu_event_without_launch).
	UnattributedNoLaunchDispatches int64  `json:"unattributed_no_launch_dispatches"`
	UnattributedNoLaunchDeviceNS   *int64 `json:"unattributed_no_launch_device_ns"`
}

// JSONOp is one op name's row.
type JSONOp struct {
	Name            string   `json:"name"`
	Calls           int64    `json:"calls"`
	Dispatches      int64    `json:"dispatches"`
	TimedDispatches int64    `json:"timed_dispatches"`
	DeviceNS        *int64   `json:"device_ns"`
	Share           *float64 `json:"share"`
	HostNS          *int64   `json:"host_ns"`
	GraphLaunches   int64    `json:"graph_launches,omitempty"`
	Signatures      int      `json:"signatures"`
	// FLOPs and Bytes are the modelled work of all calls, null when not
	// modelled; the rates are over the device time of the modelled calls.
	FLOPs              *float64       `json:"flops"`
	Bytes              *float64       `json:"bytes"`
	ModelledDeviceNS   *int64         `json:"modelled_device_ns"`
	UnmodelledDeviceNS *int64         `json:"unmodelled_device_ns"`
	Family             string         `json:"family,omitempty"`
	DType              string         `json:"dtype,omitempty"`
	TFLOPS             *float64       `json:"tflops"`
	TBps               *float64       `json:"tbps"`
	Intensity          *float64       `json:"intensity"`
	OfPeak             *float64       `json:"of_peak"`
	Bound              string         `json:"bound,omitempty"`
	Kernels            []JSONOpKernel `json:"kernels"`
	ModelledSigs       []JSONOpCall   `json:"modelled_signatures,omitempty"`
}

// JSONOpKernel is one kernel under an op.
type JSONOpKernel struct {
	Name       string `json:"name"`
	Dispatches int64  `json:"dispatches"`
	DeviceNS   *int64 `json:"device_ns"`
}

// JSONOpCall is one modelled call signature of an op.
type JSONOpCall struct {
	InputDims      string   `json:"input_dims"`
	InputTypes     string   `json:"input_types,omitempty"`
	ConcreteInputs string   `json:"concrete_inputs,omitempty"`
	Paths          int      `json:"module_paths"`
	Params         string   `json:"params"`
	Calls          int64    `json:"calls"`
	DeviceNS       int64    `json:"device_ns"`
	FLOPsPerCall   *float64 `json:"flops_per_call"`
	BytesPerCall   *float64 `json:"bytes_per_call"`
	TFLOPS         *float64 `json:"tflops"`
	TBps           *float64 `json:"tbps"`
	Intensity      *float64 `json:"intensity"`
	PeakTFLOPS     *float64 `json:"peak_tflops"`
	PeakTBps       *float64 `json:"peak_tbps"`
	OfPeak         *float64 `json:"of_peak"`
	Bound          string   `json:"bound,omitempty"`
}

// jsonOps converts an op table; nil when none was built.
func jsonOps(t *analysis.OpTable) *JSONOps {
	if t == nil {
		return nil
	}
	ns := t.Unit == "ns"
	j := &JSONOps{Ops: []JSONOp{}, OpsUnattributedDeviceNS: i64If(t.Unattributed.Device, ns), OpsUnmodelledDeviceNS: i64If(t.Unmodelled, ns),
		OpTable: JSONOpTable{Level: t.Level, Source: t.Source, Device: t.DeviceName, Peaks: t.Peaks, Dispatches: t.Dispatches,
			DeviceNS: i64If(t.Device, ns), ModelledDeviceNS: i64If(t.Modelled, ns), UnmodelledNoShapesDeviceNS: i64If(t.NoShapes, ns),
			UnmodelledNoModelDeviceNS: i64If(t.NoModel, ns), UnattributedDispatches: t.Unattributed.Dispatches,
			UnattributedKernels:            jsonOpKernels(t.Unattributed.Kernels, ns),
			UnattributedNoLaunchDispatches: t.NoLaunchDispatches, UnattributedNoLaunchDeviceNS: i64If(t.NoLaunch, ns)}}
	if t.Source == "" {
		j.OpTable.Source = NoOpSource
	}
	for i := range t.Rows {
		r := &t.Rows[i]
		timed := ns && r.Timed > 0
		jo := JSONOp{Name: r.Name, Calls: r.Calls, Dispatches: r.Dispatches, TimedDispatches: r.Timed, GraphLaunches: r.GraphLaunches,
			Signatures: r.Signatures, Family: r.Roof.Family, DType: r.Roof.DType, Bound: r.Roof.Bound(), Kernels: jsonOpKernels(r.Kernels, ns),
			DeviceNS: i64If(r.Device, timed), Share: f64If(r.Share, timed), HostNS: i64If(r.Host, r.HostValid),
			ModelledDeviceNS: i64If(r.Roof.Modelled, timed), UnmodelledDeviceNS: i64If(r.Roof.NoShapes+r.Roof.NoModel, timed),
			FLOPs: wholeIf(r.Roof.FLOPs, r.Roof.FLOPs > 0), Bytes: wholeIf(r.Roof.Bytes, r.Roof.Bytes > 0)}
		jo.TFLOPS, jo.TBps, jo.Intensity, jo.OfPeak = roofRates(&r.Roof)
		for k := range r.Sigs {
			s := &r.Sigs[k]
			jc := JSONOpCall{InputDims: s.Dims, InputTypes: s.Types, ConcreteInputs: s.Concrete, Paths: s.Paths, Params: s.Cost.Params,
				Calls: s.Calls, DeviceNS: s.Device, Bound: s.Roof.Bound(),
				FLOPsPerCall: wholeIf(s.Cost.FLOPs, s.Cost.HasFLOPs), BytesPerCall: wholeIf(s.Cost.Bytes, s.Cost.HasBytes),
				PeakTFLOPS: f64If(s.Peak.TFLOPS, s.Peak.TFLOPS > 0), PeakTBps: f64If(s.Peak.TBps, s.Peak.TBps > 0)}
			jc.TFLOPS, jc.TBps, jc.Intensity, jc.OfPeak = roofRates(&s.Roof)
			jo.ModelledSigs = append(jo.ModelledSigs, jc)
		}
		j.Ops = append(j.Ops, jo)
	}
	return j
}

func roofRates(r *analysis.Roofline) (tflops, tbps, intensity, ofPeak *float64) {
	return f64If(r.TFLOPS()), f64If(r.TBps()), f64If(r.Intensity()), f64If(r.OfPeak())
}

// wholeIf is a count of FLOPs or bytes when ok, else nil: rounded to a
// whole number, as f64's rounding to 1e-6 would lose digits of numbers
// past 2^53/1e6.
func wholeIf(v float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	v = math.Round(v)
	return &v
}

func jsonOpKernels(ks []analysis.OpKernel, ns bool) []JSONOpKernel {
	out := make([]JSONOpKernel, 0, len(ks))
	for _, k := range ks {
		out = append(out, JSONOpKernel{Name: k.Name, Dispatches: k.Dispatches, DeviceNS: i64If(k.Device, ns)})
	}
	return out
}

// NoOpSource is what the op table says of a format that records no host
// ops.
const NoOpSource = "this format records no host ops: each dispatch's program and kernel stand for its op (see the kernel tables); every dispatch is counted as unattributed"
