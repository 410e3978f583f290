package inputs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tallyprof/tally/internal/gen/kinetogen"
)

// BenchmarkRanks reads 64 generated Kineto rank traces (rank*/trace.json,
// ~1 MiB each) with one reader and with one reader per core, and reports
// MB/s. Compare the two sub-benchmarks' ns/op for the speed-up:
//
//	go test ./inputs/ -run '^$' -bench Ranks -benchtime 3x
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
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(total)
			for range b.N {
				run := Expand([]string{dir}, "").Read(Options{Workers: workers})
				if len(run.Inputs) != 64 || run.Whole.Accounting.CountOf("failed_input") != 0 {
					b.Fatalf("%d inputs", len(run.Inputs))
				}
			}
		})
	}
}
