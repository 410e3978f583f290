package export

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/inputs"
)

// goTool returns the go command of the toolchain running the test.
func goTool(t *testing.T) string {
	t.Helper()
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		if p, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command to run go tool pprof")
		}
	}
	return p
}

// TestPProfTop runs `go tool pprof -top` on the export of the example and
// checks the top kernels' device time and dispatch counts against tally's
// own tables (summed over programs and lists, as pprof sums one function).
func TestPProfTop(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.pb.gz")
	run(t, []string{example}, exampleOpts(PProf, out))
	res := readOne(t, example, format.Options{Manifests: []string{manifests}})
	wantTime, wantN := map[string]int64{}, map[string]int64{}
	for _, pt := range res.Tables.Programs {
		for _, k := range pt.Kernels {
			wantTime[k.Kernel.Name] += k.Total
			wantN[k.Kernel.Name] += k.Dispatches
		}
	}
	wantN["loom_libs:ggml_mul_mat_f32_f32_wmma"]++ // the unfinished one: a dispatch without time
	top := func(index string) map[string]int64 {
		cmd := exec.Command(goTool(t), "tool", "pprof", "-symbolize=none", "-unit=ns", "-sample_index="+index, "-top", out)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof: %v\n%s", err, b)
		}
		got := map[string]int64{}
		re := regexp.MustCompile(`^\s*(\d+)(ns)?\s+[\d.]+%\s+[\d.]+%\s+\d+(ns)?\s+[\d.]+%\s+(\S+)$`)
		for _, line := range strings.Split(string(b), "\n") {
			if m := re.FindStringSubmatch(line); m != nil {
				got[m[4]], _ = strconv.ParseInt(m[1], 10, 64)
			}
		}
		if len(got) == 0 {
			t.Fatalf("got no rows in go tool pprof -top, want some:\n%s", b)
		}
		return got
	}
	gotTime := top("gpu_time")
	for _, name := range []string{"loom_libs:ggml_mul_mat_f32_f32_wmma", "loom_libs:ggml_flash_attention_decode_split_f32_f16_wmma_next_q8", "hrx:ggml_mul_mat_vec_iq3xxs_f32", "p41:#14896872061627543929"} {
		if gotTime[name] != wantTime[name] || wantTime[name] == 0 {
			t.Errorf("%s: pprof gpu_time %d ns, tally %d ns", name, gotTime[name], wantTime[name])
		}
	}
	gotN := top("dispatches")
	for name, n := range wantN {
		if gotN[name] != n {
			t.Errorf("%s: got pprof dispatches %d, want tally's %d (+1 unfinished for the matmul)", name, gotN[name], n)
		}
	}
	b, err := exec.Command(goTool(t), "tool", "pprof", "-comments", out).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -comments: got error %v, want none\n%s", err, b)
	}
	for _, want := range []string{"GAP unfinished_dispatch (1) in program p41", "GAP device_fault (1)", "skipped: 7 lines: not a trace line", "[monotonic, ns]", "INCOMPLETE"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("comments lack %q:\n%s", want, b)
		}
	}
}

// TestPProfSamples checks the profile's structure: names kept exactly
// (SystemName empty), stack kernel ← program ← rank, labels, the unfinished
// sample without time, aggregated sums, ticks without time.
func TestPProfSamples(t *testing.T) {
	dir := t.TempDir()
	a := writeSynth(t, dir, "a.synth", synthSpec{N: 4, Kernels: 2, Aggregated: true, Unfinished: true,
		Queues: []capture.Queue{{Name: "7", Device: "GPU 0", Rank: "3"}}})
	b := writeSynth(t, dir, "b.synth", synthSpec{N: 2, Kernels: 1, Ticks: true})
	out := filepath.Join(dir, "p.pb.gz")
	run(t, []string{a, b}, Options{To: PProf, Out: out, Format: synthFormat})
	p := parseProfile(t, out)
	if p.DefaultSampleType != "gpu_time" || len(p.SampleType) != 3 {
		t.Fatalf("got sample types %v (default %q), want 3 with default gpu_time", p.SampleType, p.DefaultSampleType)
	}
	for _, fn := range p.Function {
		if fn.SystemName != "" {
			t.Errorf("function %q: got SystemName %q, want none: pprof would demangle and merge", fn.Name, fn.SystemName)
		}
	}
	type row struct {
		stack  string
		status string
		v      [3]int64
	}
	got := map[string]row{}
	for _, s := range p.Sample {
		var names []string
		for _, l := range s.Location {
			names = append(names, l.Line[0].Function.Name)
		}
		r := row{strings.Join(names, " ← "), s.Label["status"][0], [3]int64{s.Value[0], s.Value[1], s.Value[2]}}
		key := r.stack + " " + r.status + " " + strings.Join(s.Label["queue"], "")
		if _, dup := got[key]; dup {
			t.Errorf("got two samples for %s, want one", key)
		}
		got[key] = r
	}
	for key, want := range map[string][3]int64{
		"kern<0, float> ← program step ← rank 3 · GPU 0 complete 7": {2, 200, 0},
		"kern<1, float> ← program step ← rank 3 · GPU 0 complete 7": {2, 400, 0},
		"kern<0, float> ← program step ← rank 0 aggregated ":        {10, 1000, 0},
		"kern<0, float> ← program step ← rank 0 unfinished ":        {1, 0, 1},
		"kern<0, float> ← program step ← rank 1 ticks ":             {2, 0, 0},
	} {
		if got[key].v != want {
			t.Errorf("%s: %v, want %v (all: %v)", key, got[key].v, want, got)
		}
	}
}

// parseProfile reads a written profile back with pprof's own parser.
func parseProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	data := read(t, path)
	p, err := profile.ParseData(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

// readOne reads path as tally report does: its capture and tables.
func readOne(t *testing.T, path string, ro format.Options) *analysis.Input {
	t.Helper()
	run := inputs.Paths(path).Read(inputs.Options{Reader: ro})
	if err := run.Err(); err != nil {
		t.Fatal(err)
	}
	return &run.Inputs[0]
}
