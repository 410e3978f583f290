package collectives

import (
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/internal/gen/collgen"
)

// fleetRanks is the rank count of the fleet benchmark: 16 in CI, the full
// 1,000 with TALLY_FLEET_RANKS=1000.
func fleetRanks() int {
	if n, err := strconv.Atoi(os.Getenv("TALLY_FLEET_RANKS")); err == nil && n > 1 {
		return n
	}
	return 16
}

// writeFleet writes n ranks of a job with a planted slow rank.
func writeFleet(tb testing.TB, n, instances int) (string, collgen.Config) {
	cfg := collgen.Default()
	cfg.Ranks, cfg.Instances, cfg.Slow, cfg.MissingRank = n, instances, n/2+1, -1
	cfg.Delay = max(cfg.Delay, 2*int64(n)*cfg.Step) // later than every other rank
	dir := tb.TempDir()
	_, err := collgen.WriteDir(dir, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return dir, cfg
}

// BenchmarkFleet reads a job's ranks as tally report DIR does (parallel,
// each through its collectives sink) and matches the collectives; it
// reports the time per rank and the live heap after the analysis.
func BenchmarkFleet(b *testing.B) {
	n := fleetRanks()
	dir, cfg := writeFleet(b, n, 100)
	var res *Result
	for b.Loop() {
		col := NewCollector()
		run := inputs.Expand([]string{dir}, "").Read(inputs.Options{Sink: func(i int, _ string) capture.Sink { return col.Sink(i) }})
		res = Analyze(run, col)
		if i := res.Instances[0]; i.Straggler != int64(cfg.Slow) {
			b.Fatalf("got straggler %d, want %d", i.Straggler, cfg.Slow)
		}
		runtime.KeepAlive(run)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/rank")
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/float64(n), "heap-B/rank")
	runtime.KeepAlive(res)
}

// The CI arm of the fleet: 16 ranks, the planted straggler named by every
// instance, no gap.
func TestFleet16(t *testing.T) {
	dir, cfg := writeFleet(t, 16, 20)
	run, res := readRun(t, inputs.Expand([]string{dir}, ""))
	if len(res.Instances) != cfg.Instances || len(res.Ranks) != 16 {
		t.Fatalf("got %d instances over %d ranks, want %d over 16", len(res.Instances), len(res.Ranks), cfg.Instances)
	}
	for _, in := range res.Instances {
		if in.Straggler != int64(cfg.Slow) || in.Skew != cfg.Delay || len(in.Missing) != 0 {
			t.Fatalf("%s: got straggler %d skew %d missing %v, want %d %d none", in.label(), in.Straggler, in.Skew, in.Missing, cfg.Slow, cfg.Delay)
		}
	}
	if !run.Complete() {
		t.Errorf("got an incomplete run: %+v, want a complete one", run.Whole.Accounting.Gaps)
	}
}
