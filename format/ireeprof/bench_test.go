package ireeprof

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	gen "github.com/tallyprof/tally/internal/gen/ireeprofgen"
)

// The benchmark bundle is generated once per test binary, only when a
// benchmark asks for it, and removed by TestMain.
var bigFile struct {
	once  sync.Once
	dir   string
	path  string
	stats gen.Stats
	err   error
}

// benchEvents makes a bundle of about 220 MB.
const benchEvents = 2_500_000

func bigBundle(b *testing.B) (string, gen.Stats) {
	bigFile.once.Do(func() {
		bigFile.dir, bigFile.err = os.MkdirTemp("", "ireeprof-bench-")
		if bigFile.err != nil {
			return
		}
		bigFile.path = filepath.Join(bigFile.dir, "big.ireeprof")
		f, err := os.Create(bigFile.path)
		if err != nil {
			bigFile.err = err
			return
		}
		bigFile.stats, bigFile.err = gen.Generate(f, gen.Options{Events: benchEvents, Kernels: 64, CommandBuffers: 16})
		if err := f.Close(); bigFile.err == nil {
			bigFile.err = err
		}
	})
	if bigFile.err != nil {
		b.Fatal(bigFile.err)
	}
	return bigFile.path, bigFile.stats
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bigFile.dir != "" {
		os.RemoveAll(bigFile.dir)
	}
	os.Exit(code)
}

// heapSampler is the aggregator `tally report` uses, plus a sample of the
// live heap every 2^20 dispatches, to show memory stays O(kernels) while
// dispatches stream.
type heapSampler struct {
	agg  *analysis.Aggregator
	n    int64
	peak uint64
}

func (h *heapSampler) Dispatch(c *capture.Capture, d *capture.Dispatch) {
	h.agg.Dispatch(c, d)
	h.n++
	if h.n&(1<<20-1) == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > h.peak {
			h.peak = ms.HeapAlloc
		}
	}
}

// BenchmarkRead reads a generated bundle of 2.5 M dispatch events (~220 MB)
// into the aggregator `tally report` uses.
//
//	go test -run '^$' -bench BenchmarkRead -benchtime 5x ./format/ireeprof/
func BenchmarkRead(b *testing.B) {
	hs := &heapSampler{}
	st := benchBundle(b, func(in *format.Input, agg *analysis.Aggregator) (*capture.Capture, error) {
		hs.agg = agg
		return Read(in, nil, hs)
	})
	b.ReportMetric(float64(st.Bytes)*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
	b.ReportMetric(float64(hs.peak)/(1<<20), "peak-heap-MiB")
}

// BenchmarkReadChecked is BenchmarkRead through format.ReadInput, as `tally
// report` reads: with the model check, whose duplicate check keeps every
// dispatch's event id (as ranges).
//
//	go test -run '^$' -bench 'BenchmarkRead(Checked)?$' -benchtime 5x ./format/ireeprof/
func BenchmarkReadChecked(b *testing.B) {
	benchBundle(b, func(in *format.Input, agg *analysis.Aggregator) (*capture.Capture, error) {
		return format.ReadInput(in, Name, nil, agg)
	})
}

// benchBundle reads the big bundle b.N times with read into a new
// aggregator, checks the first read's totals, and reports Mevents/s.
func benchBundle(b *testing.B, read func(*format.Input, *analysis.Aggregator) (*capture.Capture, error)) gen.Stats {
	path, st := bigBundle(b)
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	in := &format.Input{Path: path, ReaderAt: f, Size: st.Bytes}
	b.SetBytes(st.Bytes)
	b.ReportAllocs()
	runtime.GC()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		agg := analysis.NewAggregator()
		c, err := read(in, agg)
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.StopTimer()
			if r := agg.Tables(c); r.Dispatches() != st.Events || !c.Accounting.Complete() {
				b.Fatalf("read %d dispatches, want %d; complete %v, want true", r.Dispatches(), st.Events, c.Accounting.Complete())
			}
			b.StartTimer()
		}
	}
	b.ReportMetric(float64(st.Events)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
	return st
}

// TestGeneratedTotals checks a generated bundle end to end: every event is
// a dispatch, and each kernel's total is its ticks × 10 ns exactly.
func TestGeneratedTotals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gen.ireeprof")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := gen.Generate(f, gen.Options{Events: 20000, Kernels: 24, CommandBuffers: 5, EventsPerChunk: 777})
	if err != nil {
		t.Fatal(err)
	}
	agg := analysis.NewAggregator()
	in := &format.Input{Path: path, ReaderAt: f, Size: st.Bytes}
	c, err := Read(in, nil, agg)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !c.Accounting.Complete() {
		t.Fatalf("want complete, got gaps %+v", c.Accounting.Gaps)
	}
	r := agg.Tables(c)
	if r.Dispatches() != st.Events || len(r.Programs) != st.ProgramsUsed {
		t.Fatalf("%d dispatches in %d programs, want %d in %d", r.Dispatches(), len(r.Programs), st.Events, st.ProgramsUsed)
	}
	byName := map[string]int64{}
	for _, p := range r.Programs {
		for _, k := range p.Kernels {
			byName[k.Kernel.Name] += k.Total
		}
	}
	for k, ticks := range st.KernelTicks {
		name := fmt.Sprintf("kernel_%04d_f32", k)
		if byName[name] != int64(ticks)*10 {
			t.Errorf("%s: %d ns, want %d", name, byName[name], ticks*10)
		}
	}
}
