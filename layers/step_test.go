package layers

import (
	"math"
	"testing"
)

func TestStepRule(t *testing.T) {
	lin := func(n int, f func(int) float64) []point {
		var p []point
		for i := 0; i < n; i++ {
			p = append(p, point{int64(i), f(i)})
		}
		return p
	}
	// Smooth drift, linear or geometric, and a noisy plateau: no step.
	for name, pts := range map[string][]point{
		"linear":    lin(48, func(i int) float64 { return 0.002 * float64(i) }),
		"geometric": lin(48, func(i int) float64 { return 0.001 * math.Pow(1.15, float64(i)) }),
		"quantised": lin(48, func(i int) float64 { return 0.05 + 0.004*float64(i%3) }),
		"improving": lin(10, func(i int) float64 { return 0.5 - 0.04*float64(i) }),
	} {
		if s := findStep(pts); s != nil {
			t.Errorf("%s drift: got a step at %d, want none", name, s.Layer)
		}
	}
	// A step at layer 17 on top of a drift.
	pts := lin(48, func(i int) float64 {
		e := 0.001 * float64(i)
		if i >= 17 {
			e += 0.2
		}
		return e
	})
	s := findStep(pts)
	if s == nil || s.Layer != 17 || s.PreviousLayer != 16 {
		t.Fatalf("got step %+v, want one at layer 17 after 16", s)
	}
	// The first layer's error is a baseline (a quantised engine starts off).
	if s := findStep(lin(5, func(i int) float64 { return 0.3 })); s != nil {
		t.Fatal("a constant error: got a step, want none")
	}
	if s := findStep(lin(2, func(i int) float64 { return float64(i) })); s != nil {
		t.Fatal("got a step named without two layers of history, want none")
	}
}
