package collectives

import (
	"math"
	"testing"
)

// Each formula against figures computed by hand.
func TestBusBW(t *testing.T) {
	for _, tc := range []struct {
		typ          string
		n, bytes, ns int64
		alg, bus     float64
		ok           bool
	}{
		// 1 GB in 10 ms = 100 GB/s; allreduce on 8: ×2·7/8 = 175.
		{"allreduce", 8, 1_000_000_000, 10_000_000, 100, 175, true},
		// 512 MiB in 4 ms on 4 ranks: 134.217728 GB/s, ×3/4 = 100.663296.
		{"allgather", 4, 512 << 20, 4_000_000, 134.217728, 100.663296, true},
		{"reducescatter", 2, 4_000, 1_000, 4, 2, true},
		{"alltoall", 16, 1_600, 100, 16, 15, true},
		{"broadcast", 8, 3_000, 1_000, 3, 3, true},
		{"reduce", 8, 3_000, 1_000, 3, 3, true},
		{"sendrecv", 2, 5_000, 2_000, 2.5, 2.5, true},
		// One rank: nothing crosses a link.
		{"allreduce", 1, 1_000, 1_000, 1, 0, true},
		{"barrier", 8, 0, 1_000, 0, 0, false},
		{"allreduce", 8, 1_000, 0, 0, 0, false},
		{"allreduce", 8, -1, 1_000, 0, 0, false},
		{"allreduce", 0, 1_000, 1_000, 1, 0, false},
	} {
		bus, ok := BusBW(tc.typ, tc.n, tc.bytes, tc.ns)
		if ok != tc.ok || math.Abs(bus-tc.bus) > 1e-9 {
			t.Errorf("%s n=%d %d B in %d ns: got busbw %v %v, want %v %v", tc.typ, tc.n, tc.bytes, tc.ns, bus, ok, tc.bus, tc.ok)
		}
		if alg, ok := AlgBW(tc.bytes, tc.ns); ok && math.Abs(alg-tc.alg) > 1e-9 {
			t.Errorf("%s: got algbw %v, want %v", tc.typ, alg, tc.alg)
		}
	}
}
