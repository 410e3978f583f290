package render

import (
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/perfmodel"
)

// The op table's figures are numbers when known and null when not
// (docs/report-json.md, "ops"): a timed, modelled row beside an untimed
// one with no host time and no model; a signature with a FLOP count but
// no byte count, a compute peak but no bandwidth peak; and in a table
// timed in ticks, every *_ns figure null.
func TestJSONOpsNullWhenUnknown(t *testing.T) {
	roof := analysis.Roofline{Family: "gemm", DType: "bf16", FLOPs: 4e12 + 0.4, FLOPsNS: 4_000_000, Bytes: 2e9, BytesNS: 4_000_000,
		Modelled: 300, NoShapes: 60, NoModel: 40, Ideal: 200, ComputeIdeal: 200, MemoryIdeal: 100, PeakNS: 400}
	table := func(unit string) *analysis.OpTable {
		return &analysis.OpTable{Level: "inner", Source: "test", Unit: unit, Dispatches: 3, Timed: 2, Device: 400,
			Unattributed: analysis.OpFigures{Dispatches: 1, Kernels: []analysis.OpKernel{{Name: "k", Dispatches: 1, Device: 7}}},
			Rows: []analysis.OpRow{
				{Name: "aten::mm", Calls: 2, Host: 90, HostValid: true, Share: 1, Roof: roof,
					OpFigures: analysis.OpFigures{Dispatches: 2, Timed: 2, Device: 400, Kernels: []analysis.OpKernel{{Name: "gemm", Dispatches: 2, Device: 400}}},
					Sigs: []analysis.OpSignature{{Dims: "[[2,2],[2,2]]", Calls: 2, Device: 400, Roof: roof,
						Cost: perfmodel.Cost{FLOPs: 2e12 + 0.4, HasFLOPs: true, Params: "M=2"}, Peak: perfmodel.Peak{TFLOPS: 989.5}}}},
				{Name: "aten::add", Calls: 1, OpFigures: analysis.OpFigures{Dispatches: 1}},
			}}
	}
	ns, ticks := jsonOps(table("ns")), jsonOps(table("ticks"))
	wantJSON(t, "timed row", ns.Ops[0], `{"name":"aten::mm","calls":2,"dispatches":2,"timed_dispatches":2,"device_ns":400,"share":1,"host_ns":90,`+
		`"signatures":0,"flops":4000000000000,"bytes":2000000000,"modelled_device_ns":300,"unmodelled_device_ns":100,"family":"gemm",`+
		`"dtype":"bf16","tflops":1000,"tbps":0.5,"intensity":2000,"of_peak":0.5,"bound":"compute",`+
		`"kernels":[{"name":"gemm","dispatches":2,"device_ns":400}],"modelled_signatures":[{"input_dims":"[[2,2],[2,2]]",`+
		`"module_paths":0,"params":"M=2","calls":2,"device_ns":400,"flops_per_call":2000000000000,"bytes_per_call":null,`+
		`"tflops":1000,"tbps":0.5,"intensity":2000,"peak_tflops":989.5,"peak_tbps":null,"of_peak":0.5,"bound":"compute"}]}`)
	wantJSON(t, "untimed row", ns.Ops[1], `{"name":"aten::add","calls":1,"dispatches":1,"timed_dispatches":0,"device_ns":null,"share":null,`+
		`"host_ns":null,"signatures":0,"flops":null,"bytes":null,"modelled_device_ns":null,"unmodelled_device_ns":null,`+
		`"tflops":null,"tbps":null,"intensity":null,"of_peak":null,"kernels":[]}`)
	wantJSON(t, "ns table", ns.OpTable, `{"level":"inner","source":"test","dispatches":3,"device_ns":400,"modelled_device_ns":0,`+
		`"unmodelled_no_shapes_device_ns":0,"unmodelled_no_model_device_ns":0,"unattributed_dispatches":1,`+
		`"unattributed_kernels":[{"name":"k","dispatches":1,"device_ns":7}],"unattributed_no_launch_dispatches":0,`+
		`"unattributed_no_launch_device_ns":0}`)
	wantJSON(t, "ticks table", ticks.OpTable, `{"level":"inner","source":"test","dispatches":3,"device_ns":null,"modelled_device_ns":null,`+
		`"unmodelled_no_shapes_device_ns":null,"unmodelled_no_model_device_ns":null,"unattributed_dispatches":1,`+
		`"unattributed_kernels":[{"name":"k","dispatches":1,"device_ns":null}],"unattributed_no_launch_dispatches":0,`+
		`"unattributed_no_launch_device_ns":null}`)
	wantJSON(t, "ticks row", ticks.Ops[0].DeviceNS, `null`)
}
