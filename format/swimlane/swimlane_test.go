package swimlane

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/render"
)

const seed = "testdata/seed"

type result struct {
	c      *capture.Capture
	disp   []capture.Dispatch
	tables *analysis.Tables
}

// read reads dir into the reader's own programs (across chips): the split
// by device that --program-by auto adds is format's (format/regroup_test.go).
func read(t *testing.T, dir string) *result {
	t.Helper()
	agg := analysis.NewAggregator()
	var col capture.Collect
	c, err := format.ReadPath(dir, "", &format.Options{ProgramBy: format.ByAnnotation}, capture.Tee{agg, &col})
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, c, col.Dispatches)
	return &result{c: c, disp: col.Dispatches, tables: agg.Tables(c)}
}

// checkModel applies the model's own rules to what was read.
func checkModel(t *testing.T, c *capture.Capture, ds []capture.Dispatch) {
	t.Helper()
	if err := c.Accounting.CheckValid(); err != nil {
		t.Fatal(err)
	}
	// The model's own rules: kernels belong to existing programs, each
	// dispatch's program is its kernel's, gaps name existing programs.
	progs := map[string]bool{}
	for _, p := range c.Programs {
		progs[p.Name] = true
	}
	for _, d := range ds {
		if c.Kernels[d.Kernel].Program != d.Program || int(d.Queue) >= len(c.Queues) || d.Device.Valid && d.Device.Begin > d.Device.End {
			t.Fatalf("got invalid dispatch %+v, want its kernel's program, a known queue and begin <= end", d)
		}
	}
	for _, g := range c.Accounting.Gaps {
		if g.Program != "" && !progs[g.Program] {
			t.Fatalf("gap %s: got program %q that does not exist, want a known one", g.Kind, g.Program)
		}
	}
}

// names maps program → kernel names seen in its dispatches.
func (r *result) names() map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, d := range r.disp {
		p := r.c.Programs[d.Program].Name
		if out[p] == nil {
			out[p] = map[string]int{}
		}
		out[p][r.c.Kernels[d.Kernel].Name]++
	}
	return out
}

func gapCount(c *capture.Capture, k capture.Kind) int64 { return c.Accounting.CountOf(k) }

// The seed case: two programs whose func_ids both start at 0, one chip
// running both, a stale name_map.json (from the other program) in the
// wait's dispatch dir. The 24 ms wait is cross_card_wait, never rms_norm.
func TestSeedCaseNamesFromOwnProgram(t *testing.T) {
	r := read(t, seed)
	n := r.names()
	if n["allreduce"]["cross_card_wait"] != 2 || n["allreduce"]["reduce_add"] != 2 || n["allreduce"]["rms_norm"] != 0 || n["allreduce"]["matmul"] != 0 {
		t.Errorf("got allreduce kernels %v, want cross_card_wait 2, reduce_add 2", n["allreduce"])
	}
	if n["decode"]["rms_norm"] != 4 || n["decode"]["matmul"] != 2 || n["decode"]["cross_card_wait"] != 0 {
		t.Errorf("got decode kernels %v, want rms_norm 4, matmul 2", n["decode"])
	}
	for _, d := range r.disp {
		dur, _ := d.Device.Duration()
		name := r.c.Kernels[d.Kernel].Name
		if dur == 24_000_000 && name != "cross_card_wait" {
			t.Errorf("the 24 ms wait: got named %q, want cross_card_wait", name)
		}
		if r.c.Queues[d.Queue].Rank == "" || !strings.HasPrefix(r.c.Queues[d.Queue].Device, "chip ") {
			t.Errorf("got queue %+v, want a rank and a chip device", r.c.Queues[d.Queue])
		}
		if !d.Launch.Valid || d.Link != capture.LinkLaunched {
			t.Errorf("level-2 task: got %+v, want its dispatch timing, launched", d)
		}
	}
	// The stale maps are listed as ignored (two disagree), never used.
	g := r.c.Accounting.Find(IgnoredNameMap)
	if g == nil || g.Count != 4 || !g.Note {
		t.Fatalf("got ignored name maps %+v, want a note of 4", g)
	}
	disagree := 0
	for _, it := range g.Items {
		if strings.Contains(it.What, "disagrees") && strings.Contains(it.What, `"rms_norm" vs table "cross_card_wait"`) {
			disagree++
		}
	}
	if disagree != 2 {
		t.Errorf("got %d disagreeing maps listed, want 2", disagree)
	}
	// A dispatch dir without records is counted; "notes/" is not a dispatch dir.
	in := r.c.Accounting.InputFor("dispatch dirs")
	if in.Read != 5 || in.Used != 4 || gapCount(r.c, NoRecords) != 1 {
		t.Errorf("got dispatch dirs %+v, no_records %d; want 5 read, 4 used, 1", in, gapCount(r.c, NoRecords))
	}
	if r.c.Accounting.Complete() {
		t.Error("a run with a dispatch dir without records: got complete, want incomplete")
	}
	// JSON report: the allreduce table holds the wait, the decode table the norm.
	var buf bytes.Buffer
	if err := render.JSON(&buf, r.c, r.tables); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Programs []struct {
			Name    string
			Kernels []struct {
				Name    string
				ID      *uint64
				TotalNS *int64 `json:"total_ns"`
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range doc.Programs {
		for _, k := range p.Kernels {
			if p.Name == "allreduce" && k.ID != nil && *k.ID == 0 && (k.Name != "cross_card_wait" || *k.TotalNS != 48_000_000) {
				t.Errorf("allreduce #0 in JSON: got %+v, want cross_card_wait, 48 ms total", k)
			}
			if p.Name == "decode" && k.Name == "cross_card_wait" || p.Name == "allreduce" && k.Name == "rms_norm" {
				t.Errorf("JSON: got %s under %s, want it only under its own program", k.Name, p.Name)
			}
		}
	}
	// Text report.
	buf.Reset()
	if err := render.Text(&buf, r.c, r.tables, render.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	i, j := strings.Index(text, "program allreduce"), strings.Index(text, "program decode")
	if i < 0 || j < 0 {
		t.Fatalf("want programs allreduce and decode in the text report, got:\n%s", text)
	}
	allreduce, _, _ := strings.Cut(text[i:], "\n\n")
	if !strings.Contains(allreduce, "cross_card_wait") || strings.Contains(allreduce, "rms_norm") {
		t.Errorf("want cross_card_wait and no rms_norm in the allreduce table, got:\n%s", allreduce)
	}
}

// variant copies the seed run and lets the test change it.
func variant(t *testing.T, change func(root string)) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "run")
	err := filepath.Walk(seed, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(seed, p)
		dst := filepath.Join(root, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	change(root)
	return root
}

// write writes data to path, making its directory.
func write(t *testing.T, path, data string) {
	t.Helper()
	fixture.Write(t, filepath.Dir(path), filepath.Base(path), []byte(data))
}

// No marker with two programs, and a marker naming an unknown program:
// the dispatch is unresolved, its tasks get anonymous labels, and neither
// program's names (nor the stale name map's) are borrowed.
func TestUnresolvedDispatches(t *testing.T) {
	for name, change := range map[string]func(string){
		"no marker": func(root string) { os.Remove(filepath.Join(root, "dfx_outputs/rank0/d1/dispatch_program.json")) },
		"unknown marker": func(root string) {
			write(t, filepath.Join(root, "dfx_outputs/rank0/d1/dispatch_program.json"), `{"program": "prefill"}`)
		},
		"bad marker": func(root string) {
			write(t, filepath.Join(root, "dfx_outputs/rank0/d1/dispatch_program.json"), `["allreduce"]`)
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := read(t, variant(t, change))
			n := r.names()
			want := map[string]int{"rank0/d1:#0": 1, "rank0/d1:#1": 1}
			if len(n["rank0/d1"]) != 2 || n["rank0/d1"]["rank0/d1:#0"] != want["rank0/d1:#0"] || n["rank0/d1"]["rank0/d1:#1"] != 1 {
				t.Errorf("anonymous labels: got %v, want rank0/d1:#0 and rank0/d1:#1 once each", n)
			}
			if n["allreduce"]["cross_card_wait"] != 1 {
				t.Errorf("the other rank's allreduce: got %v, want cross_card_wait 1", n["allreduce"])
			}
			g := r.c.Accounting.Find(UnresolvedProgram)
			if g == nil || g.Count != 1 || g.Items[0].Where != "rank0/d1" {
				t.Fatalf("got unresolved_program %+v, want one at rank0/d1", g)
			}
			if name == "unknown marker" && !strings.Contains(g.Items[0].What, `"prefill"`) {
				t.Errorf("why: got %s, want it to name \"prefill\"", g.Items[0].What)
			}
			for _, k := range r.c.Kernels {
				if r.c.Programs[k.Program].Name == "rank0/d1" && k.Resolved {
					t.Errorf("unresolved dispatch's kernel: got named %q, want unresolved", k.Name)
				}
			}
		})
	}
}

func TestSingleProgramInferred(t *testing.T) {
	root := variant(t, func(root string) {
		os.RemoveAll(filepath.Join(root, "next_levels/allreduce"))
		for _, d := range []string{"rank0/d1", "rank1/d1"} {
			os.RemoveAll(filepath.Join(root, "dfx_outputs", d))
		}
		for _, d := range []string{"rank0/d0", "rank1/d0"} {
			os.Remove(filepath.Join(root, "dfx_outputs", d, "dispatch_program.json"))
		}
	})
	r := read(t, root)
	if n := r.names(); n["decode"]["rms_norm"] != 4 || len(n) != 1 {
		t.Errorf("got names %v, want only decode with rms_norm 4", n)
	}
	g := r.c.Accounting.Find(InferredProgram)
	if g == nil || g.Count != 2 || !g.Note || !strings.Contains(g.Items[0].What, "inferred: single program in build") {
		t.Errorf("got inferred %+v, want a note of 2 saying inferred: single program in build", g)
	}
}

// A kernel_config.py whose KERNELS is empty: the program is known but names
// nothing, so its kernels are program:#id; without KERNELS at all the
// program's dispatches are unresolved.
func TestKernelTables(t *testing.T) {
	r := read(t, variant(t, func(root string) {
		write(t, filepath.Join(root, "next_levels/allreduce/kernel_config.py"), "KERNELS = []\n")
	}))
	if n := r.names(); n["allreduce"]["allreduce:#0"] != 2 || n["allreduce"]["allreduce:#1"] != 2 {
		t.Errorf("empty table: got %v, want allreduce:#0 and allreduce:#1 twice each", n)
	}
	if gapCount(r.c, capture.UnresolvedName) != 2 {
		t.Errorf("got unresolved names %d, want 2", gapCount(r.c, capture.UnresolvedName))
	}

	r = read(t, variant(t, func(root string) {
		write(t, filepath.Join(root, "next_levels/allreduce/kernel_config.py"), "RUNTIME_CONFIG = {}\n")
	}))
	if n := r.names(); n["rank0/d1"]["rank0/d1:#0"] != 1 || n["rank1/d1"]["rank1/d1:#0"] != 1 {
		t.Errorf("no KERNELS: got %v, want rank0/d1:#0 and rank1/d1:#0 once each", n)
	}
	g := r.c.Accounting.Find(UnresolvedProgram)
	if g == nil || g.Count != 2 || !strings.Contains(g.Items[0].What, "no KERNELS table") {
		t.Errorf("got unresolved %+v, want 2 saying no KERNELS table", g)
	}

	r = read(t, variant(t, func(root string) {
		write(t, filepath.Join(root, "next_levels/decode/kernel_config.py"),
			"KERNELS = [{'func_id': 0, 'name': 'rms_norm'}, {'name': 'x'}, {'func_id': 1, 'name': 'mm'}, {'func_id': 1, 'name': 'matmul'}]\n")
	}))
	if g := r.c.Accounting.Find(KernelTable); g == nil || g.Count != 2 {
		t.Errorf("got kernel_table %+v, want 2", g)
	}
	if n := r.names(); n["decode"]["matmul"] != 2 {
		t.Errorf("duplicate func_id: got %v, want the later (matmul) to win with 2", n["decode"])
	}
}

func TestRecordsEdges(t *testing.T) {
	rec := func(level int, extra string) string {
		return `{"chip_swimlane_level": ` + string(rune('0'+level)) + `, "metadata": {"clock_freq_hz": 1000000000, "core_types": ["aic", "aiv"]` + extra + `},
		"aicore_tasks": [[0, 0, 0, 100, 300, 5], [1, 1, 1, 0, 50, 0], [1, 2, 2, 400, 350, 0], [1, 3, 3, 500, 900]],
		"aicpu_tasks": [[0, 0, 90, 310], [1, 9, 10, 20]]}`
	}
	r := read(t, variant(t, func(root string) {
		write(t, filepath.Join(root, "dfx_outputs/rank0/d0/chip_swimlane_records.json"), rec(2, ""))
		os.Remove(filepath.Join(root, "dfx_outputs/rank0/d0/deps.json"))
		write(t, filepath.Join(root, "dfx_outputs/rank1/d1/chip_swimlane_records.json"), rec(1, `, "platform": "a2a3sim"`))
	}))
	core := r.c.Accounting.InputFor("aicore rows")
	// The simulator dispatch (rank1/d1) is skipped as a whole dispatch dir.
	if core.Read != 4+3+2 || core.Used != 2+3+2 || core.Read != core.Used+core.SkippedTotal() {
		t.Errorf("got aicore rows %+v, want 9 read, 7 used, the rest skipped", core)
	}
	if gapCount(r.c, capture.InvalidEvent) != 2 || gapCount(r.c, capture.DroppedRecords) != 1 || gapCount(r.c, SchedulerTimingMissing) != 1 {
		t.Errorf("got invalid %d dropped %d scheduler %d, want 2, 1, 1", gapCount(r.c, capture.InvalidEvent), gapCount(r.c, capture.DroppedRecords), gapCount(r.c, SchedulerTimingMissing))
	}
	if gapCount(r.c, MissingDeps) != 1 || r.names()["decode"]["decode:#?"] != 2 {
		t.Errorf("missing deps: got %d, %v; want 1 and decode:#? twice", gapCount(r.c, MissingDeps), r.names()["decode"])
	}
	if gapCount(r.c, NotConvertible) != 1 {
		t.Errorf("simulator not stated: got %d not_convertible, want 1", gapCount(r.c, NotConvertible))
	}
	// a5 timing: 1 GHz, ns = cycles; receive_to_start 5 → launch [90, 95].
	for _, d := range r.disp {
		if d.Device.Begin == 100 && (d.Device.End != 300 || d.Launch.Begin != 90 || d.Launch.End != 95) {
			t.Errorf("got times %+v launch %+v, want 100–300 launched 90–95", d.Device, d.Launch)
		}
	}
}

func TestNotARun(t *testing.T) {
	dir := t.TempDir()
	if SniffDir(dir) != format.No {
		t.Error("an empty directory: got sniffed as a run, want No")
	}
	if _, err := format.ReadPath(dir, "", nil, nil); err == nil {
		t.Error("an empty directory: got read, want an error")
	}
	os.MkdirAll(filepath.Join(dir, "dfx_outputs", "rank0"), 0o755)
	c, err := format.ReadPath(dir, "", nil, nil)
	if err != nil || gapCount(c, capture.EmptyCapture) != 1 {
		t.Errorf("a run without dispatches: got %v %+v, want no error and one empty_capture", err, c)
	}
	if _, err := format.ReadFile(filepath.Join(seed, "dfx_outputs/rank0/d0/chip_swimlane_records.json"), Name, nil, nil); err == nil ||
		!strings.Contains(err.Error(), "directory") {
		t.Errorf("one records file: got %v, want an error asking for the directory", err)
	}
	if v, ok := toNS(1<<63, 1); ok {
		t.Errorf("overflow: got converted to %d, want refused", v)
	}
	if v, ok := toNS(3, 50_000_000); !ok || v != 60 {
		t.Errorf("3 cycles at 50 MHz: got %d ns, want 60", v)
	}
}

// Cycle counts that do not fit in int64 ns leave a task untimed, and the
// capture says why (untimed_input) rather than only showing fewer timed.
func TestUntimedTaskStated(t *testing.T) {
	r := read(t, variant(t, func(root string) {
		p := filepath.Join(root, "dfx_outputs/rank0/d0/chip_swimlane_records.json")
		data := fixture.Read(t, p)
		huge := strings.Replace(string(data), "[1, 0, 0, 1000100, 1001100, 10]", "[1, 0, 0, 18000000000000000000, 18000000000000000001, 10]", 1)
		if huge == string(data) {
			t.Fatal("seed row not found, want it in the records file")
		}
		write(t, p, huge)
	}))
	untimed := 0
	for _, d := range r.disp {
		if !d.Device.Valid {
			untimed++
		}
	}
	if untimed != 1 || gapCount(r.c, capture.UntimedInput) != 1 {
		t.Fatalf("got %d untimed dispatches, untimed_input %d; want 1 and 1", untimed, gapCount(r.c, capture.UntimedInput))
	}
}

// Dropped-record counts from the producer are trusted only so far: two
// files claiming MaxInt64 each must not wrap the gap's count negative (a
// negative count reads as complete).
func TestDroppedRecordsSaturate(t *testing.T) {
	r := read(t, variant(t, func(root string) {
		for _, d := range []string{"rank0/d0", "rank1/d0"} {
			p := filepath.Join(root, "dfx_outputs", d, "chip_swimlane_records.json")
			data := fixture.Read(t, p)
			huge := strings.Replace(string(data), `"dropped_records": 0`, `"dropped_records": 9223372036854775807`, 1)
			if huge == string(data) {
				t.Fatal("seed field not found, want dropped_records in the records file")
			}
			write(t, p, huge)
		}
	}))
	if n := gapCount(r.c, capture.DroppedRecords); n != math.MaxInt64 || r.c.Accounting.Complete() {
		t.Fatalf("got dropped_records count %d, want %d and incomplete", n, int64(math.MaxInt64))
	}
}
