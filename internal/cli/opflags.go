package cli

import (
	"flag"
	"fmt"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/perfmodel"
)

// The peaks a --peak-tflops or --peak-tbps may give: 1 GFLOP/s or GB/s,
// below any accelerator (and any CPU core), to 1 EFLOP/s or EB/s, far above
// any one device. Outside, the figure is a typo (1e-3 for 1e3), and the
// roofline it draws is absurd.
const minPeak, maxPeak = 1e-3, 1e6

// opFlags are `tally report`'s flags of the op table: --by op, --op-level
// and the peaks of the roofline.
type opFlags struct {
	by, level, device string
	tflops, tbps      float64
}

func (f *opFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.by, "by", "kernel", "also tabulate device time by `WHAT`: kernel (the tables only) or op (the host op that launched each dispatch, with FLOPs, bytes and the roofline where shapes were recorded; JSON ops)")
	fs.StringVar(&f.level, "op-level", "inner", "with --by op: group by the `LEVEL` of host op around each launch: inner (the innermost op, e.g. aten::addmm) or outer (the outermost, e.g. aten::linear or a record_function range)")
	fs.StringVar(&f.device, "peak-device", "", "with --by op: compare with the peaks of `NAME` from the built-in table (docs/ops.md: H100 SXM, H100 PCIe, H200, B200, A100 SXM 80GB, A100 PCIe 80GB, A100 40GB, MI300X, MI250X, MI210) instead of the trace's device")
	fs.Float64Var(&f.tflops, "peak-tflops", 0, "with --by op: the compute peak in `TFLOPS` for every dtype, instead of the table's")
	fs.Float64Var(&f.tbps, "peak-tbps", 0, "with --by op: the memory bandwidth peak in `TBPS` (TB/s), instead of the table's")
}

// options is the op table's options, nil when not asked for.
func (f *opFlags) options() (*analysis.OpOptions, error) {
	switch f.by {
	case "kernel":
		if f.level != "inner" || f.device != "" || f.tflops != 0 || f.tbps != 0 {
			return nil, fmt.Errorf("--op-level, --peak-device, --peak-tflops and --peak-tbps need --by op")
		}
		return nil, nil
	case "op":
	default:
		return nil, fmt.Errorf("--by %q: give kernel or op", f.by)
	}
	o := &analysis.OpOptions{}
	switch f.level {
	case "inner":
	case "outer":
		o.Outer = true
	default:
		return nil, fmt.Errorf("--op-level %q: give inner or outer", f.level)
	}
	if f.device != "" {
		d, err := perfmodel.ParseDevice(f.device)
		if err != nil {
			return nil, fmt.Errorf("--peak-device: %w", err)
		}
		o.Peaks.Device = d
	}
	for _, v := range []struct {
		name string
		v    float64
	}{{"--peak-tflops", f.tflops}, {"--peak-tbps", f.tbps}} {
		// NaN passed a check for < 0 and was then dropped unsaid; +Inf
		// put every op at 0% of a roof no device has; 1e-300 printed
		// finite but absurd figures (1e+290% of roof). 0 is "not given".
		if v.v == 0 {
			continue
		}
		if !(v.v >= minPeak && v.v <= maxPeak) {
			return nil, fmt.Errorf("%s %g: give a figure from %g to %g (TFLOP/s or TB/s of one device; 0 or none: the table's)", v.name, v.v, minPeak, maxPeak)
		}
	}
	o.Peaks.TFLOPS, o.Peaks.TBps = f.tflops, f.tbps
	return o, nil
}
