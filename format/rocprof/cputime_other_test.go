//go:build !unix

package rocprof

func cpuTime() float64 { return 0 }
