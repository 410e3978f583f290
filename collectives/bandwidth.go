package collectives

// Bandwidth as nccl-tests reports it (doc/PERFORMANCE.md of
// github.com/NVIDIA/nccl-tests): the algorithm bandwidth is the message
// size over the time, algbw = S/t, and the bus bandwidth scales it by what
// each rank must move on its links for the collective on n ranks, so that
// it compares with the hardware's peak whatever the rank count:
//
//	allreduce                          busbw = algbw · 2(n−1)/n
//	allgather, reducescatter, alltoall busbw = algbw · (n−1)/n
//	broadcast, reduce, send/recv       busbw = algbw
//
// S is nccl-tests' size per type (capture.Collective.Bytes).

// BusFactor is busbw/algbw for the type on n ranks, and false for types
// nccl-tests gives no factor (barrier, gather, scatter, unknown) or n < 1.
func BusFactor(typ string, n int64) (float64, bool) {
	if n < 1 {
		return 0, false
	}
	f := float64(n)
	switch typ {
	case "allreduce":
		return 2 * (f - 1) / f, true
	case "allgather", "reducescatter", "alltoall":
		return (f - 1) / f, true
	case "broadcast", "reduce", "sendrecv", "send", "recv":
		return 1, true
	}
	return 0, false
}

// AlgBW is bytes over ns in GB/s (10⁹ bytes per second: one byte per ns);
// false when the time is not positive or the size unknown.
func AlgBW(bytes, ns int64) (float64, bool) {
	if ns <= 0 || bytes < 0 {
		return 0, false
	}
	return float64(bytes) / float64(ns), true
}

// BusBW is the bus bandwidth of a collective of the type on n ranks moving
// bytes in ns, in GB/s.
func BusBW(typ string, n, bytes, ns int64) (float64, bool) {
	alg, ok := AlgBW(bytes, ns)
	if !ok {
		return 0, false
	}
	f, ok := BusFactor(typ, n)
	if !ok {
		return 0, false
	}
	return alg * f, true
}
