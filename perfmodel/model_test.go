package perfmodel

import (
	"math"
	"testing"
)

// Every formula against a case computed by hand (the arithmetic is in the
// comment of each case); the source of each formula is cited at its
// function.
func TestModelHandComputed(t *testing.T) {
	for _, tc := range []struct {
		name, op, dims, types, concrete string
		family                          string
		flops, bytes                    float64 // -1: none
		dt                              DType
	}{
		// mm: 2·M·N·K = 2·4·5·3 = 120; bytes (4·3 + 3·5 + 4·5)·2 = 94.
		{"mm", "aten::mm", `[[4,3],[3,5]]`, `["c10::BFloat16","c10::BFloat16"]`, `["",""]`, GEMM, 120, 94, BF16},
		// addmm: 2·4·5·3 + 4·5 = 140; bytes (12+15+20)·4 + bias 5·4 = 208.
		{"addmm", "aten::addmm", `[[5],[4,3],[3,5],[],[]]`, `["float","float","float","Scalar","Scalar"]`, `["","","","1","1"]`, GEMM, 140, 208, FP32},
		// bmm: B·2·M·N·K = 2·2·4·5·3 = 240; bytes 2·(12+15+20)·2 = 188.
		{"bmm", "aten::bmm", `[[2,4,3],[2,3,5]]`, `["c10::Half","c10::Half"]`, `["",""]`, GEMM, 240, 188, FP16},
		// baddbmm: 2·(2·4·5·3 + 4·5) = 280; bytes 2·47·2 + C (2·4·5)·2 = 268.
		{"baddbmm", "aten::baddbmm", `[[2,4,5],[2,4,3],[2,3,5],[],[]]`, `["c10::Half","c10::Half","c10::Half","Scalar","Scalar"]`, `["","","","1","1"]`, GEMM, 280, 268, FP16},
		// matmul with a broadcast batch: a [2,1,4,3], b [3,3,5] → batch 2·3 = 6;
		// flops 6·2·4·5·3 = 720; bytes (24 + 45 + 6·20)·2 = 378.
		{"matmul batch", "aten::matmul", `[[2,1,4,3],[3,3,5]]`, `["c10::BFloat16","c10::BFloat16"]`, `["",""]`, GEMM, 720, 378, BF16},
		// matmul vector·matrix: a [3], b [3,5] → M=1: 2·1·5·3 = 30; bytes (3+15+5)·4 = 92.
		{"matmul vec", "aten::matmul", `[[3],[3,5]]`, `["float","float"]`, `["",""]`, GEMM, 30, 92, FP32},
		// linear: x [2,4,3] (M = 8), W [5,3], b [5]: 2·8·5·3 + 8·5 = 280;
		// bytes (8·3 + 5·3 + 8·5)·2 + 5·2 = 168.
		{"linear", "aten::linear", `[[2,4,3],[5,3],[5]]`, `["c10::BFloat16","c10::BFloat16","c10::BFloat16"]`, `["","",""]`, GEMM, 280, 168, BF16},
		// _scaled_mm: fp8 [4,3]·[3,5]: 120 FLOPs; bytes 12 + 15 + 20·2 (bf16 out) = 67.
		{"scaled_mm", "aten::_scaled_mm", `[[4,3],[3,5],[],[]]`, `["c10::Float8_e4m3fn","c10::Float8_e4m3fn","float","float"]`, `["","","",""]`, GEMM, 120, 67, FP8},
		// SDPA (B,H,N,d) = (1,2,8,4), not causal: 2·1·2·8·8·(4+4) = 2048;
		// bytes (64·3 + 64)·2 = 512.
		{"sdpa", "aten::scaled_dot_product_attention", `[[1,2,8,4],[1,2,8,4],[1,2,8,4],[],[],[],[]]`, `["c10::BFloat16","c10::BFloat16","c10::BFloat16","","Scalar","Scalar","Scalar"]`, `["","","","","0.0","False",""]`, Attention, 2048, 512, BF16},
		// flash SDPA causal (is_causal at 4): 2048 / 2 = 1024.
		{"flash causal", "aten::_scaled_dot_product_flash_attention", `[[1,2,8,4],[1,2,8,4],[1,2,8,4],[],[],[],[]]`, `["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","Scalar"]`, `["","","","0.0","True","False",""]`, Attention, 1024, 512, BF16},
		// causal with N_q=2 < N_kv=4 (top-left): kept 1+2 = 3 of 8; full
		// 2·1·1·2·4·(4+4) = 128 → 48. Bytes (8+16+16+8)·2 = 96.
		{"causal rect", "aten::_scaled_dot_product_efficient_attention", `[[1,1,2,4],[1,1,4,4],[1,1,4,4],[],[],[],[],[]]`, `["c10::Half","c10::Half","c10::Half","","Scalar","Scalar","Scalar","Scalar"]`, `["","","","","False","0.0","True",""]`, Attention, 48, 96, FP16},
		// _flash_attention_forward is (B,N,H,d): q [1,8,2,4] = H 2, N 8 → 2048 non-causal.
		{"flash fwd bnhd", "aten::_flash_attention_forward", `[[1,8,2,4],[1,8,2,4],[1,8,2,4],[],[],[],[],[],[],[],[]]`, `["c10::BFloat16","c10::BFloat16","c10::BFloat16","","","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar"]`, `["","","","","","8","8","0.0","False","False",""]`, Attention, 2048, 512, BF16},
		// conv2d via aten::convolution: x [1,2,5,5], w [3,2,3,3], stride 1,
		// pad 1 → out [1,3,5,5] = 75; flops 75·2·(2·3·3) = 2700 + bias 75 =
		// 2775; bytes (50 + 54 + 3 + 75)·4 = 728.
		{"conv", "aten::convolution", `[[1,2,5,5],[3,2,3,3],[3],[],[],[],[],[],[]]`, `["float","float","float","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"]`, `["","","","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1"]`, Conv, 2775, 728, FP32},
		// strided conv, no bias, groups 2: x [1,4,6,6], w [4,2,3,3], stride 2,
		// pad 0 → out (6-3)/2+1 = 2: [1,4,2,2] = 16; flops 16·2·18 = 576;
		// bytes (144 + 72 + 16)·2 = 464.
		{"conv strided", "aten::convolution", `[[1,4,6,6],[4,2,3,3],[],[],[],[],[],[],[]]`, `["c10::BFloat16","c10::BFloat16","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"]`, `["","","","[2, 2]","[0, 0]","[1, 1]","False","[0, 0]","2"]`, Conv, 576, 464, BF16},
		// elementwise add with broadcast: [4,8] + [8] → out 32; bytes (32+8+32)·2 = 144.
		{"add", "aten::add", `[[4,8],[8],[]]`, `["c10::BFloat16","c10::BFloat16","Scalar"]`, `["","","1"]`, Elementwise, -1, 144, BF16},
		// in-place mul_: [4,8] *= [4,8]: reads 64·4... (32+32)·4 = 256 + write 32·4 = 384.
		{"mul_", "aten::mul_", `[[4,8],[4,8]]`, `["float","float"]`, `["",""]`, Elementwise, -1, 384, FP32},
		// copy_: read [10] float, write [10] bf16: 40 + 20 = 60.
		{"copy_", "aten::copy_", `[[10],[10],[]]`, `["c10::BFloat16","float","Scalar"]`, `["","","False"]`, Elementwise, -1, 60, BF16},
		// reduction sum: reads [16,4] fp32 = 256.
		{"sum", "aten::sum", `[[16,4],[],[],[]]`, `["float","","Scalar",""]`, `["","[1]","False",""]`, Reduction, -1, 256, FP32},
		// Triton pointwise: buffers [8,16] bf16 ×2 + [16] bf16 = (128+128+16)·2 = 544.
		{"triton", "triton_poi_fused_add_0", `[[8,16],[8,16],[16],[]]`, `["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar"]`, `["","","","128"]`, Triton, -1, 544, BF16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := Model(tc.op, tc.dims, tc.types, tc.concrete)
			if !ok {
				t.Fatalf("got no model, want %s", tc.family)
			}
			if c.Family != tc.family || c.DType != tc.dt {
				t.Errorf("got family %s dtype %s, want %s %s", c.Family, c.DType, tc.family, tc.dt)
			}
			if tc.flops < 0 {
				if c.HasFLOPs {
					t.Errorf("got %g FLOPs, want none (bytes only)", c.FLOPs)
				}
			} else if !c.HasFLOPs || c.FLOPs != tc.flops {
				t.Errorf("got %g FLOPs (has %v), want %g", c.FLOPs, c.HasFLOPs, tc.flops)
			}
			if !c.HasBytes || c.Bytes != tc.bytes {
				t.Errorf("got %g bytes (has %v), want %g", c.Bytes, c.HasBytes, tc.bytes)
			}
		})
	}
}

func TestModelRefuses(t *testing.T) {
	for _, tc := range []struct{ name, op, dims, types string }{
		{"outside the families", "aten::nonzero", `[[4,8]]`, `["float"]`},
		{"no shapes", "aten::mm", ``, ``},
		{"malformed dims", "aten::mm", `[[4,3],`, `["float","float"]`},
		{"mm of a vector", "aten::mm", `[[4],[4,5]]`, `["float","float"]`},
		{"mm of a batch", "aten::mm", `[[2,4,3],[3,5]]`, `["float","float"]`},
		{"mm by a batch", "aten::mm", `[[4,3],[2,3,5]]`, `["float","float"]`},
		{"bmm of matrices", "aten::bmm", `[[4,3],[3,5]]`, `["float","float"]`},
		{"bmm of rank 4", "aten::bmm", `[[2,2,4,3],[2,2,3,5]]`, `["float","float"]`},
		{"scaled_mm of a batch", "aten::_scaled_mm", `[[2,4,3],[3,5],[],[]]`, `["c10::Float8_e4m3fn","c10::Float8_e4m3fn","float","float"]`},
		{"no dtype", "aten::mm", `[[4,3],[3,5]]`, `["",""]`},
		{"unknown dtype", "aten::mm", `[[4,3],[3,5]]`, `["c10::Mystery","c10::Mystery"]`},
		{"matmul not broadcastable", "aten::matmul", `[[2,4,3],[3,3,5]]`, `["float","float"]`},
		{"negative dim", "aten::mm", `[[-1,3],[3,5]]`, `["float","float"]`},
		{"attention of rank 3", "aten::scaled_dot_product_attention", `[[2,8,4],[2,8,4],[2,8,4]]`, `["float","float","float"]`},
		{"elementwise of scalars only", "aten::add", `[[],[]]`, `["Scalar","Scalar"]`},
		{"a template GEMM kernel", "triton_tem_fused_mm_0", `[[4,3],[3,5]]`, `["float","float"]`},
	} {
		if c, ok := Model(tc.op, tc.dims, tc.types, ""); ok {
			t.Errorf("%s: got a model %+v, want none", tc.name, c)
		}
	}
}

func TestCausalFraction(t *testing.T) {
	for _, tc := range []struct {
		nq, nkv int64
		want    float64
	}{
		{8, 8, 0.5},        // square: the benchmark's one half
		{2, 4, 3.0 / 8},    // rows keep 1, 2 of 4
		{4, 2, 7.0 / 8},    // rows keep 1, 2, 2, 2 of 2
		{1, 1000, 1 / 1e3}, // one query row keeps one key
	} {
		if got := causalFraction(tc.nq, tc.nkv); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("causalFraction(%d, %d): got %g, want %g", tc.nq, tc.nkv, got, tc.want)
		}
	}
}

func TestIntensity(t *testing.T) {
	c := Cost{FLOPs: 120, HasFLOPs: true, Bytes: 94, HasBytes: true}
	if v, ok := c.Intensity(); !ok || v != 120.0/94 {
		t.Fatalf("got %g %v, want %g", v, ok, 120.0/94)
	}
	if _, ok := (Cost{Bytes: 10, HasBytes: true}).Intensity(); ok {
		t.Fatal("bytes only: got an intensity, want none")
	}
	if v, ok := (Cost{FLOPs: 120, HasFLOPs: true, HasBytes: true}).Intensity(); ok {
		t.Fatalf("zero bytes: got intensity %g, want none (not +Inf)", v)
	}
}

func TestPeaks(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string
	}{
		{"NVIDIA H100 80GB HBM3", "H100 SXM"},
		{"NVIDIA H100 PCIe", "H100 PCIe"},
		{"NVIDIA H200", "H200"},
		{"NVIDIA B200", "B200"},
		{"NVIDIA A100-SXM4-80GB", "A100 SXM 80GB"},
		{"NVIDIA A100-SXM4-40GB", "A100 40GB"},
		{"AMD Instinct MI300X", "MI300X"},
		{"AMD Instinct MI250X/MI250", "MI250X (one GCD)"},
		{"AMD Instinct MI210", "MI210"},
	} {
		d := Lookup(tc.name)
		if d == nil || d.Name != tc.want {
			t.Errorf("Lookup(%q): got %v, want %s", tc.name, d, tc.want)
			continue
		}
		if d.Source == "" || d.TBps <= 0 || d.TFLOPS[BF16] <= 0 {
			t.Errorf("%s: got %+v, want every figure (TB/s, BF16 TFLOPS) and its source", d.Name, d)
		}
	}
	if d := Lookup("Test GPU"); d != nil {
		t.Errorf("an unknown device: got %s, want none", d.Name)
	}
	p := Override{}.Resolve("NVIDIA H100 80GB HBM3", BF16)
	if p.TFLOPS != 989.5 || p.TBps != 3.35 || p.From != "H100 SXM" {
		t.Errorf("H100 bf16: got %+v, want 989.5 TFLOP/s, 3.35 TB/s from H100 SXM", p)
	}
	p = Override{TFLOPS: 100}.Resolve("NVIDIA H100 80GB HBM3", BF16)
	if p.TFLOPS != 100 || p.TBps != 3.35 || p.From != "--peak-tflops" {
		t.Errorf("--peak-tflops 100: got %+v, want 100 TFLOP/s and the table's 3.35 TB/s", p)
	}
	mi, err := ParseDevice("mi300x")
	if err != nil || mi.Name != "MI300X" {
		t.Fatalf("ParseDevice(mi300x): got %v %v, want MI300X and no error", mi, err)
	}
	if p := (Override{Device: mi}).Resolve("NVIDIA H100 80GB HBM3", FP16); p.TFLOPS != 1307.4 || p.TBps != 5.3 {
		t.Errorf("--peak-device MI300X: got %+v, want MI300X's figures", p)
	}
	if _, err := ParseDevice("TPU v5"); err == nil {
		t.Error("an unknown --peak-device: got no error, want one")
	}
}
