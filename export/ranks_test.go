package export

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// swimlaneSeed is a run directory holding ranks 0 and 1 (queue ranks).
const swimlaneSeed = "../format/swimlane/testdata/seed"

// acrossChips reads the seed's programs across its chips, as named in the
// run (by default a run on several chips has one program per chip): the
// tests below are about ranks, and want decode on both.
var acrossChips = format.Options{ProgramBy: format.ByAnnotation}

// rankSums are one (rank, program, kernel)'s or (rank, program)'s sums.
type rankSums struct {
	dispatches, timed, device, launched, launch int64
}

// sumsByRank sums the seed's dispatches per (rank, program, kernel) and per
// (rank, program), from the dispatches themselves (capture.Collect), not
// through analysis or export.
func sumsByRank(t *testing.T, path string) (kernels, programs map[string]*rankSums) {
	t.Helper()
	var col capture.Collect
	c, err := format.ReadPath(path, "", &acrossChips, &col)
	if err != nil {
		t.Fatal(err)
	}
	kernels, programs = map[string]*rankSums{}, map[string]*rankSums{}
	for _, d := range col.Dispatches {
		if d.Queue < 0 || c.Queues[d.Queue].Rank == "" {
			t.Fatalf("got seed dispatch %+v without a queue rank, want every one ranked", d)
		}
		if d.Aggregate != nil {
			t.Fatalf("got an aggregated record in the seed, want none: the sums below assume none")
		}
		rank, prog := c.Queues[d.Queue].Rank, c.Programs[d.Program].Name
		kk := rank + "|" + prog + "|" + c.Kernels[d.Kernel].Name
		pk := rank + "|" + prog
		for _, key := range []struct {
			m map[string]*rankSums
			k string
		}{{kernels, kk}, {programs, pk}} {
			s := key.m[key.k]
			if s == nil {
				s = &rankSums{}
				key.m[key.k] = s
			}
			s.dispatches++
			if dur, ok := d.Device.Duration(); ok {
				s.timed++
				s.device += dur
			}
			if dur, ok := d.Launch.Duration(); ok {
				s.launched++
				s.launch += dur
			}
		}
	}
	ranks := map[string]bool{}
	for k := range kernels {
		ranks[strings.SplitN(k, "|", 2)[0]] = true
	}
	if len(ranks) < 2 || kernels["0|decode|matmul"] == nil || kernels["1|decode|matmul"] == nil {
		t.Fatalf("the seed should hold ranks 0 and 1 with decode on both: %v", kernels)
	}
	return kernels, programs
}

// checkKernelRows compares kernel rows with the independent per-rank sums:
// one row per (rank, program, kernel), each with its rank's own counts,
// totals and share of its rank's program.
func checkKernelRows(t *testing.T, what string, rows []KernelRow, kernels, programs map[string]*rankSums) {
	t.Helper()
	got := map[string]bool{}
	for _, r := range rows {
		key := r.Rank + "|" + r.Program + "|" + r.Kernel
		if got[key] {
			t.Errorf("%s: got two rows for %s, want one", what, key)
		}
		got[key] = true
		w := kernels[key]
		if w == nil {
			t.Errorf("%s: got row %s that ran nowhere in the dispatches, want none", what, key)
			continue
		}
		if r.Dispatches != w.dispatches || r.Timed != w.timed || r.Launched != w.launched ||
			r.DeviceNS == nil || *r.DeviceNS != w.device || r.LaunchNS == nil || *r.LaunchNS != w.launch {
			t.Errorf("%s: %s: got dispatches %d timed %d device_ns %v launched %d launch_ns %v; want what the dispatches sum to, %+v",
				what, key, r.Dispatches, r.Timed, optI(r.DeviceNS), r.Launched, optI(r.LaunchNS), *w)
		}
		if p := programs[r.Rank+"|"+r.Program]; p != nil && p.device > 0 {
			if share := float64(w.device) / float64(p.device); share-r.ShareOfProg > 1e-6 || r.ShareOfProg-share > 1e-6 {
				t.Errorf("%s: %s: share %f, want %f of its rank's program", what, key, r.ShareOfProg, share)
			}
		}
	}
	for key := range kernels {
		if !got[key] {
			t.Errorf("%s: got no row for %s, want one", what, key)
		}
	}
}

// TestPerKernelCSVSplitsRanks: a swimlane run directory holds ranks 0 and
// 1; --per-kernel gives each (rank, program, kernel) its own row with its
// own sums, not one row per kernel summing both ranks labelled rank 0.
func TestPerKernelCSVSplitsRanks(t *testing.T) {
	kernels, programs := sumsByRank(t, swimlaneSeed)
	out := filepath.Join(t.TempDir(), "k.csv")
	run(t, []string{swimlaneSeed}, Options{To: CSV, Out: out, PerKernel: true, Reader: acrossChips})
	recs := readCSV(t, out)
	const header = "rank,input,program,kernel,kernel_id,resolved,category,list,dispatches,timed,aggregated," +
		"device_ns,min_ns,max_ns,launched,launch_ns,share,export_id"
	if got := strings.Join(recs[0], ","); got != header {
		t.Fatalf("got header %s, want %s", got, header)
	}
	col := map[string]int{}
	for i, n := range recs[0] {
		col[n] = i
	}
	num := func(rec []string, name string) int64 {
		v, err := strconv.ParseInt(rec[col[name]], 10, 64)
		if err != nil {
			t.Fatalf("%s %q: %v", name, rec[col[name]], err)
		}
		return v
	}
	var rows []KernelRow
	var ranks []string
	for _, rec := range recs[1:] {
		share, _ := strconv.ParseFloat(rec[col["share"]], 64)
		rows = append(rows, KernelRow{Rank: rec[col["rank"]], Program: rec[col["program"]], KernelColumns: KernelColumns{Kernel: rec[col["kernel"]]},
			Dispatches: num(rec, "dispatches"), Timed: num(rec, "timed"), DeviceNS: i64(num(rec, "device_ns")),
			Launched: num(rec, "launched"), LaunchNS: i64(num(rec, "launch_ns")), ShareOfProg: share})
		if len(ranks) == 0 || ranks[len(ranks)-1] != rec[col["rank"]] {
			ranks = append(ranks, rec[col["rank"]])
		}
	}
	checkKernelRows(t, "csv --per-kernel", rows, kernels, programs)
	if strings.Join(ranks, " ") != "0 1" {
		t.Errorf("rows by rank %v, want rank 0's rows, then rank 1's", ranks)
	}
}

// TestParquetSplitsRanks: the same for the Parquet kernels table, read back
// with parquet-go, and the programs table's per-rank sums.
func TestParquetSplitsRanks(t *testing.T) {
	kernels, programs := sumsByRank(t, swimlaneSeed)
	out := filepath.Join(t.TempDir(), "ds")
	run(t, []string{swimlaneSeed}, Options{To: Parquet, Out: out, Reader: acrossChips})
	kern := readParquet[KernelRow](t, filepath.Join(out, "kernels.parquet"))
	checkKernelRows(t, "parquet kernels", kern, kernels, programs)
	progs := readParquet[ProgramRow](t, filepath.Join(out, "programs.parquet"))
	got := map[string]bool{}
	for _, r := range progs {
		key := r.Rank + "|" + r.Program
		got[key] = true
		w := programs[key]
		if w == nil || r.Dispatches != w.dispatches || r.Timed != w.timed || r.DeviceNS == nil || *r.DeviceNS != w.device {
			t.Errorf("programs: %s: got dispatches %d timed %d device_ns %v; want what the dispatches sum to, %+v", key, r.Dispatches, r.Timed, optI(r.DeviceNS), w)
		}
	}
	for key := range programs {
		if !got[key] {
			t.Errorf("programs: got no row for %s, want one", key)
		}
	}
}

// TestRankProgramsOrder: ranks in order (numbers numerically, then the
// others), a program on each rank it ran on, and a program that ran on no
// rank once under the input's own rank — here "0", which no queue holds.
func TestRankProgramsOrder(t *testing.T) {
	c := &capture.Capture{Queues: []capture.Queue{{Name: "a", Rank: "10"}, {Name: "b", Rank: "2"}, {Name: "c", Rank: "x"}}}
	ran := c.AddProgram(capture.Program{Name: "ran"})
	idle := c.AddProgram(capture.Program{Name: "idle"})
	k := c.AddKernel(capture.Kernel{Program: ran, Name: "k"})
	c.AddKernel(capture.Kernel{Program: idle, Name: "never"})
	in := &input{Input: analysis.Input{Capture: c}}
	agg := analysis.NewAggregator()
	for _, q := range []capture.QueueID{0, 1, 2, 1} {
		d := capture.Dispatch{Program: ran, Queue: q, Kernel: k, Instance: -1, Index: -1, Ordinal: -1,
			Device: capture.Interval{Begin: 0, End: 10, Valid: true}}
		agg.Dispatch(c, &d)
		in.ranks.add(in.rankOf(c, q), c, &d)
	}
	in.Tables = agg.Tables(c)
	var got []string
	for _, rp := range in.rankPrograms() {
		got = append(got, fmt.Sprintf("%s:%s:%d", rp.rank, rp.pt.Program.Name, rp.pt.Dispatches))
	}
	if want := "0:idle:0 2:ran:2 10:ran:1 x:ran:1"; strings.Join(got, " ") != want {
		t.Errorf("rank programs %v, want %s", got, want)
	}
	ranks := []string{"x", "10", "01", "2", "1", "b"}
	sortRanks(ranks)
	if want := "01 1 2 10 b x"; strings.Join(ranks, " ") != want {
		t.Errorf("sortRanks %v, want %s", ranks, want)
	}
	sort.Strings(ranks) // sortRanks must not depend on the order it is given
	sortRanks(ranks)
	if want := "01 1 2 10 b x"; strings.Join(ranks, " ") != want {
		t.Errorf("sortRanks from sorted %v, want %s", ranks, want)
	}
}

// TestPProfSplitsRanks: pprof keys its samples by each dispatch's rank, so
// the seed's samples sum, per rank label, to that rank's dispatches.
func TestPProfSplitsRanks(t *testing.T) {
	kernels, _ := sumsByRank(t, swimlaneSeed)
	out := filepath.Join(t.TempDir(), "p.pb.gz")
	run(t, []string{swimlaneSeed}, Options{To: PProf, Out: out, Reader: acrossChips})
	got := map[string]*rankSums{}
	for _, s := range parseProfile(t, out).Sample {
		prog := strings.TrimPrefix(s.Location[1].Line[0].Function.Name, "program ")
		key := s.Label["rank"][0] + "|" + prog + "|" + s.Location[0].Line[0].Function.Name
		if got[key] == nil {
			got[key] = &rankSums{}
		}
		got[key].dispatches += s.Value[0]
		got[key].device += s.Value[1]
	}
	for key, w := range kernels {
		if g := got[key]; g == nil || g.dispatches != w.dispatches || g.device != w.device {
			t.Errorf("pprof %s: got %+v, want what the dispatches sum to, %+v", key, g, *w)
		}
	}
	if len(got) != len(kernels) {
		t.Errorf("pprof: got %d (rank, program, kernel) samples, want %d as in the dispatches", len(got), len(kernels))
	}
}
