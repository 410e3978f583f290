// Package hugemem asks for transparent huge pages under large buffers of
// records that are filled once and soon.
//
// Why: every first touch of a 4 KiB page is a fault, and on a virtual
// machine a fault costs 10 to 20 µs: the breakdown's record buffer took
// 3,700 of them on a 300 MB hrx trace, and the Kineto dispatch log and
// launch-call ring 3,300 on a 200 MB trace, an eighth to a sixth of its read. A 2 MiB
// huge page is one fault. The advice is a hint: where transparent huge
// pages are off, on another OS, or on an error, 4 KiB pages stay. The
// memory stays ordinary Go memory, collected as any other.
package hugemem

// PageSize is the huge page size the advised range is rounded out to
// (x86-64, and arm64 with 4 KiB base pages).
const PageSize = 2 << 20

// Make returns a slice of n zeroed T whose memory is advised for huge
// pages. A large allocation is fresh memory, untouched until used, so the
// advice comes before its first fault.
func Make[T any](n int) []T {
	s := make([]T, n)
	Advise(s)
	return s
}
