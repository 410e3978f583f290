package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/golden"
	"github.com/tallyprof/tally/internal/testfile"
)

const (
	example   = "../examples/decode-fault.kept"
	manifests = "../examples/kernels"
)

func exampleOpts(to, out string) Options {
	return Options{To: to, Out: out, Reader: format.Options{Manifests: []string{manifests}}}
}

func run(t *testing.T, paths []string, opt Options) *Result {
	t.Helper()
	res, err := Run(paths, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sameID replaces every export id with one: two exports of the same
// inputs differ in their id only.
func sameID(b []byte) []byte {
	return exportIDPattern.ReplaceAll(b, []byte("00000000-0000-7000-8000-000000000000"))
}

var exportIDPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`)

// withoutOutput drops a gaps file's last line (the table's rows and bytes).
func withoutOutput(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return b[:bytes.LastIndexByte(b, '\n')+1]
}

// read is the content of the file p, which must be readable.
func read(t *testing.T, p string) []byte { t.Helper(); return testfile.Read(t, p) }

// readCSV is the records of the CSV file p.
func readCSV(t *testing.T, p string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(read(t, p))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestGolden keeps the CSV and JSON Lines exports of the shipped example,
// per dispatch and per kernel, and their gaps files.
func TestGolden(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name      string
		to        string
		perKernel bool
	}{{"dispatches.csv", CSV, false}, {"kernels.csv", CSV, true}, {"dispatches.jsonl", JSONL, false}, {"kernels.jsonl", JSONL, true}} {
		out := filepath.Join(dir, c.name)
		opt := exampleOpts(c.to, out)
		opt.PerKernel = c.perKernel
		res := run(t, []string{example}, opt)
		if res.Complete {
			t.Errorf("%s: got the result complete, want incomplete: the example has gaps", c.name)
		}
		if _, err := CheckPair(out, out+".gaps."+c.to); err != nil {
			t.Errorf("%s: CheckPair: got %v, want no error", c.name, err)
		}
		golden.Check(t, "testdata/decode-fault."+c.name+".golden", sameID(read(t, out)))
		gaps := sameID(read(t, out+".gaps."+c.to))
		if !c.perKernel {
			golden.Check(t, "testdata/decode-fault."+c.name+".gaps.golden", gaps)
		} else if want := sameID(read(t, "testdata/decode-fault.dispatches."+c.to+".gaps.golden")); !bytes.Equal(withoutOutput(gaps), withoutOutput(want)) {
			// The accounting does not depend on --per-kernel; the last
			// line (the table's rows and bytes) does.
			t.Errorf("%s: got a gaps file differing from the per-dispatch export's, want the same but for its last line", c.name)
		}
	}
}

// Each row type writes one CSV cell per column of its header (its Parquet
// schema): a column added to the struct and not to its cells would shift
// every cell after it under the wrong name.
func TestCellsMatchColumns(t *testing.T) {
	for _, c := range []struct {
		name  string
		cells []string
		cols  []string
	}{
		{"dispatch", new(DispatchRow).cells(nil), columns[DispatchRow]()},
		{"kernel", new(KernelRow).cells(nil), columns[KernelRow]()},
		{"op", new(OpRow).cells(nil), columns[OpRow]()},
		{"gap", new(GapRow).cells(nil), columns[GapRow]()},
	} {
		if len(c.cells) != len(c.cols) {
			t.Errorf("%s rows: got %d cells, want %d (one per column: %v)", c.name, len(c.cells), len(c.cols), c.cols)
		}
	}
}

// TestCSVMatchesTables checks the dispatch rows against tally's own tables:
// one row per completed dispatch, the same per-kernel sums, no row for the
// unfinished one, and the gaps file's accounting invariants.
func TestCSVMatchesTables(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d.csv")
	run(t, []string{example}, exampleOpts(CSV, out))
	rows := readCSV(t, out)
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	const header = "rank,input,program,run,kernel,kernel_id,resolved,category,list,queue,device,index,ordinal," +
		"dispatches,start_ns,end_ns,device_ns,launch_start_ns,launch_end_ns,launch_ns,link,export_id"
	if got := strings.Join(rows[0], ","); got != header {
		t.Fatalf("got header %s, want %s", got, header)
	}
	res := readOne(t, example, format.Options{Manifests: []string{manifests}})
	type key struct{ program, kernel, list string }
	sum, n := map[key]int64{}, map[key]int64{}
	for _, r := range rows[1:] {
		k := key{r[col["program"]], r[col["kernel"]], r[col["list"]]}
		v, err := strconv.ParseInt(r[col["device_ns"]], 10, 64)
		if err != nil {
			t.Fatalf("device_ns %q: got %v, want an integer", r[col["device_ns"]], err)
		}
		s, _ := strconv.ParseInt(r[col["start_ns"]], 10, 64)
		e, _ := strconv.ParseInt(r[col["end_ns"]], 10, 64)
		if e-s != v {
			t.Fatalf("row %v: got end-start %d, want device_ns %d", r, e-s, v)
		}
		sum[k] += v
		n[k]++
	}
	if int64(len(rows)-1) != res.Tables.Dispatches() {
		t.Errorf("got %d rows, want %d (tally's tables' dispatches)", len(rows)-1, res.Tables.Dispatches())
	}
	for _, pt := range res.Tables.Programs {
		for _, kr := range pt.Kernels {
			// hrx kernels carry the list on the dispatch; main is the default.
			k := key{pt.Program.Name, kr.Kernel.Name, kr.Kernel.List}
			if sum[k] != kr.Total || n[k] != kr.Dispatches {
				t.Errorf("%v: got rows summing to %d over %d, want the table's %d over %d", k, sum[k], n[k], kr.Total, kr.Dispatches)
			}
		}
	}
	gaps := readCSV(t, out+".gaps.csv")
	var unfinished bool
	read, used, skipped := map[string]int64{}, map[string]int64{}, map[string]int64{}
	for _, g := range gaps[1:] {
		cnt, _ := strconv.ParseInt(g[6], 10, 64)
		switch g[3] {
		case "input":
			read[g[8]] = cnt
			used[g[8]], _ = strconv.ParseInt(g[7], 10, 64)
		case "skip":
			skipped[g[8]] += cnt
		case "gap":
			unfinished = unfinished || g[4] == "unfinished_dispatch" && cnt == 1 && strings.Contains(g[10], "ggml_mul_mat")
		}
	}
	if !unfinished {
		t.Errorf("got a gaps file without the unfinished matmul, want one unfinished_dispatch row of ggml_mul_mat:\n%v", gaps)
	}
	for u := range read {
		if read[u] != used[u]+skipped[u] {
			t.Errorf("%s: got %d read, want %d used + %d skipped", u, read[u], used[u], skipped[u])
		}
	}
	if read["lines"] != 1934 || skipped["lines"] != 7 {
		t.Errorf("lines read %d, skipped %d; want 1934, 7", read["lines"], skipped["lines"])
	}
}

// TestAggregatedRows: an aggregated record is one row with its count and
// sums, null start/end, counted in the gaps file; per kernel its min/max
// are null.
func TestAggregatedRows(t *testing.T) {
	dir := t.TempDir()
	in := writeSynth(t, dir, "agg.synth", synthSpec{N: 6, Kernels: 2, Aggregated: true, Queues: nil})
	out := filepath.Join(dir, "a.jsonl")
	run(t, []string{in}, Options{To: JSONL, Out: out, Format: synthFormat})
	var aggRows, singles, disp, dev int64
	for _, line := range bytes.Split(bytes.TrimSpace(read(t, out)), []byte("\n")) {
		var r DispatchRow
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		disp += r.Dispatches
		dev += *r.DeviceNS
		if r.Dispatches > 1 {
			aggRows++
			if r.StartNS != nil || r.EndNS != nil || r.LaunchStartNS != nil || r.LaunchEndNS != nil {
				t.Errorf("got aggregated row with single-dispatch times, want none: %s", line)
			}
		} else {
			singles++
		}
		if !bytes.Contains(line, []byte(`"launch_ns":`)) {
			t.Errorf("got row without launch_ns, want every key: %s", line)
		}
	}
	// 6 singles of 100 and 200 ns (3 each), 2 aggregated records of 10.
	if aggRows != 2 || singles != 6 || disp != 26 || dev != 3*100+3*200+2*1000 {
		t.Errorf("got aggregated %d singles %d dispatches %d device_ns %d; want 2, 6, 26, %d", aggRows, singles, disp, dev, 3*100+3*200+2*1000)
	}
	if g := string(read(t, out+".gaps.jsonl")); !strings.Contains(g, `"kind":"aggregated_records","program":"","count":2`) {
		t.Errorf("got a gaps file without the aggregated records counted, want aggregated_records count 2 in:\n%s", g)
	}
	out = filepath.Join(dir, "k.csv")
	run(t, []string{in}, Options{To: CSV, Out: out, Format: synthFormat, PerKernel: true})
	rows := readCSV(t, out)
	for _, r := range rows[1:] {
		if r[8] != "13" || r[10] != "10" || r[12] != "" || r[13] != "" {
			t.Errorf("kernel row %v: want 13 dispatches, 10 aggregated, null min/max", r)
		}
	}
}

// TestTicksStated: a program on device ticks keeps its values, and the gaps
// file says so loudly (not a note).
func TestTicksStated(t *testing.T) {
	dir := t.TempDir()
	in := writeSynth(t, dir, "t.synth", synthSpec{N: 4, Kernels: 1, Ticks: true})
	out := filepath.Join(dir, "t.csv")
	run(t, []string{in}, Options{To: CSV, Out: out, Format: synthFormat})
	g := string(read(t, out+".gaps.csv"))
	if !strings.Contains(g, "export,times_not_ns,,4,0,,false,") || !strings.Contains(g, "programs: step") {
		t.Errorf("got no times_not_ns row naming programs: step, want one in:\n%s", g)
	}
}

// TestRanks: queue rank, then source rank, then the input's index.
func TestRanks(t *testing.T) {
	dir := t.TempDir()
	a := writeSynth(t, dir, "a.synth", synthSpec{N: 2, Queues: []capture.Queue{{Name: "s0", Rank: "7"}, {Name: "s1"}}, SourceRank: "5"})
	b := writeSynth(t, dir, "b.synth", synthSpec{N: 1})
	out := filepath.Join(dir, "r.csv")
	run(t, []string{a, b}, Options{To: CSV, Out: out, Format: synthFormat})
	rows := readCSV(t, out)
	var got []string
	for _, r := range rows[1:] {
		got = append(got, r[0])
	}
	if strings.Join(got, " ") != "7 5 1" {
		t.Errorf("ranks %v, want queue rank 7, source rank 5, input index 1", got)
	}
}

// A program timed in device ticks has no ns totals, but its kernels' shares
// are unit-free: written, not 0 (0 would say the kernel took no time).
func TestTicksShares(t *testing.T) {
	dir := t.TempDir()
	in := writeSynth(t, dir, "t.synth", synthSpec{N: 6, Kernels: 2, Ticks: true})
	out := filepath.Join(dir, "t.jsonl")
	opt := Options{To: JSONL, Out: out, Format: synthFormat, PerKernel: true}
	run(t, []string{in}, opt)
	var sum float64
	for _, line := range strings.Split(strings.TrimSpace(string(read(t, out))), "\n") {
		var r KernelRow
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.DeviceNS != nil {
			t.Errorf("%s: got device_ns %d for a ticks program, want none", r.Kernel, *r.DeviceNS)
		}
		if r.ShareOfProg <= 0 {
			t.Errorf("%s: share %v, want its share of the program's ticks", r.Kernel, r.ShareOfProg)
		}
		sum += r.ShareOfProg
	}
	if sum < 0.999 || sum > 1.001 {
		t.Errorf("got shares summing to %v, want 1", sum)
	}
}
