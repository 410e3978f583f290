package testfile

import "runtime"

// Allocated returns the bytes f allocates (the growth of TotalAlloc over
// its call), after a GC so that garbage from before is not counted as
// live. The memory-bound tests compare it against a budget or against
// the same call on a larger input.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
