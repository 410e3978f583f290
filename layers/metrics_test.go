package layers

import (
	"encoding/binary"
	"math"
	"testing"
)

func f32Bytes(v ...float64) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
	}
	return b
}

// The largest difference is the largest over every accumulator lane and
// the tail of a row whose length is no multiple of the step, on both the
// float32 and the decoded path.
func TestMaxAbsDiffEveryLane(t *testing.T) {
	zeros := []float64{0, 0, 0, 0, 0}
	for _, c := range []struct {
		name string
		y    []float64
		want float64
	}{
		{"first lane", []float64{5, 1, 1, 1, 0}, 5},
		{"middle lane", []float64{1, 6, 1, 1, 0}, 6},
		{"tail", []float64{1, 1, 1, 1, 7}, 7},
	} {
		if got := sumsF32(f32Bytes(zeros...), f32Bytes(c.y...)).maxd; got != c.want {
			t.Errorf("float32, %s: got max diff %v, want %v", c.name, got, c.want)
		}
		if got := sumsOf(zeros, c.y).maxd; got != c.want {
			t.Errorf("decoded, %s: got max diff %v, want %v", c.name, got, c.want)
		}
	}
}

// Two all-zero tensors agree (cosine 1); zero against non-zero does not
// (cosine 0).
func TestCosineOfZeros(t *testing.T) {
	for _, c := range []struct {
		na, nb, want float64
	}{
		{0, 0, 1},
		{0, 4, 0},
		{4, 0, 0},
	} {
		if got := cosine(0, c.na, c.nb); got != c.want {
			t.Errorf("cosine(0, %v, %v): got %v, want %v", c.na, c.nb, got, c.want)
		}
	}
}

// Row 0's mean is not stated when its finite values sum past the largest
// float (the engine's figure would be Inf too).
func TestRow0SumOverflows(t *testing.T) {
	mean, absmax, nan, inf := row0([]float64{math.MaxFloat64, math.MaxFloat64})
	if mean != nil || absmax != nil || nan != 0 || inf != 0 {
		t.Errorf("got mean %v, max %v, %d NaN, %d Inf; want no mean, no max, 0, 0", mean, absmax, nan, inf)
	}
}

// Relative L2 of an all-zero reference: 0 when ours is all zero too,
// undefined (nil) otherwise.
func TestRelL2OfZeroReference(t *testing.T) {
	for _, c := range []struct {
		ours    float64
		wantNil bool
	}{
		{0, false},
		{1, true},
	} {
		ref, ours := t.TempDir(), t.TempDir()
		writeF32(t, ref, 0, tm, th, func(r, col int) float64 { return 0 })
		writeF32(t, ours, 0, tm, th, func(r, col int) float64 { return c.ours })
		m := byLayer(run(t, ref, ours, Options{Hidden: th}), 0).Metrics
		if (m.RelL2 == nil) != c.wantNil || m.RelL2 != nil && *m.RelL2 != 0 {
			t.Errorf("ours %v: got rel L2 %v, want nil %v (else 0)", c.ours, m.RelL2, c.wantNil)
		}
	}
}
