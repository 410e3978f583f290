package export

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/tallyprof/tally/capture"
)

// readParquet reads a Parquet file's rows.
func readParquet[T any](t *testing.T, path string) []T {
	t.Helper()
	rows, err := parquet.ReadFile[T](path)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func files(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// TestParquetDataset reads a dataset back with parquet-go: the layout (one
// file per input and rank), nulls for times not recorded (never 0),
// aggregated records with their counts, and the small tables.
func TestParquetDataset(t *testing.T) {
	dir := t.TempDir()
	a := writeSynth(t, dir, "a.synth", synthSpec{N: 20, Kernels: 2, Untimed: true, Aggregated: true, Unfinished: true,
		Queues: []capture.Queue{{Name: "s0", Rank: "0"}, {Name: "s1", Rank: "1"}}})
	b := writeSynth(t, dir, "b.synth", synthSpec{N: 3, SourceRank: "a/b"})
	out := filepath.Join(dir, "ds")
	run(t, []string{a, b}, Options{To: Parquet, Out: out, Format: synthFormat})
	want := []string{"_tally_export.json", "breakdown.parquet", "collectives.parquet", "dispatches/rank=0/input-00000.parquet", "dispatches/rank=1/input-00000.parquet",
		"dispatches/rank=a%2Fb/input-00001.parquet", "gaps.parquet", "inputs.parquet", "kernels.parquet", "programs.parquet"}
	if got := files(t, out); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("dataset files\n%v\nwant\n%v", got, want)
	}
	var rows []DispatchRow
	for _, f := range want[3:6] {
		r := readParquet[DispatchRow](t, filepath.Join(out, f))
		rows = append(rows, r...)
	}
	var disp, untimed, agg int64
	for _, r := range rows {
		disp += r.Dispatches
		switch {
		case r.Dispatches > 1:
			agg++
			if r.StartNS != nil || r.LaunchStartNS != nil || r.DeviceNS == nil || *r.DeviceNS != 1000 {
				t.Errorf("got aggregated row %+v, want no start or launch start, device_ns 1000", r)
			}
		case r.StartNS == nil:
			untimed++
			if r.EndNS != nil || r.DeviceNS != nil || r.LaunchStartNS != nil || r.LaunchEndNS != nil || r.LaunchNS != nil {
				t.Errorf("got untimed row with a time %+v, want none", r)
			}
		default:
			if *r.StartNS == 0 && *r.EndNS == 0 || r.LaunchStartNS == nil || *r.LaunchEndNS-*r.LaunchStartNS != *r.LaunchNS {
				t.Errorf("got timed row %+v, want start/end set, launch start and launch_ns = launch end - start", r)
			}
		}
		if r.Run != nil && r.Dispatches > 1 {
			t.Errorf("got aggregated record with a run %+v, want none", r)
		}
	}
	// 20 + 3 single dispatches, 2 aggregated records of 10; every 10th
	// dispatch of input a untimed.
	if disp != 43 || agg != 2 || untimed != 2 || len(rows) != 25 {
		t.Errorf("got dispatches %d, aggregated rows %d, untimed rows %d, rows %d; want 43, 2, 2, 25", disp, agg, untimed, len(rows))
	}
	ins := readParquet[InputRow](t, filepath.Join(out, "inputs.parquet"))
	if len(ins) != 2 || ins[0].Complete || !ins[1].Complete || ins[0].Unfinished != 1 || ins[1].Rank != "a/b" || ins[0].RankFrom != "input-index" || ins[1].RankFrom != "source" || ins[0].Dispatches != 40 {
		t.Errorf("got inputs %+v, want a incomplete (1 unfinished, 40 dispatches, rank from input-index), b complete (rank a/b from source)", ins)
	}
	gaps := readParquet[GapRow](t, filepath.Join(out, "gaps.parquet"))
	var kinds []string
	for _, g := range gaps {
		kinds = append(kinds, g.Record+":"+g.Kind)
	}
	if k := strings.Join(kinds, " "); !strings.Contains(k, "gap:unfinished_dispatch") || !strings.Contains(k, "export:aggregated_records") || !strings.Contains(k, "export:untimed_dispatches") {
		t.Errorf("got gaps %v, want gap:unfinished_dispatch, export:aggregated_records and export:untimed_dispatches", kinds)
	}
	kern := readParquet[KernelRow](t, filepath.Join(out, "kernels.parquet"))
	// Input a's kernels split by queue rank: kernel 0 and the aggregated
	// records (no queue: the input's rank, 0) on rank 0, kernel 1's single
	// dispatches on rank 1; input b's one kernel on its source rank.
	var kr []string
	for _, k := range kern {
		kr = append(kr, fmt.Sprintf("%s:%s:%d/%d", k.Rank, k.Kernel, k.Dispatches, k.Aggregated))
	}
	if got, want := strings.Join(kr, " "), "0:kern<0, float>:20/10 0:kern<1, float>:10/10 1:kern<1, float>:10/0 a/b:kern<0, float>:3/0"; got != want || kern[0].MinNS != nil {
		t.Errorf("kernels (rank:kernel:dispatches/aggregated)\n%s\nwant\n%s\n%+v", got, want, kern)
	}
	var marker struct{ Schema string }
	if err := json.Unmarshal(read(t, filepath.Join(out, datasetMarker)), &marker); err != nil || marker.Schema != DatasetSchema {
		t.Errorf("got marker %v %v, want schema %s", marker, err, DatasetSchema)
	}
}

// TestParquetReplace: an earlier dataset is replaced; a directory tally
// did not write is refused and left alone.
func TestParquetReplace(t *testing.T) {
	dir := t.TempDir()
	a := writeSynth(t, dir, "a.synth", synthSpec{N: 2})
	b := writeSynth(t, dir, "b.synth", synthSpec{N: 3}) // not a copy of a: both are read
	out := filepath.Join(dir, "ds")
	run(t, []string{a, b}, Options{To: Parquet, Out: out, Format: synthFormat})
	if got := files(t, filepath.Join(out, "dispatches")); len(got) != 2 {
		t.Fatalf("got dataset of two inputs holding %v, want 2 files", got)
	}
	run(t, []string{a}, Options{To: Parquet, Out: out, Format: synthFormat})
	if got := files(t, filepath.Join(out, "dispatches")); len(got) != 1 {
		t.Errorf("got replaced dataset holding %v, want 1 file", got)
	}
	other := filepath.Join(dir, "mine")
	os.Mkdir(other, 0o755)
	os.WriteFile(filepath.Join(other, "keep"), []byte("x"), 0o644)
	_, err := Run([]string{a}, Options{To: Parquet, Out: other, Format: synthFormat})
	if err == nil || !strings.Contains(err.Error(), other) {
		t.Errorf("a foreign directory: got %v, want an error naming %s", err, other)
	}
	if got := files(t, other); len(got) != 1 {
		t.Errorf("got foreign directory holding %v, want it untouched (keep only)", got)
	}
	assertNoTemp(t, dir)
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("got temporary %s left behind, want none", e.Name())
		}
	}
}

// The breakdown table holds each input's device rows, adding up to their
// windows, and the same figures as the report's breakdown.
func TestParquetBreakdown(t *testing.T) {
	dir := t.TempDir()
	in := "../format/kineto/testdata/hta__sampled_rank-0.json.gz"
	out := filepath.Join(dir, "ds")
	run(t, []string{in}, Options{To: Parquet, Out: out})
	rows := readParquet[BreakdownRow](t, filepath.Join(out, "breakdown.parquet"))
	if len(rows) != 1 {
		t.Fatalf("rows: got %d, want 1 (one GPU)", len(rows))
	}
	r := rows[0]
	sum := r.BusyComputeNS + r.BusyCommNS + r.BusyMemcpyNS + r.BusyMemsetNS + r.IdleHostWaitNS + r.IdleLaunchLatencyNS + r.IdleOtherStreamNS + r.IdleUnrecordedNS + r.IdleUnexplainedNS
	if sum != r.WindowNS || r.WindowNS != r.EndNS-r.BeginNS {
		t.Errorf("busy + idle = %d, want window_ns %d (= end − begin %d)", sum, r.WindowNS, r.EndNS-r.BeginNS)
	}
	// The report's figures (inputs_test's shared-trace run has them too).
	want := BreakdownRow{Device: "GPU 0", Unit: "ns", WindowNS: 1222847000, BusyComputeNS: 210320000, BusyCommNS: 336983000,
		IdleHostWaitNS: 283051000, IdleUnrecordedNS: 298522000, CommTotalNS: 396199000, CommOverlappedNS: 59216000, LaunchRecords: true}
	if r.Device != want.Device || r.Unit != want.Unit || r.WindowNS != want.WindowNS || r.BusyComputeNS != want.BusyComputeNS ||
		r.BusyCommNS != want.BusyCommNS || r.IdleHostWaitNS != want.IdleHostWaitNS || r.IdleUnrecordedNS != want.IdleUnrecordedNS ||
		r.CommTotalNS != want.CommTotalNS || r.CommOverlappedNS != want.CommOverlappedNS || r.LaunchRecords != want.LaunchRecords {
		t.Errorf("row: got %+v, want %+v", r, want)
	}
	if r.HostWaitAfterSyncNS != nil {
		t.Errorf("host_wait_after_sync_ns: got %d, want null (this trace has no sync call before a launch)", *r.HostWaitAfterSyncNS)
	}
}

// An input without a dispatch row (its every event invalid: no
// empty_capture, exit 0) still writes its dispatches file, with no row:
// docs/export.md's queries read dispatches/*/*.parquet, and DuckDB fails
// on a glob that matches nothing ("No files found that match the
// pattern"). Found by the output sweep (an iree-jsonl trace whose one
// dispatch row has its times reversed, queried with DuckDB).
func TestParquetNoDispatchRow(t *testing.T) {
	for _, n := range []int{0, 3} { // 3: the negative arm, no extra file
		dir := t.TempDir()
		in := writeSynth(t, dir, "a.synth", synthSpec{N: n, SourceRank: "5"})
		out := filepath.Join(dir, "ds")
		run(t, []string{in}, Options{To: Parquet, Out: out, Format: synthFormat})
		var got []string
		for _, f := range files(t, out) {
			if strings.HasPrefix(f, "dispatches/") {
				got = append(got, f)
			}
		}
		if len(got) != 1 || got[0] != "dispatches/rank=5/input-00000.parquet" {
			t.Fatalf("%d dispatches: got dispatch files %v, want dispatches/rank=5/input-00000.parquet", n, got)
		}
		if rows := readParquet[DispatchRow](t, filepath.Join(out, got[0])); len(rows) != n {
			t.Errorf("got %d rows, want %d", len(rows), n)
		}
	}
}
