package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/kineto"
	"github.com/tallyprof/tally/render"
)

// A Kineto trace tally exported reads back as the input it was exported
// from (docs/export.md, "Reading it back"): these tests export real inputs
// and compare what `tally report` makes of both.

// readResult is one input read with every dispatch kept.
type readResult struct {
	c      *capture.Capture
	disp   []capture.Dispatch
	tables *analysis.Tables
}

func readBack(t *testing.T, path string, opt format.Options) *readResult {
	t.Helper()
	return readAs(t, path, "", opt)
}

func readAs(t *testing.T, path, formatName string, opt format.Options) *readResult {
	t.Helper()
	agg := analysis.NewAggregator()
	var col capture.Collect
	c, err := format.ReadPath(path, formatName, &opt, capture.Tee{agg, &col})
	if err != nil {
		t.Fatalf("reading %s: got error %v, want none", path, err)
	}
	return &readResult{c: c, disp: col.Dispatches, tables: agg.Tables(c)}
}

// exportRead exports in to dir/name and reads the file back.
func exportRead(t *testing.T, in, dir, name string, ropt format.Options) (string, *readResult) {
	t.Helper()
	out := filepath.Join(dir, name)
	if _, err := Run([]string{in}, Options{To: Kineto, Out: out, Reader: ropt}); err != nil {
		t.Fatal(err)
	}
	return out, readBack(t, out, format.Options{})
}

// reportText is `tally report`'s text without the lines that name the
// files read: the input line and the "exported:" lines (a read-back's
// provenance; a read-back of a read-back states both exports), with the
// mark of carried gaps removed.
func reportText(t *testing.T, r *readResult) string {
	t.Helper()
	var b bytes.Buffer
	if err := render.Text(&b, r.c, r.tables, render.TextOptions{Items: 1000}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "input: ") || strings.HasPrefix(l, "exported: ") {
			continue
		}
		out = append(out, strings.ReplaceAll(l, "in the exported input: ", ""))
	}
	return strings.Join(out, "\n")
}

// exportedLines are the report header's provenance lines.
func exportedLines(c *capture.Capture) []string {
	var out []string
	for _, f := range c.Comments {
		if f.Key == "exported" {
			out = append(out, f.Value.(string))
		}
	}
	return out
}

// jsonOf makes nil and empty slices compare alike (the block is JSON).
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameDispatch compares dispatches and the values of their collectives.
func sameDispatch(a, b capture.Dispatch) bool {
	ca, cb := a.Collective, b.Collective
	a.Collective, b.Collective = nil, nil
	return a == b && (ca == nil) == (cb == nil) && (ca == nil || *ca == *cb)
}

// sameReading: back is orig's reading (sameAsInput, nothing extra) and
// reports the same text; what names the comparison.
func sameReading(t *testing.T, what string, orig, back *readResult) {
	t.Helper()
	sameAsInput(t, orig, back)
	if got, want := reportText(t, back), reportText(t, orig); got != want {
		t.Errorf("%s\n got:\n%s\nwant:\n%s", what, got, want)
	}
}

// sameAsInput checks the read-back against the input it was exported
// from: clock, rank, programs, kernels, queues, every written dispatch,
// the tables, and every gap with its kind, scope, count, figures and
// items, marked as the input's. extra are the kinds the read-back may add
// (what the export did not write).
func sameAsInput(t *testing.T, orig, back *readResult, extra ...capture.Kind) {
	t.Helper()
	oc, bc := orig.c, back.c
	if bc.Clock != oc.Clock {
		t.Errorf("clock\n got %+v\nwant %+v", bc.Clock, oc.Clock)
	}
	if bc.Source.Rank != oc.Source.Rank {
		t.Errorf("rank %q, want %q", bc.Source.Rank, oc.Source.Rank)
	}
	for _, f := range []struct {
		what      string
		got, want any
	}{{"programs", bc.Programs, oc.Programs}, {"kernels", bc.Kernels, oc.Kernels}, {"queues", bc.Queues, oc.Queues}} {
		if g, w := jsonOf(t, f.got), jsonOf(t, f.want); g != w {
			t.Errorf("%s\n got %s\nwant %s", f.what, g, w)
		}
	}
	var written []capture.Dispatch
	for _, d := range orig.disp {
		if d.Aggregate == nil && d.Device.Valid && oc.ProgramClock(d.Program).Unit == "ns" {
			// The record identity is the input format's (IREE event ids):
			// the export does not carry it, and the read-back has none.
			d.Key = capture.RecordKey{}
			// The host sync call a launch followed (Dispatch.HostSync) is
			// not exported (docs/export.md): the read-back has none.
			d.HostSync = capture.Interval{}
			written = append(written, d)
		}
	}
	if len(back.disp) != len(written) {
		t.Errorf("%d dispatches, want the input's %d written", len(back.disp), len(written))
	} else {
		for i := range written {
			if !sameDispatch(back.disp[i], written[i]) {
				t.Errorf("dispatch %d\n got %+v\nwant %+v", i, back.disp[i], written[i])
				break
			}
		}
	}
	if len(written) == len(orig.disp) {
		if g, w := jsonOf(t, back.tables), jsonOf(t, orig.tables); g != w {
			t.Errorf("tables\n got %s\nwant %s", g, w)
		}
	}
	want := map[string]string{}
	for _, g := range oc.Accounting.Gaps {
		cg := *g
		cg.Summary = "in the exported input: " + strings.TrimPrefix(g.Summary, "in the exported input: ")
		want[string(g.Kind)+"/"+g.Program] = jsonOf(t, cg)
	}
	allowed := map[capture.Kind]bool{}
	for _, k := range extra {
		allowed[k] = true
	}
	seen := map[string]bool{}
	for _, g := range bc.Accounting.Gaps {
		key := string(g.Kind) + "/" + g.Program
		w, ok := want[key]
		switch {
		case ok:
			seen[key] = true
			if got := jsonOf(t, g); got != w {
				t.Errorf("gap %s\n got %s\nwant %s", key, got, w)
			}
		case !allowed[g.Kind]:
			t.Errorf("got gap %s (%d) the input does not have, want only the input's: %s", key, g.Count, g.Summary)
		}
	}
	for key := range want {
		if !seen[key] {
			t.Errorf("got no gap %s, want the input's gap carried", key)
		}
	}
	if oc.Accounting.Complete() != bc.Accounting.Complete() && len(extra) == 0 {
		t.Errorf("complete %v, want the input's %v (--strict must fail alike)", bc.Accounting.Complete(), oc.Accounting.Complete())
	}
}

func TestKinetoSchemaNameShared(t *testing.T) {
	if TallyKinetoSchema != kineto.TallySchema {
		t.Fatalf("got export writing %q, want the %q format/kineto reads", TallyKinetoSchema, kineto.TallySchema)
	}
}

// (a) The shipped example (an unfinished dispatch, an incomplete program
// run, an unresolved kernel id, a device fault): the read-back report is
// the input's, line for line, but for the input line and the mark on the
// carried gaps.
func TestKinetoReadBackHrx(t *testing.T) {
	ropt := format.Options{Manifests: []string{manifests}}
	orig := readBack(t, example, ropt)
	_, back := exportRead(t, example, t.TempDir(), "df.json", ropt)
	sameReading(t, "report", orig, back)
	for _, k := range []capture.Kind{capture.UnfinishedDispatch, capture.IncompleteProgram, capture.UnresolvedName, capture.DeviceFault} {
		if g, w := back.c.Accounting.CountOf(k), orig.c.Accounting.CountOf(k); g != w || w == 0 {
			t.Errorf("%s: %d, want %d", k, g, w)
		}
	}
	if back.c.Accounting.Complete() {
		t.Error("got the read-back complete, want it incomplete: --strict would pass")
	}
}

// (b) IREE bundles: a per-session ns fit, programs on two clocks, and
// device ticks (no event written: each program's dispatches are a
// skipped_input gap of the read-back).
func TestKinetoReadBackIREE(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"dispatch_mode", "smoke"} {
		t.Run(name, func(t *testing.T) {
			in := "../format/ireeprof/testdata/" + name + ".ireeprof"
			orig := readBack(t, in, format.Options{})
			_, back := exportRead(t, in, dir, name+".json", format.Options{})
			sameReading(t, "report", orig, back)
		})
	}
	t.Run("ticks", func(t *testing.T) {
		in := "../format/ireeprof/testdata/unfinalized.ireeprof"
		orig := readBack(t, in, format.Options{})
		if orig.c.Clock.Unit != "ticks" {
			t.Fatalf("got clock %+v, want ticks: the sample is no longer in ticks", orig.c.Clock)
		}
		_, back := exportRead(t, in, dir, "ticks.json", format.Options{})
		sameAsInput(t, orig, back, capture.SkippedInput, capture.EmptyCapture)
		for _, pt := range orig.tables.Programs {
			var got int64 = -1
			for _, g := range back.c.Accounting.Gaps {
				if g.Kind == capture.SkippedInput && g.Program == pt.Program.Name {
					got = g.Count
				}
			}
			if got != pt.Dispatches {
				t.Errorf("program %s: skipped_input %d, want its %d dispatches not written", pt.Program.Name, got, pt.Dispatches)
			}
		}
	})
}

// (c) Kineto traces (graph replays, launches, steps, unrecorded device
// work): the read-back is the trace's reading, and exporting the
// read-back and reading it again changes nothing.
func TestKinetoReadBackKineto(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"tracelens__vllm_decode_full_graph_execution", "hta__amd_mi250_minitoy_train_rocm6.2", "hta__sampled_rank-0"} {
		t.Run(name, func(t *testing.T) {
			in := "../format/kineto/testdata/" + name + ".json.gz"
			orig := readBack(t, in, format.Options{})
			g1path, g1 := exportRead(t, in, dir, name+".1.json", format.Options{})
			sameReading(t, "first generation", orig, g1)
			_, g2 := exportRead(t, g1path, dir, name+".2.json", format.Options{})
			sameReading(t, "second generation", g1, g2)
			if ex := exportedLines(g2.c); len(ex) != 2 || !strings.Contains(ex[0], "from "+g1path+" (kineto") || !strings.Contains(ex[1], "from "+in+" (kineto") {
				t.Errorf("second generation's provenance %q, want the export from the first, then the first's", ex)
			}
		})
	}
}

// What no shipped input has: aggregated records and untimed dispatches
// (not written: a skipped_input gap of their program), graph launches,
// kernels without a launch, an unfinished dispatch on its stream, and an
// input of several ranks split into one file per rank.
func TestKinetoReadBackSynth(t *testing.T) {
	dir := t.TempDir()
	in := writeSynth(t, dir, "s.synth", synthSpec{N: 40, Kernels: 3, PerRun: 8, Aggregated: true, Untimed: true, Unfinished: true, UnfinishedQueue: true,
		Graph: 8, NoLaunchEvery: 5, Queues: []capture.Queue{{Name: "7", Device: "GPU 0"}, {Name: "9", Device: "GPU 1"}}, SourceRank: "3"})
	ropt := format.Options{}
	orig := readAs(t, in, synthFormat, ropt)
	out := filepath.Join(dir, "s.json")
	if _, err := Run([]string{in}, Options{To: Kineto, Out: out, Format: synthFormat}); err != nil {
		t.Fatal(err)
	}
	back := readBack(t, out, format.Options{})
	sameAsInput(t, orig, back, capture.SkippedInput)
	var notWritten int64
	for _, d := range orig.disp {
		if d.Aggregate != nil || !d.Device.Valid {
			notWritten += d.Count()
		}
	}
	// The input ran on two devices, so step is split by device; the
	// dispatches not written (the untimed ones, on GPU 0, and the
	// aggregated records, which record no device) are GPU 0's.
	if g := back.c.Accounting.Find(capture.SkippedInput); g == nil || g.Program != "GPU 0 · step" || g.Count != notWritten || notWritten == 0 {
		t.Errorf("skipped_input %+v, want program GPU 0 · step's %d dispatches not written", g, notWritten)
	}

	t.Run("ranks", func(t *testing.T) {
		seed := "../format/swimlane/testdata/seed"
		orig := readBack(t, seed, format.Options{})
		runDir := filepath.Join(dir, "run")
		if _, err := Run([]string{seed}, Options{To: Kineto, Out: runDir}); err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, rank := range []string{"0", "1"} {
			back := readBack(t, filepath.Join(runDir, "rank-"+rank+".json"), format.Options{})
			var mine []capture.Dispatch
			for _, d := range orig.disp {
				if orig.c.Queues[d.Queue].Rank == rank {
					mine = append(mine, d)
				}
			}
			if len(back.disp) != len(mine) || len(mine) == 0 {
				t.Fatalf("rank %s: %d dispatches, want its %d", rank, len(back.disp), len(mine))
			}
			for i := range mine {
				if back.disp[i] != mine[i] {
					t.Errorf("rank %s dispatch %d\n got %+v\nwant %+v", rank, i, back.disp[i], mine[i])
				}
			}
			if g := back.c.Accounting.Find(capture.InconsistentTrace); g != nil {
				t.Errorf("rank %s: got inconsistent_trace %s %+v, want none", rank, g.Summary, g.Items)
			}
			if jsonOf(t, back.c.Programs) != jsonOf(t, orig.c.Programs) || back.c.Clock != orig.c.Clock {
				t.Errorf("rank %s: got programs or clock differing from the input's, want them the same", rank)
			}
			total += len(back.disp)
		}
		if total != len(orig.disp) {
			t.Errorf("%d dispatches in the rank files, want %d", total, len(orig.disp))
		}
	})
}

// (d) A file edited after the export — the kernel events of one program
// removed — contradicts the programs its block claims: inconsistent_trace
// names the program and the counts, and the rest still reads back.
func TestKinetoReadBackEdited(t *testing.T) {
	ropt := format.Options{Manifests: []string{manifests}}
	path, _ := exportRead(t, example, t.TempDir(), "df.json", ropt)
	b := read(t, path)
	kept := regexp.MustCompile(`(?m)^\{"ph":"X","cat":"kernel",[^\n]*"program":"p96"[^\n]*\},?\n`).ReplaceAll(b, nil)
	if bytes.Equal(kept, b) {
		t.Fatal("got no kernel event of p96 to remove, want some")
	}
	edited := filepath.Join(filepath.Dir(path), "edited.json")
	if err := os.WriteFile(edited, kept, 0o644); err != nil {
		t.Fatal(err)
	}
	back := readBack(t, edited, format.Options{})
	g := back.c.Accounting.Find(capture.InconsistentTrace)
	if g == nil {
		t.Fatal("got no inconsistent_trace for a file missing a program's events, want one")
	}
	var items []string
	for _, it := range g.Items {
		items = append(items, it.What)
	}
	all := strings.Join(items, "\n")
	for _, w := range []string{"program p96: the tally block counts 100 kernel events, the file holds 0", "the tally block counts 287 kernel events in this file, the file holds 187"} {
		if !strings.Contains(all, w) {
			t.Errorf("inconsistent_trace items:\n%s\nwant %q", all, w)
		}
	}
	if back.tables.Dispatches() != 187 || back.c.Accounting.CountOf(capture.DeviceFault) != 1 {
		t.Errorf("%d dispatches, device_fault %d: want p41's 187 and the carried gap", back.tables.Dispatches(), back.c.Accounting.CountOf(capture.DeviceFault))
	}
}

// An input without a single dispatch reads back as that input: its tally
// block (no programs, no kernels) is used, and its gaps are carried — its
// empty_capture once, not again for the file's lack of kernel events.
func TestKinetoReadBackEmptyInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "cpu-only.json")
	trace := `{"schemaVersion": 1, "deviceProperties": [], "traceEvents": [` +
		`{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 2},` +
		`{"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 5}]}`
	if err := os.WriteFile(in, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	orig := readBack(t, in, format.Options{})
	_, back := exportRead(t, in, dir, "e.json", format.Options{})
	gaps := func(c *capture.Capture) []string {
		var out []string
		for _, g := range c.Accounting.Gaps {
			out = append(out, fmt.Sprintf("%s %d %s", g.Kind, g.Count, strings.TrimPrefix(g.Summary, "in the exported input: ")))
		}
		return out
	}
	if got, want := gaps(back.c), gaps(orig.c); !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("read back: gaps\n%q\nwant the input's\n%q", got, want)
	}
	if len(exportedLines(back.c)) != 1 {
		t.Errorf("read back: %d exported: lines, want 1 (the block used)", len(exportedLines(back.c)))
	}
}
