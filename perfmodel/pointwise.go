package perfmodel

import "fmt"

// Elementwise and reduction ops are memory-bound: they are modelled by the
// bytes they must move (each operand read once, the result written once),
// with no FLOP figure — the roofline places them by bandwidth only.

// elementwise are the ATen ops (without "aten::" and a trailing "_" of the
// in-place form) whose output has the broadcast shape of their inputs.
var elementwise = setOf(
	"add", "sub", "mul", "div", "neg", "abs", "exp", "log", "sqrt", "rsqrt", "pow", "reciprocal",
	"relu", "gelu", "silu", "sigmoid", "tanh", "sin", "cos", "erf", "clamp", "clamp_min", "clamp_max",
	"where", "masked_fill", "lt", "gt", "le", "ge", "eq", "ne", "maximum", "minimum", "logical_not",
	"copy", "fill", "zero", "to", "_to_copy", "contiguous", "clone", "cumsum",
	"softmax", "_softmax", "log_softmax", "_log_softmax", "_softmax_backward_data",
	"layer_norm", "native_layer_norm", "rms_norm", "_fused_rms_norm", "group_norm", "native_group_norm",
	"batch_norm", "native_batch_norm", "_batch_norm_impl_index", "dropout", "native_dropout",
	"threshold_backward", "gelu_backward", "silu_backward", "sigmoid_backward", "tanh_backward",
	"native_layer_norm_backward",
)

// Gathers (embedding, index_select) read only the rows their index picks,
// not their whole first input: the pointwise rule would overstate their
// bytes many times over, so they have no model.

// reductions read their input and write a smaller output.
var reductions = setOf("sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "norm",
	"linalg_vector_norm", "var", "std", "prod", "any", "all")

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// pointwise: bytes = the tensor inputs read once and the output written
// once, the output having the most elements of any input (broadcast) and
// that input's type. In-place ops (add_) write their first input; copy_
// reads its source and writes its destination; fill_ and zero_ only
// write.
func pointwise(c *call, base string) (Cost, bool) {
	t := c.tensors()
	if t.n == 0 {
		return Cost{}, false
	}
	read, first := t.bytes, t.first
	var by float64
	switch base {
	case "copy_":
		by = read // destination written, source read: both operands once
	case "fill_", "zero_":
		s, _ := c.shape(0, 0)
		by = prod(s) * float64(first.bytes)
	default:
		if base[len(base)-1] == '_' {
			s, _ := c.shape(0, 0)
			by = read + prod(s)*float64(first.bytes)
		} else {
			by = read + t.maxElems*float64(t.maxBytes)
		}
	}
	return Cost{Family: Elementwise, Bytes: by, HasBytes: true, DType: first.dt, Params: fmt.Sprintf("%d tensors", t.n)}, true
}

// tensorArgs sums a call's tensor arguments.
type tensorArgs struct {
	n        int     // how many
	bytes    float64 // their bytes, each read once
	first    elem    // the first one's element type
	maxElems float64 // the most elements of any (a broadcast's output)
	maxBytes int64   // that one's element size
}

func (c *call) tensors() tensorArgs {
	var t tensorArgs
	for i := range c.dims {
		if !c.isTensor(i) {
			continue
		}
		e, _ := c.elem(i)
		s, ok := c.shape(i, 0)
		if !ok {
			// A tensor whose shape is no shape (a negative dim, more
			// elements than int64 counts) counted as one element before:
			// the call has no model.
			return tensorArgs{}
		}
		if t.n == 0 {
			t.first = e
		}
		t.n++
		p := prod(s)
		t.bytes += p * float64(e.bytes)
		if p > t.maxElems || t.maxBytes == 0 {
			t.maxElems = max(t.maxElems, p)
			t.maxBytes = e.bytes
		}
	}
	return t
}

// reduction: the tensor inputs read once; the output (at most as large as
// the input, usually far smaller) is not counted.
func reduction(c *call) (Cost, bool) {
	t := c.tensors()
	if t.n == 0 {
		return Cost{}, false
	}
	return Cost{Family: Reduction, Bytes: t.bytes, HasBytes: true, DType: t.first.dt, Params: fmt.Sprintf("%d tensors", t.n)}, true
}

// tritonKernel models a torch.compile (Inductor) Triton kernel by its
// launcher op's recorded args (triton_poi_*, triton_red_*, triton_per_*:
// pointwise, reduction and persistent-reduction kernels): each tensor
// argument is a buffer the kernel reads or writes once, so their bytes
// are the kernel's minimum traffic. No FLOPs.
func tritonKernel(c *call) (Cost, bool) {
	t := c.tensors()
	if t.n == 0 {
		return Cost{}, false
	}
	return Cost{Family: Triton, Bytes: t.bytes, HasBytes: true, DType: t.first.dt, Params: fmt.Sprintf("%d buffers", t.n)}, true
}
