// Package perfmodel computes the floating-point operations and the bytes
// moved by one call of a host op from the shapes, dtypes and concrete
// inputs the profiler recorded (Kineto record_shapes), and holds the
// table of accelerator peaks the roofline compares them with. Every
// formula cites its source (docs/ops.md lists them with the peaks'
// sources); an op outside the modelled families, or whose args do not
// parse, has no model — never a guessed one.
package perfmodel

import "strings"

// DType is a tensor element type as the roofline's peaks are keyed.
type DType string

// The element types the peak table knows.
const (
	FP64 DType = "fp64"
	FP32 DType = "fp32"
	TF32 DType = "tf32"
	BF16 DType = "bf16"
	FP16 DType = "fp16"
	FP8  DType = "fp8"
	INT8 DType = "int8"
)

// elem is what one recorded "Input type" means.
type elem struct {
	bytes int64
	dt    DType // "" when not a compute type (integers, bool)
}

// types maps PyTorch's scalar type names (c10 ScalarType as
// at::RecordFunction writes them) to element sizes. Sizes are the C++
// types' (PyTorch docs, torch.dtype table).
var types = map[string]elem{
	"double":                  {8, FP64},
	"float":                   {4, FP32},
	"c10::bfloat16":           {2, BF16},
	"c10::half":               {2, FP16},
	"c10::float8_e4m3fn":      {1, FP8},
	"c10::float8_e4m3fnuz":    {1, FP8},
	"c10::float8_e5m2":        {1, FP8},
	"c10::float8_e5m2fnuz":    {1, FP8},
	"c10::float8_e8m0fnu":     {1, FP8},
	"signed char":             {1, INT8},
	"unsigned char":           {1, ""},
	"bool":                    {1, ""},
	"short int":               {2, ""},
	"int":                     {4, ""},
	"long int":                {8, ""},
	"c10::complex<float>":     {8, FP32},
	"c10::complex<double>":    {16, FP64},
	"c10::complex<c10::half>": {4, FP16},
}

// elemOf returns the element of a recorded type name; ok false for
// non-tensors ("Scalar", "", "GenericList") and unknown names.
func elemOf(name string) (elem, bool) {
	e, ok := types[strings.ToLower(name)]
	return e, ok
}
