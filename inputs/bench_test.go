package inputs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/internal/gen/kinetogen"
)

// BenchmarkRanks reads 64 generated Kineto rank traces (rank*/trace.json,
// ~4 MB each) with one reader and with one reader per core, and reports
// MB/s and MB per CPU-second. Compare the two sub-benchmarks' ns/op for
// the speed-up, and their MB/cpu-s for what reading in parallel costs
// (equal figures: none; on a loaded machine the wall time says little).
// With -cpu 1,2, workers=per-core at 1 and at 2 cores is the comparison of
// issue 24:
//
//	go test ./inputs/ -run '^$' -bench 'Ranks/workers=per-core' -benchtime 3x -cpu 1,2
func BenchmarkRanks(b *testing.B) {
	dir := b.TempDir()
	var total int64
	for r := range 64 {
		p := filepath.Join(dir, fmt.Sprintf("rank%02d", r), "trace.json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		bw := bufio.NewWriter(f)
		st, err := kinetogen.Write(bw, kinetogen.Config{TargetBytes: 1 << 20, Seed: int64(r)})
		if err == nil {
			err = bw.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			b.Fatal(err)
		}
		total += st.Bytes
	}
	for _, workers := range []int{1, 0} {
		name := "workers=1"
		if workers == 0 {
			name = "workers=per-core" // GOMAXPROCS, as tally report reads a directory
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(total)
			b.ReportAllocs()
			cpu0 := cpuTime()
			for range b.N {
				run := Expand([]string{dir}, "").Read(Options{Workers: workers})
				if len(run.Inputs) != 64 || run.Whole.Accounting.CountOf("failed_input") != 0 {
					b.Fatalf("%d inputs", len(run.Inputs))
				}
			}
			if d := cpuTime() - cpu0; d > 0 {
				b.ReportMetric(float64(total)*float64(b.N)/d.Seconds()/1e6, "MB/cpu-s")
			}
		})
	}
}
