package timeline

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/countio"
)

// BenchmarkStream feeds b.N dispatches (8 queues on 2 ranks, 64 kernels in
// 4 programs) straight into a Writer, as a reader's sink would, and reports
// dispatches/s, output MB/s, bytes per dispatch and the peak live heap seen
// while writing (sampled every 1M dispatches). Run with
// -benchtime=10000000x for the 10-million figure in docs/timeline.md.
func BenchmarkStream(b *testing.B) {
	for _, f := range []Format{Perfetto, Chrome} {
		b.Run(f.String(), func(b *testing.B) {
			c := &capture.Capture{Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true}}
			for p := range 4 {
				c.AddProgram(capture.Program{Name: fmt.Sprintf("program_%d", p)})
			}
			for q := range 8 {
				c.AddQueue(capture.Queue{Name: fmt.Sprintf("stream %d", q%4), Device: fmt.Sprintf("GPU %d", q%4), Rank: fmt.Sprint(q / 4)})
			}
			for k := range 64 {
				c.AddKernel(capture.Kernel{Program: capture.ProgramID(k % 4), Name: fmt.Sprintf("kernel_%d_with_a_realistic_length_name", k), Resolved: true, Category: "kernel"})
			}
			cw := &countio.Writer{}
			w := New(cw, f)
			in := w.Sink("bench")
			d := capture.Dispatch{Instance: 0, Index: -1, Ordinal: -1, Link: capture.LinkLaunched}
			var peak uint64
			var ms runtime.MemStats
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			t := int64(1_000_000)
			for i := range b.N {
				k := i % 64
				d.Kernel = capture.KernelID(k)
				d.Program = capture.ProgramID(k % 4)
				d.Queue = capture.QueueID(i % 8)
				d.Index = int64(i % 100)
				d.Launch = capture.Interval{Begin: t - 500, End: t - 100, Valid: true}
				d.Device = capture.Interval{Begin: t, End: t + 700, Valid: true}
				t += 100
				in.Dispatch(c, &d)
				if i%1_000_000 == 0 {
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
				}
			}
			in.Finish(c)
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			b.SetBytes(cw.N / int64(max(b.N, 1)))
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "dispatches/s")
			b.ReportMetric(float64(cw.N)/float64(max(b.N, 1)), "B/dispatch")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}
