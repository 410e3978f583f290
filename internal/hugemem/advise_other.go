//go:build !linux

package hugemem

// Advise: huge pages are asked for on Linux only.
func Advise[T any]([]T) {}
