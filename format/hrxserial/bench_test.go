package hrxserial

import (
	"bytes"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/catalog"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/internal/gen/hrxgen"
	"github.com/tallyprof/tally/internal/testfile"
)

// BenchmarkRead parses a 100 MB generated kept trace into kernel tables.
//
//	go test -run '^$' -bench Read -benchmem ./format/hrxserial/
func BenchmarkRead(b *testing.B) {
	data, cat := benchTrace(b)
	for i := 0; i < b.N; i++ {
		agg := analysis.NewAggregator()
		c, err := ReadStream(bytes.NewReader(data), "bench", cat, agg)
		if err != nil || !c.Accounting.Complete() {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data))/1e6, "MB/trace")
}

// Reading a trace four times as long must not allocate much more: memory is
// O(kernels), not O(lines).
func TestMemoryFlat(t *testing.T) {
	small, large := readAllocated(t, 100), readAllocated(t, 400)
	if large > small+small/2 {
		t.Fatalf("got %d bytes allocated for 100 runs, %d for 400; want at most 1.5× as many for 400 (flat in the trace)", small, large)
	}
}

// A small trace is one block: the reader must not set up the buffers and
// workers of a large one for it (six 46 KB buffers for a 46 KB trace made
// its allocation 11× the trace; one is ~3×).
func TestSmallTraceOneBlock(t *testing.T) {
	size := len(generated(t, 1))
	if got, limit := readAllocated(t, 1), uint64(6*size); got > limit {
		t.Errorf("reading a %d-byte trace allocated %d bytes, want at most %d (6× the trace)", size, got, limit)
	}
}

// generated is a kept trace of decode steps.
func generated(t *testing.T, decode int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := hrxgen.Write(&buf, hrxgen.Options{Seed: 1, Decode: decode}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readAllocated is what reading a generated trace of decode steps allocates.
func readAllocated(t *testing.T, decode int) uint64 {
	t.Helper()
	data := generated(t, decode)
	return testfile.Allocated(func() {
		if _, err := ReadStream(bytes.NewReader(data), "m", nil, analysis.NewAggregator()); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkReadChecked is BenchmarkRead through format.ReadInput, which
// checks the capture and every dispatch against the model: compare the two
// to see what the check costs.
//
//	go test -run '^$' -bench 'Read(Checked)?$' -benchmem ./format/hrxserial/
func BenchmarkReadChecked(b *testing.B) {
	data, cat := benchTrace(b)
	for i := 0; i < b.N; i++ {
		agg := analysis.NewAggregator()
		c, err := format.ReadInput(format.BytesInput("bench", data), Name, &format.Options{Catalog: cat}, agg)
		if err != nil || !c.Accounting.Complete() {
			b.Fatal(err)
		}
	}
}

// benchTrace generates the 100 MB kept trace both benchmarks read and
// starts the clock.
func benchTrace(b *testing.B) ([]byte, *catalog.Catalog) {
	var buf bytes.Buffer
	if _, err := hrxgen.Write(&buf, hrxgen.Options{Seed: 1, Prefill: 2, TargetBytes: 100 << 20}); err != nil {
		b.Fatal(err)
	}
	cat, err := catalog.Load([]string{manifest})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	return buf.Bytes(), cat
}

// BenchmarkReadBig reads the kept trace named by TALLY_HRX_BIG straight
// from disk, through the model check, as `tally report` does, and states
// MB per CPU-second (with -cpu 1 that is one core's speed, whatever else
// the machine runs).
//
//	go run ./cmd/hrxgen -o /tmp/big.kept -size 300MB -prefill 2
//	TALLY_HRX_BIG=/tmp/big.kept go test -run '^$' -bench ReadBig -cpu 1 ./format/hrxserial/
func BenchmarkReadBig(b *testing.B) {
	path, size := fixture.BigFile(b, "TALLY_HRX_BIG", "a generated kept trace")
	cat, err := catalog.Load([]string{manifest})
	if err != nil {
		b.Fatal(err)
	}
	cpu0 := testfile.CPUTime()
	for b.Loop() {
		c, err := format.ReadFile(path, Name, &format.Options{Catalog: cat}, analysis.NewAggregator())
		if err != nil || !c.Accounting.Complete() {
			b.Fatal(err)
		}
	}
	fixture.ReportCPU(b, cpu0, size)
}

// BenchmarkScan is the scan workers' part of BenchmarkRead: finding and
// parsing the lines of each block, without the parser's state.
//
//	go test -run '^$' -bench Scan -cpu 1 ./format/hrxserial/
func BenchmarkScan(b *testing.B) {
	data, _ := benchTrace(b)
	var toks []tok
	var ps []parsed
	sc := newScanner(true)
	for i := 0; i < b.N; i++ {
		for off := 0; off < len(data); off += blockSize {
			_, _, toks, ps = sc.scan(data[off:min(off+blockSize, len(data))], toks[:0], ps[:0])
		}
	}
}

// BenchmarkReadSmall reads a kept trace of one decode step (46 KB), as
// `tally report` of a short run does: what the reader costs besides the
// scan (its workers and buffers) shows here.
//
//	go test -run '^$' -bench ReadSmall -benchmem ./format/hrxserial/
func BenchmarkReadSmall(b *testing.B) {
	var buf bytes.Buffer
	if _, err := hrxgen.Write(&buf, hrxgen.Options{Seed: 1, Decode: 1}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := ReadStream(bytes.NewReader(data), "small", nil, analysis.NewAggregator()); err != nil {
			b.Fatal(err)
		}
	}
}
