package decimal

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// reference is Prefix written the obvious way, on strconv.
func reference(b []byte) (v uint64, n int, overflow bool) {
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	if n == 0 {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(string(b[:n]), 10, 64)
	if err != nil {
		return 0, n, true
	}
	return v, n, false
}

var cases = []string{
	"", "x", " 1", "-1", "+1", "0", "7", "00", "007", "12 ", "123456789012 hrx",
	"1234567", "12345678", "123456789", "1234567890123456", "12345678901234567",
	"9999999999999999999",   // 19 digits
	"18446744073709551615",  // 2^64-1
	"18446744073709551616",  // 2^64
	"99999999999999999999",  // 20 nines
	"00000000000000000001",  // 20 digits, value 1
	"000000000000000000001", // 21 digits, value 1
	"184467440737095516150", // 21 digits, overflow
	"1844674407370955161x", "12345678/", "1234567:", "12345678:9",
	"\x2f\x3a", "9" + strings.Repeat("0", 40),
}

func TestPrefix(t *testing.T) {
	for _, c := range cases {
		for _, tail := range []string{"", " rest", "\n", "99"} {
			b := []byte(c + tail)
			v, n, of := Prefix(b)
			wv, wn, wof := reference(b)
			if v != wv || n != wn || of != wof {
				t.Errorf("Prefix(%q) = %d, %d, %v; want %d, %d, %v", b, v, n, of, wv, wn, wof)
			}
		}
	}
}

func TestUint(t *testing.T) {
	for _, c := range cases {
		v, ok := Uint([]byte(c))
		wv, err := strconv.ParseUint(c, 10, 64)
		// strconv accepts any number of leading zeros; Uint takes at most
		// 20 digits in all, as a field of a fixed-width trace does.
		wok := err == nil && len(c) <= MaxDigits && !strings.HasPrefix(c, "+")
		if !wok {
			wv = 0
		}
		if ok != wok || (ok && v != wv) {
			t.Errorf("Uint(%q) = %d, %v; want %d, %v", c, v, ok, wv, wok)
		}
	}
}

func TestEightDigits(t *testing.T) {
	for n := uint64(0); n < 100000000; n += 9973 {
		s := fmt.Sprintf("%08d", n)
		if got := EightDigits(binary.LittleEndian.Uint64([]byte(s))); got != n {
			t.Fatalf("EightDigits(%q) = %d, want %d", s, got, n)
		}
	}
	for _, n := range []uint64{0, 1, 7, 10, 99999999, 12345678, 87654321, 10000000, 90909090, 31415926} {
		s := fmt.Sprintf("%08d", n)
		if got := EightDigits(binary.LittleEndian.Uint64([]byte(s))); got != n {
			t.Errorf("EightDigits(%q) = %d, want %d", s, got, n)
		}
	}
}

func TestNonDigits(t *testing.T) {
	for _, c := range []struct {
		s     string
		first int // index of the first non-digit, 8 for none
	}{{"12345678", 8}, {"/2345678", 0}, {":2345678", 0}, {"1234567 ", 7}, {"12\xff45678", 2}, {"1\x00345678", 1}, {"999a9999", 3}} {
		m := NonDigits(binary.LittleEndian.Uint64([]byte(c.s)))
		got := 8
		if m != 0 {
			got = 0
			for m&0xFF == 0 {
				m >>= 8
				got++
			}
		}
		if got != c.first {
			t.Errorf("NonDigits(%q): first non-digit at %d, want %d", c.s, got, c.first)
		}
	}
}

func FuzzPrefix(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, n, of := Prefix(b)
		wv, wn, wof := reference(b)
		if v != wv || n != wn || of != wof {
			t.Fatalf("Prefix(%q) = %d, %d, %v; want %d, %d, %v", b, v, n, of, wv, wn, wof)
		}
		u, ok := Uint(b)
		wok := len(b) > 0 && len(b) <= MaxDigits && wn == len(b) && !wof
		if ok != wok || (ok && u != wv) {
			t.Fatalf("Uint(%q) = %d, %v; want %d, %v", b, u, ok, wv, wok)
		}
	})
}

func BenchmarkPrefix(b *testing.B) {
	in := []byte("912400136900 hrx debug serial: ")
	b.SetBytes(12)
	b.ReportAllocs()
	var sink uint64
	for b.Loop() {
		v, _, _ := Prefix(in)
		sink += v
	}
	_ = sink
}

func BenchmarkUint(b *testing.B) {
	in := []byte("2749560138455353201")
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	var sink uint64
	for b.Loop() {
		v, _ := Uint(in)
		sink += v
	}
	_ = sink
}

func TestInt(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"+7", 7, true}, {"-5", -5, true},
		{"9223372036854775807", math.MaxInt64, true}, {"9223372036854775808", 0, false},
		{"-9223372036854775808", math.MinInt64, true}, {"-9223372036854775809", 0, false},
		{"", 0, false}, {"-", 0, false}, {"+", 0, false}, {"--1", 0, false}, {"1-", 0, false}, {" 1", 0, false},
		{"12a", 0, false}, {"00012", 12, true},
	} {
		got, ok := Int([]byte(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("Int(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
		if ref, err := strconv.ParseInt(c.in, 10, 64); (err == nil) != ok || err == nil && ref != got {
			t.Errorf("Int(%q) = %d, %v; want strconv.ParseInt's %d, %v", c.in, got, ok, ref, err)
		}
	}
}
