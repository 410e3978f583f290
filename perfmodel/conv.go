package perfmodel

import "fmt"

// convArgs are the positions of a convolution op's parameters among its
// recorded inputs; -1 when the op has none (its default applies).
type convArgs struct {
	stride, padding, dilation, transposed, outPad, groups, bias int
}

// conv models a forward convolution: the output's spatial size is
// ⌊(in + 2·pad − dil·(k−1) − 1)/stride⌋ + 1 (PyTorch docs, torch.nn.Conv2d,
// "Shape"), or (in−1)·stride − 2·pad + dil·(k−1) + out_pad + 1 when
// transposed (torch.nn.ConvTranspose2d); each output element takes
// 2·(C_in/groups)·∏k FLOPs — the weight's shape after its first dim — plus
// one for the bias; a transposed convolution does that work per input
// element. Bytes: input, weight, bias and output once. The same formula as
// TraceLens (PerfModel/perf_model.py, CONV.flops_func and bytes_func).
func conv(c *call, p convArgs) (Cost, bool) {
	x, ok1 := c.shape(0, 3)
	w, ok2 := c.shape(1, 3)
	e, ok3 := c.elem(0)
	if !ok1 || !ok2 || !ok3 || len(x) != len(w) {
		return Cost{}, false
	}
	nd := len(x) - 2
	ones, zeros := fill(nd, 1), fill(nd, 0)
	stride, okS := p.ints(c, p.stride, ones, nd)
	pad, okP := p.ints(c, p.padding, zeros, nd)
	dil, okD := p.ints(c, p.dilation, ones, nd)
	outPad, okO := p.ints(c, p.outPad, zeros, nd)
	if !okS || !okP || !okD || !okO {
		return Cost{}, false
	}
	transposed := false
	if p.transposed >= 0 {
		transposed, _ = c.boolAt(p.transposed)
	}
	outC := w[0]
	if transposed {
		g := int64(1)
		if p.groups >= 0 {
			if gs, ok := c.intsAt(p.groups, []int64{1}); ok && len(gs) == 1 && gs[0] > 0 {
				g = gs[0]
			}
		}
		outC = w[1] * g
	}
	out := []int64{x[0], outC}
	for i := 0; i < nd; i++ {
		o, ok := convOut(x[2+i], w[2+i], stride[i], pad[i], dil[i], outPad[i], transposed)
		if !ok {
			return Cost{}, false
		}
		out = append(out, o)
	}
	if _, ok := elems(out); !ok {
		return Cost{}, false
	}
	perElem := 2 * prod(w[1:])
	f := prod(out) * perElem
	if transposed {
		f = prod(x) * perElem
	}
	bias := false
	if p.bias >= 0 {
		if s, ok := c.shape(p.bias, 1); ok && c.isTensor(p.bias) && len(s) > 0 {
			bias = true
		}
	}
	by := prod(x) + prod(w) + prod(out)
	if bias {
		f += prod(out)
		by += float64(outC)
	}
	return Cost{Family: Conv, FLOPs: f, HasFLOPs: true, Bytes: by * float64(e.bytes), HasBytes: true, DType: e.dt,
		Params: fmt.Sprintf("x=%v w=%v out=%v", x, w, out)}, true
}

// convOut is one spatial dim of the output, false when the parameters are
// none PyTorch accepts (stride and dilation above 0, padding and output
// padding not negative) or the size is not a positive int64: the int64
// arithmetic of a garbage parameter wrapped, and gave a model, before.
func convOut(in, k, stride, pad, dil, outPad int64, transposed bool) (int64, bool) {
	if stride <= 0 || dil <= 0 || pad < 0 || outPad < 0 || k <= 0 {
		return 0, false
	}
	pad2, ok1 := mulInt(2, pad)
	span, ok2 := mulInt(dil, k-1)
	if !ok1 || !ok2 {
		return 0, false
	}
	var o int64
	if transposed {
		// (in−1)·stride − 2·pad + dil·(k−1) + out_pad + 1
		if in < 1 {
			return 0, false
		}
		st, ok := mulInt(in-1, stride)
		if !ok {
			return 0, false
		}
		if o, ok = sumInt(st, -pad2, span, outPad, 1); !ok {
			return 0, false
		}
	} else {
		// ⌊(in + 2·pad − dil·(k−1) − 1) / stride⌋ + 1
		n, ok := sumInt(in, pad2, -span, -1)
		if !ok || n < 0 {
			return 0, false
		}
		o = n/stride + 1
	}
	return o, o > 0
}

// ints reads parameter i as nd ints (a single value broadcasts).
func (p convArgs) ints(c *call, i int, def []int64, nd int) ([]int64, bool) {
	if i < 0 {
		return def, true
	}
	v, ok := c.intsAt(i, def)
	if !ok {
		return nil, false
	}
	if len(v) == 1 && nd > 1 {
		v = fill(nd, v[0])
	}
	return v, len(v) == nd
}

func fill(n int, v int64) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = v
	}
	return s
}
