package kineto

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// expected is testdata/expected/<trace>.expected.json, computed by a
// separate program (see its README.md for the exact definitions).
type expected struct {
	File       string `json:"file"`
	GPUEvents  int64  `json:"gpu_events"`
	ByCategory map[string]struct {
		Events  int64 `json:"events"`
		TotalNS int64 `json:"total_ns"`
	} `json:"by_category"`
	Kernels map[string]struct {
		Count   int64 `json:"count"`
		TotalNS int64 `json:"total_ns"`
	} `json:"kernels"`
	Orphans           int64 `json:"orphan_gpu_events"`
	OrphanNS          int64 `json:"orphan_total_ns"`
	GraphLaunches     int64 `json:"graph_launches"`
	RuntimeWithoutGPU int64 `json:"runtime_without_gpu"`
	InvalidNames      int64 `json:"invalid_runtime_names"`
	ZeroDur           int64 `json:"zero_dur_gpu_events"`
}

// sample is one trace read the way `tally report` reads it, with every
// dispatch kept for cross-checks.
type sample struct {
	c      *capture.Capture
	tables *analysis.Tables
	disp   []capture.Dispatch
}

func readSample(t testing.TB, path string, opts *format.Options) *sample {
	t.Helper()
	agg := analysis.NewAggregator()
	var col capture.Collect
	c, err := format.ReadFile(path, Name, opts, capture.Tee{agg, &col})
	if err != nil {
		t.Fatalf("%s: got error %v, want none", path, err)
	}
	if err := c.CheckValid(); err != nil {
		t.Fatalf("%s: got an invalid capture: %v; want a valid one", path, err)
	}
	return &sample{c: c, tables: agg.Tables(c), disp: col.Dispatches}
}

func samples(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob("testdata/*.json.gz")
	if err != nil || len(paths) == 0 {
		t.Fatalf("got no samples in testdata (error %v), want some", err)
	}
	return paths
}

// gpuCategory maps the expected files' category spellings to tally's; the
// expected values count NVIDIA/AMD GPU work only, not other accelerators.
var gpuCategory = map[string]string{
	"kernel": "kernel", "Kernel": "kernel",
	"gpu_memcpy": "memcpy", "Memcpy": "memcpy",
	"gpu_memset": "memset", "Memset": "memset",
}

func isGPUCategory(c string) bool { return c == "kernel" || c == "memcpy" || c == "memset" }

func figure(g *capture.Gap, name string) int64 {
	if g == nil {
		return 0
	}
	v, _ := g.Figure(name)
	return v
}

// TestExpected checks tally's numbers against the independently computed
// expected values, exactly, for every sample.
func TestExpected(t *testing.T) {
	for _, path := range samples(t) {
		base := filepath.Base(path)
		t.Run(base, func(t *testing.T) {
			raw := fixture.Read(t, filepath.Join("testdata", "expected", strings.TrimSuffix(base, ".gz")+".expected.json"))
			var want expected
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			s := readSample(t, path, nil)

			// Per category and per kernel name, summed over programs.
			type tot struct{ n, ns int64 }
			byCat := map[string]tot{}
			byKernel := map[string]tot{}
			var gpu int64
			for _, p := range s.tables.Programs {
				for _, k := range p.Kernels {
					cat := k.Kernel.Category
					if !isGPUCategory(cat) {
						continue
					}
					gpu += k.Dispatches
					x := byCat[cat]
					byCat[cat] = tot{x.n + k.Dispatches, x.ns + k.Total}
					if cat == "kernel" {
						y := byKernel[k.Kernel.Name]
						byKernel[k.Kernel.Name] = tot{y.n + k.Dispatches, y.ns + k.Total}
					}
				}
			}
			if gpu != want.GPUEvents {
				t.Errorf("gpu events: got %d, want %d", gpu, want.GPUEvents)
			}
			wantCat := map[string]tot{}
			for c, v := range want.ByCategory {
				x := wantCat[gpuCategory[c]]
				wantCat[gpuCategory[c]] = tot{x.n + v.Events, x.ns + v.TotalNS}
			}
			for _, c := range []string{"kernel", "memcpy", "memset"} {
				if byCat[c] != wantCat[c] {
					t.Errorf("category %s: got %d events %d ns, want %d events %d ns", c, byCat[c].n, byCat[c].ns, wantCat[c].n, wantCat[c].ns)
				}
			}
			if len(byKernel) != len(want.Kernels) {
				t.Errorf("kernel names: got %d, want %d", len(byKernel), len(want.Kernels))
			}
			for name, w := range want.Kernels {
				if got := byKernel[name]; got.n != w.Count || got.ns != w.TotalNS {
					t.Errorf("kernel %.80q: got %d × %d ns, want %d × %d ns", name, got.n, got.ns, w.Count, w.TotalNS)
				}
			}

			// Orphans, from the dispatches (GPU categories only, as
			// expected counts them) and from the gap (all devices).
			var orphans, orphanNS, zero, allOrphans int64
			for _, d := range s.disp {
				cat := s.c.Kernels[d.Kernel].Category
				dur, _ := d.Device.Duration()
				if d.Link == capture.LinkNoLaunch {
					allOrphans++
					if isGPUCategory(cat) {
						orphans++
						orphanNS += dur
					}
				}
				if dur == 0 && isGPUCategory(cat) {
					zero++
				}
			}
			if orphans != want.Orphans || orphanNS != want.OrphanNS {
				t.Errorf("orphans: got %d (%d ns), want %d (%d ns)", orphans, orphanNS, want.Orphans, want.OrphanNS)
			}
			g := s.c.Accounting.Find(capture.GPUEventWithoutLaunch)
			if gapCount(g) != allOrphans {
				t.Errorf("gpu_event_without_launch: got count %d, want %d (the dispatches marked no-launch)", gapCount(g), allOrphans)
			}
			if want.Orphans > 0 && allOrphans == orphans && figure(g, "total_ns") != want.OrphanNS {
				t.Errorf("gpu_event_without_launch total_ns: got %d, want %d", figure(g, "total_ns"), want.OrphanNS)
			}
			if zero != want.ZeroDur {
				t.Errorf("zero-duration GPU events: got %d, want %d", zero, want.ZeroDur)
			}
			if zg := s.c.Accounting.Find(capture.ZeroDuration); allOrphans == orphans && figure(zg, "dur_0") != want.ZeroDur && !strings.Contains(base, "mtia") {
				t.Errorf("zero_duration dur_0: got %d, want %d", figure(zg, "dur_0"), want.ZeroDur)
			}

			if got := s.c.Accounting.CountOf(capture.GraphLaunch); got != want.GraphLaunches {
				t.Errorf("graph launches: got %d, want %d", got, want.GraphLaunches)
			}
			// expected counts runtime calls whose name contains "Launch"
			// (not "GraphLaunch") without device event; tally's gap lists
			// every launch-list call by name.
			var noGPU int64
			if lg := s.c.Accounting.Find(capture.LaunchWithoutGPUEvent); lg != nil {
				for _, f := range lg.Figures {
					if strings.Contains(f.Name, "Launch") && !strings.Contains(f.Name, "GraphLaunch") {
						noGPU += f.Count
					}
				}
			}
			if noGPU != want.RuntimeWithoutGPU {
				t.Errorf("launch calls without device event: got %d, want %d", noGPU, want.RuntimeWithoutGPU)
			}
			if got := figure(s.c.Accounting.Find(capture.UnresolvedName), "invalid_runtime_calls"); got != want.InvalidNames {
				t.Errorf("INVALID runtime names: got %d, want %d", got, want.InvalidNames)
			}
		})
	}
}

// gapCount is nil-safe for absent gaps.
func gapCount(g *capture.Gap) int64 {
	if g == nil {
		return 0
	}
	return g.Count
}
