package perfmodel

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// Shapes and parameters as a corrupted or hostile trace writes them (the
// third sweep): no model, never a wrapped product or an Inf — an Inf FLOP
// count made the JSON report fail ("json: unsupported value: +Inf") and
// the text print "+Inf%" of roof.
func TestModelRefusesGarbageShapes(t *testing.T) {
	const max = "9223372036854775807"
	conv := func(x, w, stride, pad, dil, transposed, outPad string) (string, string, string) {
		return `[` + x + `,` + w + `,[],[],[],[],[],[],[]]`,
			`["float","float","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"]`,
			`["","","","` + stride + `","` + pad + `","` + dil + `","` + transposed + `","` + outPad + `","1"]`
	}
	type tc struct{ name, op, dims, types, concrete string }
	cases := []tc{
		{"mm of int64-max dims", "aten::mm", `[[` + max + `,` + max + `],[` + max + `,` + max + `]]`, `["float","float"]`, `["",""]`},
		{"mm with 2^80 elements", "aten::mm", `[[1099511627776,1099511627776],[1099511627776,4]]`, `["float","float"]`, `["",""]`},
		{"add with 2^1240 elements", "aten::add", `[` + strings.Repeat(`[4611686018427387904],`, 0) + `[` + strings.TrimSuffix(strings.Repeat("4611686018427387904,", 20), ",") + `],[2]]`, `["float","float"]`, `["",""]`},
		{"add with a negative dim", "aten::add", `[[-4,8],[8],[]]`, `["float","float","Scalar"]`, `["","","1"]`},
		{"triton kernel with a buffer of 2^80 elements", "triton_poi_fused_0", `[[1099511627776,1099511627776],[8]]`, `["float","float"]`, `["",""]`},
		{"attention of 2^60-long sequences", "aten::_scaled_dot_product_flash_attention",
			`[[1,1,1152921504606846976,1152921504606846976],[1,1,1152921504606846976,1152921504606846976],[1,1,1152921504606846976,1152921504606846976]]`,
			`["c10::BFloat16","c10::BFloat16","c10::BFloat16"]`, `["","","","","True"]`},
	}
	for _, c := range []struct{ name, stride, pad, dil, transposed, outPad, x string }{
		{"conv with dilation -5", "[1, 1]", "[0, 0]", "[-5, -5]", "False", "[0, 0]", "[1,3,100,100]"},
		{"conv with stride -1", "[-1, -1]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "[1,3,100,100]"},
		{"conv with padding -1", "[1, 1]", "[-1, -1]", "[1, 1]", "False", "[0, 0]", "[1,3,100,100]"},
		{"transposed conv whose stride wraps int64", "[4611686018427387904, 1]", "[0, 0]", "[1, 1]", "True", "[0, 0]", "[1,3,100,100]"},
		{"transposed conv with output padding -3", "[1, 1]", "[0, 0]", "[1, 1]", "True", "[-3, -3]", "[1,3,100,100]"},
		{"conv whose kernel is wider than the input", "[2, 2]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "[1,3,2,2]"},
		{"conv whose padding doubles past int64", "[1, 1]", "[" + max + ", 0]", "[1, 1]", "False", "[0, 0]", "[1,3,100,100]"},
	} {
		d, ty, co := conv(c.x, "[8,3,4,4]", c.stride, c.pad, c.dil, c.transposed, c.outPad)
		cases = append(cases, tc{c.name, "aten::convolution", d, ty, co})
	}
	for _, c := range cases {
		if got, ok := Model(c.op, c.dims, c.types, c.concrete); ok {
			t.Errorf("%s: got a model (%g FLOPs, %g bytes, %s), want none", c.name, got.FLOPs, got.Bytes, got.Params)
		}
	}
}

// Whatever the dims, a model's figures are finite and not negative: every
// family over dims from 0 to MaxInt64.
func TestModelFiguresFinite(t *testing.T) {
	ops := []string{"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear", "aten::_scaled_mm",
		"aten::scaled_dot_product_attention", "aten::_flash_attention_forward", "aten::convolution", "aten::conv2d",
		"aten::add", "aten::mul_", "aten::copy_", "aten::sum", "triton_poi_fused_0"}
	dims := []int64{0, 1, 3, 1 << 31, 1 << 62, math.MaxInt64}
	for _, op := range ops {
		for _, a := range dims {
			for _, b := range dims {
				for rank := 2; rank <= 4; rank++ {
					sh := make([]string, rank)
					for i := range sh {
						sh[i] = fmt.Sprint(a)
						if i%2 == 1 {
							sh[i] = fmt.Sprint(b)
						}
					}
					s := "[" + strings.Join(sh, ",") + "]"
					ds := "[" + s + "," + s + "," + s + ",[],[],[],[],[],[]]"
					ty := `["float","float","float","","","","","",""]`
					c, ok := Model(op, ds, ty, "")
					if ok && !finite(c) {
						t.Errorf("%s %s: got %g FLOPs, %g bytes, want finite figures or no model", op, ds, c.FLOPs, c.Bytes)
					}
				}
			}
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1} {
		if finite(Cost{FLOPs: v}) || finite(Cost{Bytes: v}) {
			t.Errorf("finite with %g: got true, want false", v)
		}
	}
}
