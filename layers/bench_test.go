package layers

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkCompare48x512x4096 compares 48 layers of 512×4096 float32 per
// side (402 MB each), generated into a temporary directory (the page cache
// holds them, so this measures tally, not the disk). MB/s is per side, in
// wall time; MB/cpu-s per side per CPU second:
//
//	go test ./layers -run XXX -bench Compare -benchtime 3x
func BenchmarkCompare48x512x4096(b *testing.B) {
	const layers, m, h = 48, 512, 4096
	ref, ours := b.TempDir(), b.TempDir()
	seed := uint64(1)
	for l := 0; l < layers; l++ {
		rf, of := create(b, ref, l), create(b, ours, l)
		rw, ow := bufio.NewWriterSize(rf, 1<<20), bufio.NewWriterSize(of, 1<<20)
		var buf [4]byte
		for i := 0; i < m*h; i++ {
			seed = seed*6364136223846793005 + 1442695040888963407 // PCG's LCG step
			v := float32(int32(seed>>32)) / (1 << 31)
			binary.LittleEndian.PutUint32(buf[:], math.Float32bits(v))
			rw.Write(buf[:])
			binary.LittleEndian.PutUint32(buf[:], math.Float32bits(v*(1+float32(l)*1e-4)))
			ow.Write(buf[:])
		}
		for _, c := range []func() error{rw.Flush, ow.Flush, rf.Close, of.Close} {
			if err := c(); err != nil {
				b.Fatal(err)
			}
		}
	}
	const perSide = layers * m * h * 4
	b.SetBytes(perSide)
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		rep, err := Run(ref, ours, Options{Hidden: h})
		if err != nil || rep.Totals.Compared != layers {
			b.Fatal(err, rep.Totals)
		}
	}
	// On a shared machine wall time measures the neighbours too; the CPU
	// time this process spent is the cost of the work itself.
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(perSide)*float64(b.N)/cpu/1e6, "MB/cpu-s")
	}
}

// cpuTime is the user+system CPU seconds this process has used.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func create(b *testing.B, dir string, l int) *os.File {
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("layer_%d.f32", l)))
	if err != nil {
		b.Fatal(err)
	}
	return f
}
