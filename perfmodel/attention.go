package perfmodel

import "fmt"

// Layouts of the attention ops' q, k, v: (batch, heads, seq, head dim) for
// the scaled_dot_product_attention family, (batch, seq, heads, head dim)
// for the flash/efficient kernels' own entry points.
type layout [4]int // indexes of B, H, N, d

var (
	bhnd = layout{0, 1, 2, 3}
	bnhd = layout{0, 2, 1, 3}
)

// causalFn reads whether a call is causal; ok false when not recorded.
type causalFn func(c *call) (causal, ok bool)

func causalBool(i int) causalFn {
	return func(c *call) (bool, bool) { return c.boolAt(i) }
}

// causalMaskType reads aten::_efficient_attention_forward's
// custom_mask_type: 0 none, 1 causal from the top left, 2 from the bottom
// right.
func causalMaskType(i int) causalFn {
	return func(c *call) (bool, bool) {
		switch c.concreteAt(i) {
		case "0":
			return false, true
		case "1", "2":
			return true, true
		}
		return false, false
	}
}

// attention models one forward attention call: S = Q·Kᵀ and O = P·V are
// two GEMMs of 2·N_q·N_kv·d FLOPs per head (softmax left out: d times
// smaller), halved when causal — the formula of FlashAttention's benchmark
// (Dao-AILab/flash-attention, benchmarks/benchmark_flash_attention.py,
// flops()) that TraceLens uses too (PerfModel/perf_model.py, SDPA.flops_func).
// When causal with N_q ≠ N_kv, the kept fraction is that of PyTorch's
// top-left causal mask (torch.nn.functional.scaled_dot_product_attention
// docs: tril over L×S). Bytes: Q, K and V read and O written once.
func attention(c *call, l layout, causal causalFn) (Cost, bool) {
	q, ok1 := c.shape(0, 4)
	k, ok2 := c.shape(1, 4)
	v, ok3 := c.shape(2, 4)
	e, ok4 := c.elem(0)
	if !ok1 || !ok2 || !ok3 || !ok4 || len(q) != 4 || len(k) != 4 || len(v) != 4 {
		return Cost{}, false
	}
	isCausal, known := causal(c)
	if !known {
		isCausal = false // the default of every variant
	}
	b, hq, nq, dqk := float64(q[l[0]]), float64(q[l[1]]), float64(q[l[2]]), float64(q[l[3]])
	nkv, dv := float64(k[l[2]]), float64(v[l[3]])
	f := b * hq * 2 * nq * nkv * (dqk + dv)
	frac := 1.0
	if isCausal {
		frac = causalFraction(int64(nq), int64(nkv))
	}
	f *= frac
	by := (prod(q) + prod(k) + prod(v) + b*hq*nq*dv) * float64(e.bytes)
	cz := ""
	if isCausal {
		cz = " causal"
	}
	return Cost{Family: Attention, FLOPs: f, HasFLOPs: true, Bytes: by, HasBytes: true, DType: e.dt,
		Params: fmt.Sprintf("B=%s H=%s Nq=%s Nkv=%s d=%s%s", num(b), num(hq), num(nq), num(nkv), num(dqk), cz)}, true
}

// causalFraction is the share of the N_q×N_kv scores a causal mask keeps:
// one half for a square mask (the FlashAttention benchmark's convention),
// Σ min(i+1, N_kv) / (N_q·N_kv) for PyTorch's top-left mask otherwise.
func causalFraction(nq, nkv int64) float64 {
	if nq == nkv || nq <= 0 || nkv <= 0 {
		return 0.5
	}
	var kept float64
	full := min(nq, nkv)
	// Rows 0..full-1 keep i+1 each; the rest keep all N_kv.
	kept = float64(full) * float64(full+1) / 2
	if nq > nkv {
		kept += float64(nq-nkv) * float64(nkv)
	}
	return kept / (float64(nq) * float64(nkv))
}
