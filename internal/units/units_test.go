package units

import "testing"

func TestNS(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{820, "820 ns"}, {820.5, "820.5 ns"}, {84700, "84.700 µs"}, {24e6, "24.000 ms"}, {3.5e9, "3.500 s"}, {-2e6, "-2.000 ms"}} {
		if got := NS(c.v); got != c.want {
			t.Errorf("NS(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0 runs"}, {1, "1 run"}, {2, "2 runs"}, {-1, "-1 runs"}} {
		if got := Plural(c.n, "run", "runs"); got != c.want {
			t.Errorf("Plural(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
