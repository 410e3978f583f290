package kineto

import (
	"math/rand"
	"testing"
)

// TestSkipDigits checks the eight-at-a-time digit run against a byte loop:
// every byte value in every position, after runs of every length.
func TestSkipDigits(t *testing.T) {
	want := func(b []byte, p int) int {
		for p < len(b) && isDigit(b[p]) {
			p++
		}
		return p
	}
	for n := 0; n <= 17; n++ {
		for c := 0; c < 256; c++ {
			for tail := 0; tail <= 9; tail++ {
				b := make([]byte, 0, n+1+tail)
				for i := 0; i < n; i++ {
					b = append(b, byte('0'+i%10))
				}
				b = append(b, byte(c))
				for i := 0; i < tail; i++ {
					b = append(b, '7')
				}
				if got, w := skipDigits(b, 0), want(b, 0); got != w {
					t.Fatalf("%q: %d, want %d", b, got, w)
				}
			}
		}
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 100000; i++ {
		b := make([]byte, rng.Intn(24))
		for k := range b {
			if rng.Intn(4) == 0 {
				b[k] = byte(rng.Intn(256))
			} else {
				b[k] = byte('0' + rng.Intn(10))
			}
		}
		p := 0
		if len(b) > 0 {
			p = rng.Intn(len(b) + 1)
		}
		if got, w := skipDigits(b, p), want(b, p); got != w {
			t.Fatalf("%q from %d: %d, want %d", b, p, got, w)
		}
	}
}
