//go:build linux

package hugemem

import (
	"runtime/debug"
	"syscall"
	"testing"
)

// BenchmarkFill fills 16 MiB of records fresh from the OS, advised for
// huge pages or not, and reports the page faults it took per MiB.
//
//	go test -run '^$' -bench Fill ./internal/hugemem/
func BenchmarkFill(b *testing.B) {
	const n = 16 << 20 / 16 // records of 16 bytes
	for _, bc := range []struct {
		name string
		make func(int) []rec16
	}{
		{"plain", func(n int) []rec16 { return make([]rec16, n) }},
		{"huge", Make[rec16]},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var faults int64
			for b.Loop() {
				b.StopTimer()
				debug.FreeOSMemory() // every round fills memory fresh from the OS
				b.StartTimer()
				var before, after syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &before)
				s := bc.make(n)
				for i := range s {
					s[i].a = int64(i)
				}
				syscall.Getrusage(syscall.RUSAGE_SELF, &after)
				faults += after.Minflt - before.Minflt
			}
			b.ReportMetric(float64(faults)/float64(b.N)/16, "faults/MiB")
			b.SetBytes(16 << 20)
		})
	}
}

type rec16 struct{ a, b int64 }
