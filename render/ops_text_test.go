package render

import "testing"

// The op label gives way kernel first, then name; the graph tag stays.
func TestOpLabelFit(t *testing.T) {
	for _, c := range []struct {
		l    opText
		w    int
		want string
	}{
		{opText{name: "aten::mm", kernel: "gemm", more: " (+1)"}, 0, "aten::mm → gemm (+1)"},
		{opText{name: "aten::mm", kernel: "sm90_xmma_gemm_bf16bf16_bf16f32", more: " (+1)"}, 32, "aten::mm → sm90_xmma_gemm_… (+1)"},
		{opText{name: "execute_32_context_0(sq0sk0sqsq0sqsk0)", tag: " [1 graph launch]", kernel: "k"}, 40, "execute_32_context_0(s… [1 graph launch]"},
		{opText{name: "aten::_flash_attention_forward", kernel: "flash_fwd_kernel"}, 30, "aten::_flash_attention_forward"},
	} {
		if got := c.l.fit(c.w); got != c.want || (c.w > 0 && runes(got) > c.w) {
			t.Errorf("fit(%+v, %d): got %q, want %q", c.l, c.w, got, c.want)
		}
	}
}
