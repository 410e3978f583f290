package kineto

import (
	"strconv"
	"strings"
	"testing"
)

func TestMicrosToNS(t *testing.T) {
	cases := []struct {
		tok     string
		ns      int64
		ok      bool
		rounded bool
	}{
		{"0", 0, true, false},
		{"1623142623531625", 1623142623531625000, true, false},     // generation A
		{"1712195495519689.047", 1712195495519689047, true, false}, // generation B: 19 digits
		{"1428625731622.250", 1428625731622250, true, false},       // generation C
		{"6520618853994.64", 6520618853994640, true, false},        // Python drops trailing zeros
		{"68.0", 68000, true, false},
		{"-1.5", -1500, true, false},
		{"1e3", 1000000, true, false},
		{"1e-05", 0, true, true}, // 0.01 ns
		{"1e-2", 10, true, false},
		{"1.5E+2", 150000, true, false},
		{"0.0005", 0, true, true},  // half to even: 0.5 ns → 0
		{"0.0015", 2, true, true},  // 1.5 → 2
		{"0.0025", 2, true, true},  // 2.5 → 2
		{"0.00251", 3, true, true}, // above half
		{"3000.0000005", 3000000, true, true},
		{"1e-400", 0, true, true},
		{"9223372036854775.807", 9223372036854775807, true, false}, // max int64 ns
		{"9223372036854775.808", 0, false, false},
		{"-9223372036854775.808", -9223372036854775808, true, false},
		{"1e400", 0, false, false},
		{"12345678901234567890", 0, false, false},
		{"", 0, false, false},
		{"-", 0, false, false},
		{"1.", 0, false, false},
		{".5", 0, false, false},
		{"01", 0, false, false},
		{"1e", 0, false, false},
		{"1x", 0, false, false},
	}
	for _, c := range cases {
		ns, fl, ok := microsToNS([]byte(c.tok))
		if ok != c.ok || (ok && ns != c.ns) || (ok && (fl&numRounded != 0) != c.rounded) {
			t.Errorf("microsToNS(%q) = %d, %v, rounded %v; want %d, %v, %v", c.tok, ns, ok, fl&numRounded != 0, c.ns, c.ok, c.rounded)
		}
		// The fused scanner path must agree wherever it answers.
		s := newScanner(strings.NewReader(c.tok+","), 64)
		s.more(0)
		if fns, _, fok := micros(s.buf[:s.end], &s.pos, false); fok && (c.ok && fns != c.ns || !c.ok && s.pos == len(c.tok)) {
			t.Errorf("micros(%q, buffered) = %d, want %d (ok %v)", c.tok, fns, c.ns, c.ok)
		}
	}
}

func TestParseIntegers(t *testing.T) {
	ints := map[string]int64{"7": 7, "-3": -3, "7.0": 7, "7e0": 7, "70e-1": 7, "9223372036854775807": 9223372036854775807}
	for tok, want := range ints {
		if v, ok := parseInt([]byte(tok)); !ok || v != want {
			t.Errorf("parseInt(%q) = %d, %v; want %d, true", tok, v, ok, want)
		}
	}
	for _, tok := range []string{"7.5", "9223372036854775808", "", "x", "007", "1e19"} {
		if v, ok := parseInt([]byte(tok)); ok {
			t.Errorf("parseInt(%q) = %d, want failure", tok, v)
		}
	}
	if v, ok := parseUint([]byte("18446744073709551615")); !ok || v != 18446744073709551615 {
		t.Errorf("parseUint max = %d, %v; want 18446744073709551615, true", v, ok)
	}
	for _, tok := range []string{"18446744073709551616", "-1", "1.5"} {
		if v, ok := parseUint([]byte(tok)); ok {
			t.Errorf("parseUint(%q) = %d, want failure", tok, v)
		}
	}
	if v, ok := parseUint([]byte("-0")); !ok || v != 0 {
		t.Errorf("parseUint(-0) = %d, %v; want 0, true", v, ok)
	}
}

func TestStripStep(t *testing.T) {
	cases := map[string][2]any{
		"ProfilerStep#550":        {"ProfilerStep", int64(550)},
		"Optimizer.step#SGD.step": {"Optimizer.step#SGD.step", int64(0)},
		"## forward ##":           {"## forward ##", int64(0)},
		"#5":                      {"#5", int64(0)},
		"layer#":                  {"layer#", int64(0)},
	}
	for in, want := range cases {
		base, n, _ := stripStep(in)
		if base != want[0] || n != want[1] {
			t.Errorf("stripStep(%q) = %q, %d; want %q, %v", in, base, n, want[0], want[1])
		}
	}
}

func TestBaseCallName(t *testing.T) {
	for in, want := range map[string]string{"cudaLaunchKernel_v7000": "cudaLaunchKernel", "cudaMemcpyAsync_ptsz": "cudaMemcpyAsync", "cudaGraphLaunch_v10000_ptsz": "cudaGraphLaunch", "cuda_x": "cuda_x"} {
		if got := baseCallName(in); got != want {
			t.Errorf("baseCallName(%q) = %q, want %q", in, got, want)
		}
	}
	if k := classifyCall("hipGraphLaunch"); !k.graph || !k.launch {
		t.Errorf("classifyCall(hipGraphLaunch) = %+v, want graph and launch", k)
	}
	if k := classifyCall("cudaEventQuery"); k.launch {
		t.Errorf("classifyCall(cudaEventQuery) = %+v, want no launch", k)
	}
}

// TestIntFast checks the fused integer scan, eight bytes at a time for
// short ids, against strconv for every length, sign, leading zero,
// terminator and buffer end.
func TestIntFast(t *testing.T) {
	for n := 0; n <= 20; n++ {
		for _, lead := range []string{"", "-", "0", "-0"} {
			digits := lead + strings.Repeat("7", n)
			if n > 1 {
				digits = lead + "1" + strings.Repeat("0", n-2) + "9"
			}
			for _, term := range []string{",", "}", " ", "\n", ".5", "e3", "5", ""} {
				for pad := 0; pad < 10; pad++ {
					buf := []byte(digits + term + strings.Repeat("]", pad))
					s := &scanner{buf: buf, end: len(buf)}
					v, ok := s.intFast()
					// The reference: the leading [-]digits of buf.
					k := 0
					if k < len(buf) && buf[k] == '-' {
						k++
					}
					d := k
					for d < len(buf) && isDigit(buf[d]) {
						d++
					}
					tok, body := string(buf[:d]), string(buf[k:d])
					want, err := strconv.ParseInt(tok, 10, 64)
					wantOK := err == nil && body != "" && len(body) <= 18 && (body[0] != '0' || len(body) == 1) &&
						d < len(buf) && !numChar[buf[d]]
					if ok != wantOK || ok && (v != want || s.pos != d) {
						t.Fatalf("%q: %d %v (pos %d), want %d %v", buf, v, ok, s.pos, want, wantOK)
					}
					if !ok && s.pos != 0 {
						t.Fatalf("%q: got %d bytes consumed on failure, want 0", buf, s.pos)
					}
				}
			}
		}
	}
}
