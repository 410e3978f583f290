//go:build !linux

package analysis

// adviseHuge: huge pages are asked for on Linux only.
func adviseHuge[T any]([]T) {}
