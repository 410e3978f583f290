package nsys

import (
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/gen/nsysgen"
)

func kernelRows(path string) (int, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int
	err = db.QueryRow(`SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL`).Scan(&n)
	return n, err
}

// BenchmarkRead reads a generated nsys-shaped export (internal/gen/nsysgen:
// kernels, one runtime launch each, NVTX ranges) into kernel tables and
// reports rows/s and the peak Go heap seen while reading. Issue 11 asks
// for 10 M kernel rows; the default is 1 M so that generating the database
// stays under a minute on a shared 2-core machine. TALLY_NSYS_ROWS sets
// the count; TALLY_NSYS_DB names an export made already (cmd/nsysgen) to
// read instead:
//
//	TALLY_NSYS_ROWS=10000000 go test -run '^$' -bench Read -benchtime 1x ./format/nsys/
func BenchmarkRead(b *testing.B) {
	rows := 1_000_000
	if s := os.Getenv("TALLY_NSYS_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		rows = n
	}
	path := os.Getenv("TALLY_NSYS_DB")
	if path == "" {
		path = filepath.Join(b.TempDir(), "gen.sqlite")
		if err := nsysgen.Write(path, rows); err != nil {
			b.Fatal(err)
		}
	} else if n, err := kernelRows(path); err != nil {
		b.Fatal(err)
	} else {
		rows = n
	}
	st, _ := os.Stat(path)
	b.ReportAllocs()
	b.ResetTimer()
	var peak atomic.Uint64
	for i := 0; i < b.N; i++ {
		resetPeakRSS()
		stop := samplePeak(&peak)
		agg := analysis.NewAggregator()
		c, err := format.ReadFile(path, Name, nil, agg)
		stop()
		if err != nil || !c.Accounting.Complete() {
			b.Fatal(err, gapText(c))
		}
	}
	b.StopTimer()
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(rows)/sec, "rows/s")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(st.Size())/(1<<20), "db-MiB")
	if rss := peakRSS(); rss > 0 {
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	}
}

// samplePeak records the largest live heap every 20 ms until stopped.
func samplePeak(peak *atomic.Uint64) func() {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

// resetPeakRSS clears the kernel's high-water mark of this process's RSS
// (Linux: writing 5 to /proc/self/clear_refs), so that peakRSS measures the
// read, not the database generation before it. SQLite's page cache lives
// outside the Go heap, so RSS is the figure that counts it.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS returns VmHWM in bytes, or 0 where /proc is not there.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
