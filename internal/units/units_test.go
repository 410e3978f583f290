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

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n          int64
		unit, want string
	}{
		{1, "lines", "1 line"}, {2, "lines", "2 lines"}, {0, "lines", "0 lines"},
		{1, "API lines", "1 API line"}, {1, "compressed bytes", "1 compressed byte"}, {1, "inputs", "1 input"},
		// Left alone: the plural is not the last word, or it is no plural.
		{1, "phase and upload records", "1 phase and upload records"},
		{1, "other files in dispatch dirs", "1 other files in dispatch dirs"},
		{1, "ns", "1 ns"}, {1, "class", "1 class"},
	} {
		if got := Count(c.n, c.unit); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.unit, got, c.want)
		}
	}
}
