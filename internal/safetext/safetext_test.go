package safetext

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"gemm_f32", "gemm_f32"},
		{"void at::native::elementwise<float>(int, T*)", "void at::native::elementwise<float>(int, T*)"},
		{"µs · 行列 ✓", "µs · 行列 ✓"},               // printable non-ASCII is kept
		{`C:\traces\a.json`, `C:\traces\a.json`}, // a backslash is kept
		{"a\nb", `a\nb`},
		{"a\r\tb", `a\r\tb`},
		{"\x1b[8mhidden\x1b[0m", `\x1b[8mhidden\x1b[0m`},
		{"\x00\x07\x08\x1f\x7f", `\x00\x07\x08\x1f\x7f`},
		{"x\u009b31m", `x\u009b31m`}, // C1 CSI
		{"\u0085next", `\u0085next`}, // C1 NEL
		{"a\u2028b\u2029", `a\u2028b\u2029`},
		{"\u202egnp.exe", `\u202egnp.exe`},
		{"\u2066x\u2069", `\u2066x\u2069`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
		{"\xe2\x80", `\xe2\x80`},     // a cut rune: each byte
		{"\u00a0nbsp", "\u00a0nbsp"}, // U+00A0 is printable (past C1)
	} {
		got := Escape(c.in)
		if got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
		if again := Escape(got); again != got {
			t.Errorf("Escape(Escape(%q)) = %q, want %q (escaping twice changes nothing)", c.in, again, got)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Escape(%q) = %q, want valid UTF-8", c.in, got)
		}
	}
}

// TestEscapeNoControls: whatever the input, the output holds no byte a
// terminal acts on.
func TestEscapeNoControls(t *testing.T) {
	var all strings.Builder
	for c := 0; c < 256; c++ {
		all.WriteByte(byte(c))
	}
	for r := rune(0x80); r < 0x3000; r++ {
		all.WriteRune(r)
	}
	got := Escape(all.String())
	if i := strings.IndexFunc(got, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) }); i >= 0 {
		t.Fatalf("Escape left a control at byte %d: %q, want none", i, got[i:i+1])
	}
	if !utf8.ValidString(got) {
		t.Fatal("Escape output is not valid UTF-8, want valid")
	}
}

func TestEscapeUnchangedDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("ampere_sgemm_128x64_nn µ ", 40)
	if n := testing.AllocsPerRun(100, func() { _ = Escape(s) }); n != 0 {
		t.Errorf("Escape of a clean string allocated %v times, want 0", n)
	}
}

type kind string

func TestArgs(t *testing.T) {
	err := errors.New("bad\nline")
	args := []any{"a\x1bb", 3, []byte("c\nd"), err, kind("k\te"), 2.5, nil, "clean"}
	got := Args(args)
	want := []any{`a\x1bb`, 3, `c\nd`, `bad\nline`, `k\te`, 2.5, nil, "clean"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Args[%d] = %#v, want %#v", i, got[i], want[i])
		}
	}
	if args[0] != "a\x1bb" {
		t.Errorf("Args changed its argument slice: args[0] = %q, want the original", args[0])
	}
	clean := []any{"x", 1}
	if out := Args(clean); &out[0] != &clean[0] {
		t.Error("Args copied arguments that needed no escaping, want the same slice")
	}
}

func TestFprintf(t *testing.T) {
	var b strings.Builder
	Fprintf(&b, "kernel %s\t%d\n", "k\nCOMPLETE: forged", 7)
	if want := "kernel k\\nCOMPLETE: forged\t7\n"; b.String() != want {
		t.Errorf("Fprintf wrote %q, want %q", b.String(), want)
	}
}
