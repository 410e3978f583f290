package inputs

import (
	"os"
	"testing"

	"github.com/tallyprof/tally/analysis"
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
