package diff

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/gen/hrxgen"
	"github.com/tallyprof/tally/internal/testfile"
)

// stream sends perRun dispatches of each of 8 kernels in each of 20 runs
// to sink, reusing one Dispatch as readers do.
func stream(sink capture.Sink, perRun int) *capture.Capture {
	c := &capture.Capture{Clock: nsClock}
	p := c.AddProgram(capture.Program{Name: "p", Instances: 20})
	for k := 0; k < 8; k++ {
		c.AddKernel(capture.Kernel{Program: p, Name: string(rune('a' + k))})
	}
	var d capture.Dispatch
	var t int64
	for run := int64(0); run < 20; run++ {
		for k := 0; k < 8; k++ {
			for i := 0; i < perRun; i++ {
				d = capture.Dispatch{Program: p, Queue: capture.NoQueue, Kernel: capture.KernelID(k), Instance: run,
					Device: capture.Interval{Begin: t, End: t + 100, Valid: true}}
				t += 100
				sink.Dispatch(c, &d)
			}
		}
	}
	return c
}

// Memory is per-run sums per (program, kernel): it does not grow with the
// dispatches in a run.
func TestMemoryPerRunSums(t *testing.T) {
	alloc := func(perRun int) uint64 {
		var col collector
		got := testfile.Allocated(func() {
			c := stream(&col, perRun)
			s := NewSide("A")
			s.add(c, &col)
		})
		if n := len(col.kernels) * len(col.kernels[0]); n != 8*20 {
			t.Fatalf("%d per-run sums, want 160", n)
		}
		return got
	}
	small, large := alloc(10), alloc(2000)
	if large > small+small/2 {
		t.Fatalf("got %d bytes allocated for 1.6k dispatches, %d for 320k; want at most 1.5× as many for 320k (O(kernels), not O(dispatches))", small, large)
	}
}

// BenchmarkCollect is the per-dispatch cost of the diff's sink.
//
//	go test -run '^$' -bench Collect -benchtime 3x ./diff/
func BenchmarkCollect(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var col collector
		stream(&col, 1000)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*8*20*1000), "ns/dispatch")
}

// BenchmarkDiffHRX is `tally diff` end to end on two generated 20 MB hrx
// traces: reading dominates.
//
//	go test -run '^$' -bench DiffHRX -benchtime 3x ./diff/
func BenchmarkDiffHRX(b *testing.B) {
	dir := b.TempDir()
	var paths []string
	var size int64
	for seed := int64(1); seed <= 2; seed++ {
		path := filepath.Join(dir, "t.kept"+string(rune('0'+seed)))
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		sum, err := hrxgen.Write(f, hrxgen.Options{Seed: seed, Prefill: 2, TargetBytes: 20 << 20})
		if err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		size += sum.Bytes
		paths = append(paths, path)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(paths[:1], paths[1:], Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
