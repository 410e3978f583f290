package perfmodel

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Device is one accelerator's peaks: dense (no sparsity) TFLOP/s per
// compute type and the memory bandwidth in TB/s. Each figure is the
// vendor's published one (Source; docs/ops.md quotes them).
type Device struct {
	Name   string
	Match  []string // lower-case substrings of the profiler's device name
	TFLOPS map[DType]float64
	TBps   float64
	Source string
	// Note says how the figures were derived where the source gives them
	// otherwise (per GCD, halved from with-sparsity figures).
	Note string
}

// Peaks is the built-in table, most specific match first. The NVIDIA
// datasheets print tensor figures with 2:4 sparsity; dense figures are
// half of those, as their footnotes say.
var Peaks = []Device{
	{Name: "H100 SXM", Match: []string{"h100 80gb hbm3", "h100-sxm", "h100 sxm"},
		TFLOPS: map[DType]float64{FP64: 67, FP32: 67, TF32: 494.5, BF16: 989.5, FP16: 989.5, FP8: 1979, INT8: 1979},
		TBps:   3.35, Source: "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM column)",
		Note: "FP64 is the FP64 Tensor Core figure, FP32 the non-tensor figure; tensor figures halved from the with-sparsity ones"},
	{Name: "H100 PCIe", Match: []string{"h100 pcie", "h100-pcie"},
		TFLOPS: map[DType]float64{FP64: 51, FP32: 51, TF32: 378, BF16: 756.5, FP16: 756.5, FP8: 1513, INT8: 1513},
		TBps:   2.0, Source: "NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe column)",
		Note: "tensor figures halved from the with-sparsity ones"},
	{Name: "H200", Match: []string{"h200"},
		TFLOPS: map[DType]float64{FP64: 67, FP32: 67, TF32: 494.5, BF16: 989.5, FP16: 989.5, FP8: 1979, INT8: 1979},
		TBps:   4.8, Source: "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM column)",
		Note: "tensor figures halved from the with-sparsity ones"},
	{Name: "B200", Match: []string{"b200"},
		TFLOPS: map[DType]float64{FP64: 37, TF32: 1125, BF16: 2250, FP16: 2250, FP8: 4500, INT8: 4500},
		TBps:   8.0, Source: "NVIDIA HGX B200 datasheet (8-GPU figures divided by 8)",
		Note: "per GPU: the HGX B200 figures for 8 GPUs divided by 8, tensor figures halved from the with-sparsity ones; no non-tensor FP32 figure is published there"},
	{Name: "A100 SXM 80GB", Match: []string{"a100-sxm4-80gb", "a100 sxm4 80gb", "a100-sxm-80gb"},
		TFLOPS: map[DType]float64{FP64: 19.5, FP32: 19.5, TF32: 156, BF16: 312, FP16: 312, INT8: 624},
		TBps:   2.039, Source: "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM column)",
		Note: "FP64 is the FP64 Tensor Core figure; dense (no sparsity) figures"},
	{Name: "A100 PCIe 80GB", Match: []string{"a100 80gb pcie", "a100-pcie-80gb"},
		TFLOPS: map[DType]float64{FP64: 19.5, FP32: 19.5, TF32: 156, BF16: 312, FP16: 312, INT8: 624},
		TBps:   1.935, Source: "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB PCIe column)",
		Note: "dense (no sparsity) figures"},
	{Name: "A100 40GB", Match: []string{"a100"},
		TFLOPS: map[DType]float64{FP64: 19.5, FP32: 19.5, TF32: 156, BF16: 312, FP16: 312, INT8: 624},
		TBps:   1.555, Source: "NVIDIA A100 Tensor Core GPU datasheet (A100 40GB PCIe and SXM columns)",
		Note: "any other A100 name: the 40 GB figures (lowest bandwidth)"},
	{Name: "MI300X", Match: []string{"mi300x"},
		TFLOPS: map[DType]float64{FP64: 163.4, FP32: 163.4, TF32: 653.7, BF16: 1307.4, FP16: 1307.4, FP8: 2614.9, INT8: 2614.9},
		TBps:   5.3, Source: "AMD Instinct MI300X accelerator datasheet",
		Note: "FP64 and FP32 are the matrix figures; dense (no sparsity) figures"},
	{Name: "MI250X (one GCD)", Match: []string{"mi250x", "mi250"},
		TFLOPS: map[DType]float64{FP64: 47.85, FP32: 47.85, BF16: 191.5, FP16: 191.5, INT8: 191.5},
		TBps:   1.6384, Source: "AMD Instinct MI250X accelerator datasheet",
		Note: "per GCD: PyTorch sees each of the package's two GCDs as a device, so the package figures (FP64/FP32 matrix 95.7, FP16/BF16 383 TFLOP/s, 3.2768 TB/s) are halved"},
	{Name: "MI210", Match: []string{"mi210"},
		TFLOPS: map[DType]float64{FP64: 45.3, FP32: 45.3, BF16: 181, FP16: 181, INT8: 181},
		TBps:   1.6384, Source: "AMD Instinct MI210 accelerator datasheet",
		Note: "FP64 and FP32 are the matrix figures"},
}

// Lookup finds the peaks of the device the profiler named; nil when the
// table has none.
func Lookup(name string) *Device {
	n := strings.ToLower(name)
	if n == "" {
		return nil
	}
	for i := range Peaks {
		for _, m := range Peaks[i].Match {
			if strings.Contains(n, m) {
				return &Peaks[i]
			}
		}
	}
	return nil
}

// Names lists the table's device names, for flag help and errors.
func Names() []string {
	out := make([]string, len(Peaks))
	for i, d := range Peaks {
		out[i] = d.Name
	}
	return out
}

// Override is the user's choice of peaks (--peak-device, --peak-tflops,
// --peak-tbps): a device of the table, or figures applied to every
// compute type.
type Override struct {
	Device *Device
	TFLOPS float64 // 0: not given
	TBps   float64
}

// ParseDevice finds a table device by its name or a profiler name.
func ParseDevice(s string) (*Device, error) {
	for i := range Peaks {
		if strings.EqualFold(Peaks[i].Name, s) {
			return &Peaks[i], nil
		}
	}
	if d := Lookup(s); d != nil {
		return d, nil
	}
	names := Names()
	sort.Strings(names)
	return nil, fmt.Errorf("no peaks for device %q: give one of %s, or --peak-tflops and --peak-tbps", s, strings.Join(quoteAll(names), ", "))
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strconv.Quote(v)
	}
	return out
}

// Peak is the figures that apply to one compute type: TFLOP/s (0 when
// unknown) and TB/s (0 when unknown), and where they come from.
type Peak struct {
	TFLOPS, TBps float64
	From         string
}

// Resolve picks the peaks for the profiler's device name and dtype,
// overrides first.
func (o Override) Resolve(deviceName string, dt DType) Peak {
	d := o.Device
	from := ""
	switch {
	case d != nil:
		from = d.Name + " (--peak-device)"
	default:
		if d = Lookup(deviceName); d != nil {
			from = d.Name
		}
	}
	var p Peak
	if d != nil {
		p.TFLOPS, p.TBps, p.From = d.TFLOPS[dt], d.TBps, from
	}
	if o.TFLOPS > 0 {
		p.TFLOPS, p.From = o.TFLOPS, "--peak-tflops"
	}
	if o.TBps > 0 {
		p.TBps = o.TBps
		if p.From == "" {
			p.From = "--peak-tbps"
		}
	}
	return p
}
