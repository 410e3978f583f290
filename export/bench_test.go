package export

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tallyprof/tally/capture"
)

var benchDispatches = flag.Int("export.dispatches", 10_000_000, "dispatches per export in BenchmarkExport*")

// peakHeap samples the heap in use until stop is called and returns the
// highest value seen.
func peakHeap() (stop func() uint64) {
	var (
		peak uint64
		mu   sync.Mutex
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			mu.Lock()
			peak = max(peak, m.HeapInuse)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

func dirSize(t testing.TB, root string) int64 {
	var n int64
	filepath.Walk(root, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}

// benchExport exports -export.dispatches synthetic dispatches (8 kernels,
// 4 queues on 2 ranks, launches and device times) and reports dispatches/s,
// output MB/s, output size, peak heap and the process's peak RSS.
//
//	go test ./export -run '^$' -bench Export -benchtime 1x
func benchExport(b *testing.B, to string) {
	dir := b.TempDir()
	in := writeSynth(b, dir, "bench.synth", synthSpec{N: *benchDispatches, Kernels: 8, PerRun: 1000,
		Queues: []capture.Queue{{Name: "7", Device: "GPU 0", Rank: "0"}, {Name: "15", Device: "GPU 0", Rank: "0"},
			{Name: "7", Device: "GPU 1", Rank: "1"}, {Name: "15", Device: "GPU 1", Rank: "1"}}})
	out := filepath.Join(dir, "out")
	runtime.GC()
	b.ResetTimer()
	stop := peakHeap()
	var size int64
	for i := 0; i < b.N; i++ {
		if _, err := Run([]string{in}, Options{To: to, Out: out, Format: synthFormat}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	peak := stop()
	size = dirSize(b, out)
	if to == CSV {
		st, _ := os.Stat(out)
		size = st.Size()
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b.ReportMetric(float64(*benchDispatches)/sec, "dispatches/s")
	b.ReportMetric(float64(size)/sec/1e6, "MB/s")
	b.ReportMetric(float64(size)/1e6, "out-MB")
	b.ReportMetric(float64(size)/float64(*benchDispatches), "out-B/dispatch")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(ru.Maxrss)/1024, "maxrss-MiB")
}

func BenchmarkExportParquet(b *testing.B) { benchExport(b, Parquet) }
func BenchmarkExportCSV(b *testing.B)     { benchExport(b, CSV) }

// The Kineto and pprof writers keep their own per-dispatch sums (what a
// Kineto file did not write, a pprof sample's values).
func BenchmarkExportKineto(b *testing.B) { benchExport(b, Kineto) }
func BenchmarkExportPProf(b *testing.B)  { benchExport(b, PProf) }

// BenchmarkExportRanksParquet exports 8 inputs (one rank each) to Parquet
// with one reader and with one reader per core; compare the
// sub-benchmarks' dispatches/s for the speed-up of parallel reading.
//
//	go test ./export -run '^$' -bench ExportRanks -benchtime 2x
func BenchmarkExportRanksParquet(b *testing.B) {
	dir := b.TempDir()
	per := max(*benchDispatches/8, 1)
	var paths []string
	for r := range 8 {
		paths = append(paths, writeSynth(b, dir, fmt.Sprintf("rank%d.synth", r), synthSpec{N: per, Kernels: 8, PerRun: 1000, SourceRank: fmt.Sprint(r)}))
	}
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			out := filepath.Join(b.TempDir(), "out")
			for range b.N {
				if _, err := Run(paths, Options{To: Parquet, Out: out, Format: synthFormat, Workers: workers}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(8*per)/(b.Elapsed().Seconds()/float64(b.N)), "dispatches/s")
		})
	}
}
