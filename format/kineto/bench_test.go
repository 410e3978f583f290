package kineto

import (
	"bytes"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/internal/testfile"
)

// Benchmarks read decompressed JSON from memory, so they measure tally's
// scanner and reader, not gzip or the disk. MB/s is of uncompressed JSON.
//
//	go test -run '^$' -bench . -benchmem ./format/kineto/
//
// TALLY_KINETO_BIG=/path/to/big.json adds BenchmarkReadBig on a generated
// trace (see internal/gen/kinetogen); docs/formats/kineto.md has the
// figures and the comparison with Python's json module.

func benchRead(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var events int64
	cpu0 := testfile.CPUTime()
	for b.Loop() {
		agg := analysis.NewAggregator()
		c, err := readFrom(bytes.NewReader(data), "bench", &format.Options{}, agg, defaultConfig)
		if err != nil {
			b.Fatal(err)
		}
		events = c.Accounting.InputFor("events").Read
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	fixture.ReportCPU(b, cpu0, int64(len(data)))
}

// BenchmarkReadMTIA reads the largest sample (86.9 MB of JSON).
func BenchmarkReadMTIA(b *testing.B) {
	benchRead(b, testfile.Gunzip(b, "testdata/hta__mtia_training_rank_0.json.gz"))
}

// BenchmarkReadNegativeQueue reads a CUDA training trace (25.8 MB).
func BenchmarkReadNegativeQueue(b *testing.B) {
	benchRead(b, testfile.Gunzip(b, "testdata/hta__negative_queue_length_rank0.json.gz"))
}

// BenchmarkReadBig reads the file named by TALLY_KINETO_BIG straight from
// disk, streaming, as `tally report` does.
func BenchmarkReadBig(b *testing.B) {
	benchBig(b, false)
}

// BenchmarkReadBigOps is BenchmarkReadBig with host-op attribution, as
// `tally report --by op` reads: the kernel and op aggregators both fed.
// ISSUE-22 bounds it at 1.3× BenchmarkReadBig (docs/ops.md has the
// figures).
func BenchmarkReadBigOps(b *testing.B) {
	benchBig(b, true)
}

// BenchmarkReadBigSplit is BenchmarkReadBig split however many cores
// (split.go): with -cpu 1 it measures what splitting itself costs.
func BenchmarkReadBigSplit(b *testing.B) {
	path, size := fixture.BigFile(b, "TALLY_KINETO_BIG", "a generated trace")
	cpu0 := testfile.CPUTime()
	cfg := defaultConfig
	cfg.split = splitAlways
	for b.Loop() {
		in, err := format.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		src, err := in.Reader()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := readFrom(src, path, &format.Options{}, analysis.NewAggregator(), cfg); err != nil {
			b.Fatal(err)
		}
		in.Close()
	}
	fixture.ReportCPU(b, cpu0, size)
}

func benchBig(b *testing.B, ops bool) {
	path, size := fixture.BigFile(b, "TALLY_KINETO_BIG", "a generated trace")
	cpu0 := testfile.CPUTime()
	for b.Loop() {
		var sink capture.Sink = analysis.NewAggregator()
		if ops {
			sink = capture.Tee{sink, analysis.NewOpAggregator()}
		}
		if _, err := format.ReadFile(path, Name, &format.Options{Ops: ops}, sink); err != nil {
			b.Fatal(err)
		}
	}
	fixture.ReportCPU(b, cpu0, size)
}
