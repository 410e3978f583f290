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
			t.Fatalf("invalid dispatch %+v", d)
		}
	}
	for _, g := range c.Accounting.Gaps {
		if g.Program != "" && !progs[g.Program] {
			t.Fatalf("gap %s names program %q that does not exist", g.Kind, g.Program)
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
		t.Errorf("allreduce kernels %v", n["allreduce"])
	}
	if n["decode"]["rms_norm"] != 4 || n["decode"]["matmul"] != 2 || n["decode"]["cross_card_wait"] != 0 {
		t.Errorf("decode kernels %v", n["decode"])
	}
	for _, d := range r.disp {
		dur, _ := d.Device.Duration()
		name := r.c.Kernels[d.Kernel].Name
		if dur == 24_000_000 && name != "cross_card_wait" {
			t.Errorf("the 24 ms wait is named %q", name)
		}
		if r.c.Queues[d.Queue].Rank == "" || !strings.HasPrefix(r.c.Queues[d.Queue].Device, "chip ") {
			t.Errorf("queue %+v", r.c.Queues[d.Queue])
		}
		if !d.Launch.Valid || d.Link != capture.LinkLaunched {
			t.Errorf("level-2 task without its dispatch timing: %+v", d)
		}
	}
	// The stale maps are listed as ignored (two disagree), never used.
	g := r.c.Accounting.Find(IgnoredNameMap)
	if g == nil || g.Count != 4 || !g.Note {
		t.Fatalf("ignored name maps: %+v", g)
	}
	disagree := 0
	for _, it := range g.Items {
		if strings.Contains(it.What, "disagrees") && strings.Contains(it.What, `"rms_norm" vs table "cross_card_wait"`) {
			disagree++
		}
	}
	if disagree != 2 {
		t.Errorf("%d disagreeing maps listed", disagree)
	}
	// A dispatch dir without records is counted; "notes/" is not a dispatch dir.
	in := r.c.Accounting.InputFor("dispatch dirs")
	if in.Read != 5 || in.Used != 4 || gapCount(r.c, NoRecords) != 1 {
		t.Errorf("dispatch dirs %+v, no_records %d", in, gapCount(r.c, NoRecords))
	}
	if r.c.Accounting.Complete() {
		t.Error("a run with a dispatch dir without records reads as complete")
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
				t.Errorf("allreduce #0 in JSON: %+v", k)
			}
			if p.Name == "decode" && k.Name == "cross_card_wait" || p.Name == "allreduce" && k.Name == "rms_norm" {
				t.Errorf("JSON: %s under %s", k.Name, p.Name)
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
		t.Fatalf("text report:\n%s", text)
	}
	allreduce, _, _ := strings.Cut(text[i:], "\n\n")
	if !strings.Contains(allreduce, "cross_card_wait") || strings.Contains(allreduce, "rms_norm") {
		t.Errorf("allreduce table:\n%s", allreduce)
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
				t.Errorf("anonymous labels: %v", n)
			}
			if n["allreduce"]["cross_card_wait"] != 1 {
				t.Errorf("the other rank's allreduce: %v", n["allreduce"])
			}
			g := r.c.Accounting.Find(UnresolvedProgram)
			if g == nil || g.Count != 1 || g.Items[0].Where != "rank0/d1" {
				t.Fatalf("unresolved_program: %+v", g)
			}
			if name == "unknown marker" && !strings.Contains(g.Items[0].What, `"prefill"`) {
				t.Errorf("why: %s", g.Items[0].What)
			}
			for _, k := range r.c.Kernels {
				if r.c.Programs[k.Program].Name == "rank0/d1" && k.Resolved {
					t.Errorf("unresolved dispatch's kernel named %q", k.Name)
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
		t.Errorf("names %v", n)
	}
	g := r.c.Accounting.Find(InferredProgram)
	if g == nil || g.Count != 2 || !g.Note || !strings.Contains(g.Items[0].What, "inferred: single program in build") {
		t.Errorf("inferred: %+v", g)
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
		t.Errorf("empty table: %v", n)
	}
	if gapCount(r.c, capture.UnresolvedName) != 2 {
		t.Errorf("unresolved names %d", gapCount(r.c, capture.UnresolvedName))
	}

	r = read(t, variant(t, func(root string) {
		write(t, filepath.Join(root, "next_levels/allreduce/kernel_config.py"), "RUNTIME_CONFIG = {}\n")
	}))
	if n := r.names(); n["rank0/d1"]["rank0/d1:#0"] != 1 || n["rank1/d1"]["rank1/d1:#0"] != 1 {
		t.Errorf("no KERNELS: %v", n)
	}
	g := r.c.Accounting.Find(UnresolvedProgram)
	if g == nil || g.Count != 2 || !strings.Contains(g.Items[0].What, "no KERNELS table") {
		t.Errorf("unresolved: %+v", g)
	}

	r = read(t, variant(t, func(root string) {
		write(t, filepath.Join(root, "next_levels/decode/kernel_config.py"),
			"KERNELS = [{'func_id': 0, 'name': 'rms_norm'}, {'name': 'x'}, {'func_id': 1, 'name': 'mm'}, {'func_id': 1, 'name': 'matmul'}]\n")
	}))
	if g := r.c.Accounting.Find(KernelTable); g == nil || g.Count != 2 {
		t.Errorf("kernel_table: %+v", g)
	}
	if n := r.names(); n["decode"]["matmul"] != 2 {
		t.Errorf("duplicate func_id: the later should win: %v", n["decode"])
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
		t.Errorf("aicore rows %+v", core)
	}
	if gapCount(r.c, capture.InvalidEvent) != 2 || gapCount(r.c, capture.DroppedRecords) != 1 || gapCount(r.c, SchedulerTimingMissing) != 1 {
		t.Errorf("invalid %d dropped %d scheduler %d", gapCount(r.c, capture.InvalidEvent), gapCount(r.c, capture.DroppedRecords), gapCount(r.c, SchedulerTimingMissing))
	}
	if gapCount(r.c, MissingDeps) != 1 || r.names()["decode"]["decode:#?"] != 2 {
		t.Errorf("missing deps: %d, %v", gapCount(r.c, MissingDeps), r.names()["decode"])
	}
	if gapCount(r.c, NotConvertible) != 1 {
		t.Errorf("simulator not stated")
	}
	// a5 timing: 1 GHz, ns = cycles; receive_to_start 5 → launch [90, 95].
	for _, d := range r.disp {
		if d.Device.Begin == 100 && (d.Device.End != 300 || d.Launch.Begin != 90 || d.Launch.End != 95) {
			t.Errorf("times %+v launch %+v", d.Device, d.Launch)
		}
	}
}

func TestNotARun(t *testing.T) {
	dir := t.TempDir()
	if SniffDir(dir) != format.No {
		t.Error("an empty directory sniffed as a run")
	}
	if _, err := format.ReadPath(dir, "", nil, nil); err == nil {
		t.Error("an empty directory read")
	}
	os.MkdirAll(filepath.Join(dir, "dfx_outputs", "rank0"), 0o755)
	c, err := format.ReadPath(dir, "", nil, nil)
	if err != nil || gapCount(c, capture.EmptyCapture) != 1 {
		t.Errorf("a run without dispatches: %v %+v", err, c)
	}
	if _, err := format.ReadFile(filepath.Join(seed, "dfx_outputs/rank0/d0/chip_swimlane_records.json"), Name, nil, nil); err == nil ||
		!strings.Contains(err.Error(), "directory") {
		t.Errorf("one records file read as a run: %v", err)
	}
	if v, ok := toNS(1<<63, 1); ok {
		t.Errorf("overflow converted: %d", v)
	}
	if v, ok := toNS(3, 50_000_000); !ok || v != 60 {
		t.Errorf("3 cycles at 50 MHz = %d ns", v)
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
			t.Fatal("seed row not found")
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
		t.Fatalf("%d untimed dispatches, untimed_input %d", untimed, gapCount(r.c, capture.UntimedInput))
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
				t.Fatal("seed field not found")
			}
			write(t, p, huge)
		}
	}))
	if n := gapCount(r.c, capture.DroppedRecords); n != math.MaxInt64 || r.c.Accounting.Complete() {
		t.Fatalf("dropped_records count %d", n)
	}
}
