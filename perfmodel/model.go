package perfmodel

import (
	"fmt"
	"strings"
)

// Families of modelled ops.
const (
	GEMM        = "gemm"
	Attention   = "attention"
	Conv        = "conv"
	Elementwise = "elementwise"
	Reduction   = "reduction"
	Triton      = "triton"
)

// Cost is one call's modelled work.
type Cost struct {
	Family string
	// FLOPs counts floating-point operations (a multiply-add is 2); valid
	// when HasFLOPs (elementwise and reduction ops are modelled by bytes
	// only).
	FLOPs    float64
	HasFLOPs bool
	// Bytes is the minimum memory traffic: every input read once, every
	// output written once.
	Bytes    float64
	HasBytes bool
	// DType is the compute type that picks the peak (the first operand's).
	DType DType
	// Params says what the formula used ("B=1 M=32768 N=2048 K=2048").
	Params string
}

// Intensity is FLOPs per byte; ok false without both.
func (c Cost) Intensity() (float64, bool) {
	if !c.HasFLOPs || !c.HasBytes || c.Bytes <= 0 {
		return 0, false
	}
	return c.FLOPs / c.Bytes, true
}

// Model returns the cost of one call of op name with the recorded args
// (canonical JSON arrays, as capture.Op holds them); ok is false when the
// op is outside the modelled families or its args do not fit the formula.
func Model(name, dims, types, concrete string) (Cost, bool) {
	c, ok := parseCall(dims, types, concrete)
	if !ok {
		return Cost{}, false
	}
	cost, ok := model(name, c)
	if !ok || !finite(cost) {
		// Shapes within int64 keep every formula finite; this is the
		// last guard (checked.go): a NaN or Inf is no model.
		return Cost{}, false
	}
	return cost, true
}

// model picks the formula of op name.
func model(name string, c *call) (Cost, bool) {
	switch name {
	case "aten::mm":
		return mm(c, 0, 2, false)
	case "aten::addmm":
		return mm(c, 1, 2, true)
	case "aten::_scaled_mm":
		return scaledMM(c)
	case "aten::bmm":
		return mm(c, 0, 3, false)
	case "aten::baddbmm":
		return mm(c, 1, 3, true)
	case "aten::matmul":
		return matmul(c)
	case "aten::linear":
		return linear(c)
	case "aten::scaled_dot_product_attention":
		return attention(c, bhnd, causalBool(5))
	case "aten::_scaled_dot_product_flash_attention":
		return attention(c, bhnd, causalBool(4))
	case "aten::_scaled_dot_product_efficient_attention", "aten::_scaled_dot_product_cudnn_attention":
		return attention(c, bhnd, causalBool(6))
	case "aten::_flash_attention_forward":
		return attention(c, bnhd, causalBool(8))
	case "flash_attn::_flash_attn_forward":
		return attention(c, bnhd, causalBool(5))
	case "aten::_efficient_attention_forward":
		return attention(c, bnhd, causalMaskType(9))
	case "aten::convolution", "aten::_convolution":
		return conv(c, convArgs{stride: 3, padding: 4, dilation: 5, transposed: 6, outPad: 7, groups: 8, bias: 2})
	case "aten::conv1d", "aten::conv2d", "aten::conv3d":
		return conv(c, convArgs{stride: 3, padding: 4, dilation: 5, transposed: -1, outPad: -1, groups: 6, bias: 2})
	case "aten::cudnn_convolution":
		return conv(c, convArgs{padding: 2, stride: 3, dilation: 4, transposed: -1, outPad: -1, groups: 5, bias: -1})
	case "aten::miopen_convolution":
		return conv(c, convArgs{padding: 3, stride: 4, dilation: 5, transposed: -1, outPad: -1, groups: 6, bias: 2})
	}
	base := strings.TrimPrefix(name, "aten::")
	switch {
	case base != name && reductions[base]:
		return reduction(c)
	case base != name && (elementwise[base] || elementwise[strings.TrimSuffix(base, "_")]):
		return pointwise(c, base)
	case strings.HasPrefix(name, "triton_poi_"), strings.HasPrefix(name, "triton_red_"), strings.HasPrefix(name, "triton_per_"):
		return tritonKernel(c)
	}
	return Cost{}, false
}

// gemmCost is the GEMM formula of TraceLens (PerfModel/perf_model.py,
// class GEMM, @171dd747): FLOPs = 2·M·N·K (+ M·N for the bias add), bytes =
// (M·K + K·N + M·N)·bpe plus the bias read, for each of batch products.
func gemmCost(batch, m, n, k float64, biasElems float64, bias bool, e elem, outBytes int64) Cost {
	f := 2 * m * n * k
	if bias {
		f += m * n
	}
	by := batch*((m*k+k*n)*float64(e.bytes)+m*n*float64(outBytes)) + biasElems*float64(e.bytes)
	return Cost{Family: GEMM, FLOPs: batch * f, HasFLOPs: true, Bytes: by, HasBytes: by > 0, DType: e.dt,
		Params: fmt.Sprintf("B=%s M=%s N=%s K=%s", num(batch), num(m), num(n), num(k))}
}

func num(v float64) string { return fmt.Sprintf("%.0f", v) }

// mm: aten::mm(A[M,K], B[K,N]) and aten::bmm(A[B,M,K], B[B,K,N]) (rank 2
// and 3); aten::addmm(C, A, B) and aten::baddbmm(C, A, B) with C read.
func mm(c *call, at, rank int, bias bool) (Cost, bool) {
	a, b, e, ok := c.operands(at, rank)
	if !ok {
		return Cost{}, false
	}
	biasElems := 0.0
	if bias {
		if s, ok := c.shape(0, 0); ok {
			biasElems = prod(s)
		}
	}
	batch := prod(a[:rank-2]) // 1 for mm
	a, b = a[rank-2:], b[rank-2:]
	return gemmCost(batch, float64(a[0]), float64(b[1]), float64(a[1]), biasElems, bias, e, e.bytes), true
}

// operands are a product's A and B, inputs at and at+1, each of rank
// dims exactly, and A's element type.
func (c *call) operands(at, rank int) (a, b []int64, e elem, ok bool) {
	a, ok1 := c.shape(at, rank)
	b, ok2 := c.shape(at+1, rank)
	e, ok3 := c.elem(at)
	return a, b, e, ok1 && ok2 && ok3 && len(a) == rank && len(b) == rank
}

// scaledMM: aten::_scaled_mm(A[M,K], B[K,N], scale_a, scale_b, bias?, …):
// FP8 operands; the output is taken as 2 bytes per element for 1-byte
// operands, as TraceLens does (class aten_scaled_mm): out_dtype is a
// keyword argument the profiler does not record as a tensor.
func scaledMM(c *call) (Cost, bool) {
	a, b, e, ok := c.operands(0, 2)
	if !ok {
		return Cost{}, false
	}
	out := e.bytes
	if out == 1 {
		out = 2
	}
	bias := false
	biasElems := 0.0
	if s, ok := c.shape(4, 1); ok && c.isTensor(4) {
		bias, biasElems = true, prod(s)
	}
	return gemmCost(1, float64(a[0]), float64(b[1]), float64(a[1]), biasElems, bias, e, out), true
}

// linear: aten::linear(input[…,K], weight[N,K], bias[N]?): M is the
// product of the input's leading dims (PyTorch docs, torch.nn.functional.linear:
// y = x·Wᵀ + b).
func linear(c *call) (Cost, bool) {
	x, ok1 := c.shape(0, 1)
	w, ok2 := c.shape(1, 2)
	e, ok3 := c.elem(0)
	if !ok1 || !ok2 || !ok3 || len(w) != 2 {
		return Cost{}, false
	}
	m := prod(x[:len(x)-1])
	bias := false
	biasElems := 0.0
	if s, ok := c.shape(2, 1); ok && c.isTensor(2) {
		bias, biasElems = true, prod(s)
	}
	return gemmCost(1, m, float64(w[0]), float64(x[len(x)-1]), biasElems, bias, e, e.bytes), true
}

// matmul: aten::matmul with torch.matmul's rules (PyTorch docs): a 1-D
// operand is a vector (M or N is 1), leading dims broadcast as a batch.
func matmul(c *call) (Cost, bool) {
	a, ok1 := c.shape(0, 1)
	b, ok2 := c.shape(1, 1)
	e, ok3 := c.elem(0)
	if !ok1 || !ok2 || !ok3 {
		return Cost{}, false
	}
	var m, n, k float64
	var ab, bb []int64
	switch {
	case len(a) == 1 && len(b) == 1:
		m, k, n = 1, float64(a[0]), 1
	case len(a) == 1:
		m, k, n, bb = 1, float64(a[0]), float64(b[len(b)-1]), b[:len(b)-2]
	case len(b) == 1:
		m, k, n, ab = float64(a[len(a)-2]), float64(a[len(a)-1]), 1, a[:len(a)-2]
	default:
		m, k, n = float64(a[len(a)-2]), float64(a[len(a)-1]), float64(b[len(b)-1])
		ab, bb = a[:len(a)-2], b[:len(b)-2]
	}
	batch, ok := broadcast(ab, bb)
	if !ok {
		return Cost{}, false
	}
	cost := gemmCost(batch, m, n, k, 0, false, e, e.bytes)
	// Operands are read as stored (a broadcast operand once), not per
	// batch.
	cost.Bytes = (prod(a)+prod(b))*float64(e.bytes) + batch*m*n*float64(e.bytes)
	return cost, true
}

// broadcast is the element count of the broadcast of two batch shapes.
func broadcast(a, b []int64) (float64, bool) {
	n := max(len(a), len(b))
	p := 1.0
	for i := 0; i < n; i++ {
		x, y := int64(1), int64(1)
		if j := len(a) - n + i; j >= 0 {
			x = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			y = b[j]
		}
		switch {
		case x == y, y == 1:
			p *= float64(x)
		case x == 1:
			p *= float64(y)
		default:
			return 0, false
		}
	}
	return p, true
}
