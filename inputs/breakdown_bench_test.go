package inputs

import (
	"os"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// BenchmarkBreakdown reads one Kineto trace ($TALLY_BENCH_TRACE, e.g. the
// 200 MiB one of `go run ./cmd/kinetogen -size 200MiB`) with and without
// the time breakdown: the cost the breakdown adds to `tally report`
// (docs/breakdown.md, "Benchmark").
//
//	TALLY_BENCH_TRACE=big.json go test ./inputs -run '^$' -bench Breakdown -benchtime 5x -cpu 1
func BenchmarkBreakdown(b *testing.B) {
	path := os.Getenv("TALLY_BENCH_TRACE")
	if path == "" {
		b.Skip("set TALLY_BENCH_TRACE to a Kineto trace")
	}
	for _, on := range []bool{false, true} {
		name := "breakdown=off"
		if on {
			name = "breakdown=on"
		}
		b.Run(name, func(b *testing.B) {
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(fi.Size())
			for range b.N {
				opt := Options{}
				if on {
					opt.Breakdown = &analysis.BreakdownOptions{}
				}
				run := Expand([]string{path}, "").Read(opt)
				if run.Inputs[0].Err != nil {
					b.Fatal(run.Inputs[0].Err)
				}
			}
		})
	}
}

// BenchmarkBreakdownOnly is the breakdown alone (its sink and its sweep)
// over the dispatches of $TALLY_BENCH_TRACE, read once beforehand: its
// cost per dispatch, apart from the reader's (on a loaded machine the
// difference of two whole reads says little).
func BenchmarkBreakdownOnly(b *testing.B) {
	path := os.Getenv("TALLY_BENCH_TRACE")
	if path == "" {
		b.Skip("set TALLY_BENCH_TRACE to a Kineto trace")
	}
	var ds []capture.Dispatch
	run := Expand([]string{path}, "").Read(Options{Sink: func(int, string) capture.Sink {
		return capture.SinkFunc(func(_ *capture.Capture, d *capture.Dispatch) { ds = append(ds, *d) })
	}})
	c := run.Inputs[0].Capture
	b.ResetTimer()
	for range b.N {
		s := analysis.NewBreakdownSink(analysis.BreakdownOptions{})
		for i := range ds {
			s.Dispatch(c, &ds[i])
		}
		if bd := s.Finish(c); bd.Err != nil || len(bd.Devices) == 0 {
			b.Fatalf("breakdown: %+v", bd)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ds)), "ns/dispatch")
}
