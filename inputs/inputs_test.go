package inputs

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	_ "github.com/tallyprof/tally/format/all"
)

// rankTrace is a small complete Kineto trace of one rank: each kernel
// k[i] runs once, launched and linked, for durs[i] µs.
func rankTrace(rank int, names []string, durs []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Test GPU"}], "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": 8}, "traceEvents": [`, rank)
	ts := 1000
	for i, n := range names {
		corr := 10 + i
		fmt.Fprintf(&b, `{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": %d, "dur": 2, "args": {"cbid": 211, "correlation": %d}},`+"\n", ts, corr)
		fmt.Fprintf(&b, `{"ph": "X", "cat": "kernel", "name": %q, "pid": 0, "tid": 7, "ts": %d, "dur": %d, "args": {"device": 0, "stream": 7, "correlation": %d}},`+"\n", n, ts+5, durs[i], corr)
		ts += 10 + durs[i]
	}
	b.WriteString(`{"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 0}]}`)
	return b.String()
}

func writeGz(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(data))
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runDir is a multi-rank run: rank0/ and rank1/ with one trace each, a
// README (not a trace), a hidden file, and an empty trace.
func runDir(t *testing.T) string {
	dir := t.TempDir()
	writeGz(t, filepath.Join(dir, "rank0", "host.pt.trace.json.gz"), rankTrace(0, []string{"gemm", "norm"}, []int{30, 10}))
	writeGz(t, filepath.Join(dir, "rank1", "host.pt.trace.json.gz"), rankTrace(1, []string{"gemm", "allreduce"}, []int{50, 20}))
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# how this run was made\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".hidden.json"), []byte("{}"), 0o644)
	return dir
}

func TestExpandDirectory(t *testing.T) {
	dir := runDir(t)
	e := Expand([]string{dir}, "")
	want := []string{filepath.Join(dir, "rank0", "host.pt.trace.json.gz"), filepath.Join(dir, "rank1", "host.pt.trace.json.gz")}
	if !reflect.DeepEqual(e.Paths, want) || !e.Many() {
		t.Errorf("paths %v, many %v; want %v, many", e.Paths, e.Many(), want)
	}
	if len(e.Skipped) != 1 || !strings.HasSuffix(e.Skipped[0].Path, "README.md") {
		t.Errorf("got skipped %+v, want README.md alone", e.Skipped)
	}
	// A file argument is an input whatever it holds; a missing one too (it fails, visibly).
	e = Expand([]string{filepath.Join(dir, "README.md"), filepath.Join(dir, "missing")}, "")
	if len(e.Paths) != 2 || !e.Many() {
		t.Errorf("file args: %+v, want 2 paths, many", e)
	}
}

func TestMergePerRankAndProgram(t *testing.T) {
	dir := runDir(t)
	missing := filepath.Join(dir, "rank2.json")
	for _, workers := range []int{1, 4} {
		run := Expand([]string{dir, missing}, "").Read(Options{Workers: workers})
		if len(run.Inputs) != 3 || !run.Many() || run.Err() != nil {
			t.Fatalf("%d inputs, many %v, err %v; want 3, many, no error", len(run.Inputs), run.Many(), run.Err())
		}
		// Each input keeps its own capture and accounting, with its rank.
		for i, r := range run.Inputs[:2] {
			if r.Index != i || r.Err != nil || r.Capture.Source.Rank != fmt.Sprint(i) || !r.Capture.Accounting.Complete() {
				t.Fatalf("input %d: got error %v, rank %q; want no error, rank %d, complete", i, r.Err, r.Capture.Source.Rank, i)
			}
		}
		// The failing input is a gap of the whole and hides nothing.
		if run.Inputs[2].Err == nil || run.Whole.Accounting.CountOf(capture.FailedInput) != 1 || run.Complete() {
			t.Errorf("got input error %v and gaps %+v, want the failed input as one failed_input gap, the run incomplete", run.Inputs[2].Err, run.Whole.Accounting.Gaps)
		}
		if run.Whole.Accounting.CountOf(capture.SkippedFile) != 1 {
			t.Errorf("got %d skipped_file gaps, want README as 1", run.Whole.Accounting.CountOf(capture.SkippedFile))
		}
		in := run.Whole.Accounting.Input[0]
		if in.Read != 4 || in.Used != 2 || in.Read != in.Used+in.SkippedTotal() {
			t.Errorf("inputs accounting: got %+v, want 4 read, 2 used, the rest skipped", in)
		}
		if err := run.Whole.Accounting.CheckValid(); err != nil {
			t.Errorf("accounting: got %v, want it valid", err)
		}
		// One merged program; gemm merged by name across ranks.
		if len(run.Tables.Programs) != 1 {
			t.Fatalf("got %d merged programs, want 1", len(run.Tables.Programs))
		}
		pt := run.Tables.Programs[0]
		if pt.Dispatches != 4 || pt.Total != 110_000 || pt.Program.Instances != 2 {
			t.Errorf("merged program: got %+v, want 4 dispatches, 110000 ns, 2 instances", pt)
		}
		rows := map[string]int{}
		for i, k := range pt.Kernels {
			rows[k.Kernel.Name] = i
		}
		g := pt.Kernels[rows["gemm"]]
		if len(pt.Kernels) != 3 || g.Dispatches != 2 || g.Total != 80_000 || !g.MinMaxKnown || g.Min != 30_000 || g.Max != 50_000 || g.Share < 0.72 || g.Share > 0.73 {
			t.Errorf("gemm row: got %+v, want 3 rows and gemm 2 dispatches, 80000 ns (min 30000, max 50000), share 0.72–0.73", g)
		}
		if pt.Kernels[0].Kernel.Name != "gemm" {
			t.Errorf("first row: got %v, want gemm (rows ordered by total)", pt.Kernels[0].Kernel.Name)
		}
	}
}

func TestAllEmptyOrNone(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), nil, 0o644)
	run := Expand([]string{dir}, "").Read(Options{})
	if run.Whole.Accounting.CountOf(capture.EmptyCapture) == 0 {
		t.Errorf("an all-empty run: got gaps %+v, want empty_capture", run.Whole.Accounting.Gaps)
	}
	run = Expand([]string{t.TempDir()}, "").Read(Options{})
	if len(run.Inputs) != 0 || run.Whole.Accounting.CountOf(capture.EmptyCapture) == 0 {
		t.Errorf("a directory without traces: got %d inputs, %d empty_capture; want 0 inputs and the gap", len(run.Inputs), run.Whole.Accounting.CountOf(capture.EmptyCapture))
	}
}

// Done sees every input once, from its reader, with its result; Watch runs
// only when inputs are read one at a time.
func TestReadDoneAndWatch(t *testing.T) {
	dir := runDir(t)
	e := Expand([]string{dir}, "")
	var mu sync.Mutex
	seen := map[int]string{}
	watched := 0
	watch := func(in *format.Input) func() {
		mu.Lock()
		watched++
		mu.Unlock()
		return func() {}
	}
	opt := Options{Workers: 2, Watch: watch, Done: func(in *analysis.Input) {
		mu.Lock()
		defer mu.Unlock()
		if in.Capture == nil || in.Tables == nil {
			t.Errorf("input %d: got Done before it was read, want its capture and tables", in.Index)
		}
		seen[in.Index] = in.Path
	}}
	res := e.Read(opt).Inputs
	if len(seen) != len(res) {
		t.Fatalf("got Done for %d inputs, want all %d", len(seen), len(res))
	}
	for i, r := range res {
		if seen[i] != r.Path {
			t.Errorf("Done %d: got %s, want the result's %s", i, seen[i], r.Path)
		}
	}
	if watched != 0 {
		t.Errorf("parallel reads: got %d bars drawn, want 0", watched)
	}
	opt.Workers = 1
	e.Read(opt)
	if watched != len(e.Paths) {
		t.Errorf("read one at a time: got %d bars, want one per input (%d)", watched, len(e.Paths))
	}
}

// A rocprof output directory holds kernel_trace.csv and side files the
// rocprof reader reads beside it: the side files are passed over, with
// that reason, never read as inputs that fail (or as text of another
// format), while a side file given alone goes to the rocprof reader, which
// says which file to give.
func TestCompanionFilesPassedOver(t *testing.T) {
	dir := t.TempDir()
	kernels := "Kind,Agent_Id,Queue_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,Start_Timestamp,End_Timestamp\nKERNEL_DISPATCH,1,1,7,1,5,k,1,100,200\n"
	api := "Domain,Function,Process_Id,Thread_Id,Correlation_Id,Start_Timestamp,End_Timestamp\nHIP_RUNTIME_API,hipLaunchKernel,7,7,1,90,95\n"
	os.WriteFile(filepath.Join(dir, "kernel_trace.csv"), []byte(kernels), 0o644)
	os.WriteFile(filepath.Join(dir, "hip_api_trace.csv"), []byte(api), 0o644)
	e := Expand([]string{dir}, "")
	if len(e.Paths) != 1 || !strings.HasSuffix(e.Paths[0], "kernel_trace.csv") {
		t.Fatalf("got paths %v, want kernel_trace.csv alone", e.Paths)
	}
	if len(e.Skipped) != 1 || !strings.Contains(e.Skipped[0].Reason, "rocprof reader reads beside its main input") {
		t.Fatalf("got skipped %+v, want the side file, read beside its main input", e.Skipped)
	}
	if f, conf := format.Detect([]byte(api)); f.Name != "rocprof" || conf != format.Companion {
		t.Fatalf("a side file alone: got %s (%d), want rocprof as a companion (%d)", f.Name, conf, format.Companion)
	}
}

// A directory walk does not follow links: a symlinked rank trace must still
// be read, and a pipe or a dangling link listed as skipped, never dropped
// without a word (the run would look complete without them).
func TestExpandLinksAndSpecialFiles(t *testing.T) {
	dir := runDir(t)
	elsewhere := filepath.Join(t.TempDir(), "rank2.pt.trace.json.gz")
	writeGz(t, elsewhere, rankTrace(2, []string{"gemm"}, []int{5}))
	link := filepath.Join(dir, "rank2.pt.trace.json.gz")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	dangling := filepath.Join(dir, "rank3.pt.trace.json.gz")
	os.Symlink(filepath.Join(dir, "gone"), dangling)
	fifo := filepath.Join(dir, "rank4.fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no fifos here:", err)
	}
	e := Expand([]string{dir}, "")
	if !reflect.DeepEqual(e.Paths[len(e.Paths)-1:], []string{link}) {
		t.Errorf("got paths %v, want the symlinked trace last", e.Paths)
	}
	var skipped []string
	for _, s := range e.Skipped {
		skipped = append(skipped, filepath.Base(s.Path))
	}
	if want := []string{"README.md", "rank3.pt.trace.json.gz", "rank4.fifo"}; !reflect.DeepEqual(skipped, want) {
		t.Errorf("skipped %v, want %v", skipped, want)
	}
}

// Whether the arguments are one input or a run of many is decided once,
// by what they name: a file or a run directory a reader claims is one
// input; several arguments, or a directory walked for its traces (even one
// holding a single trace), are many.
func TestExpandOneOrMany(t *testing.T) {
	dir := runDir(t)
	one := t.TempDir()
	writeGz(t, filepath.Join(one, "rank0.pt.trace.json.gz"), rankTrace(0, []string{"gemm"}, []int{5}))
	file := filepath.Join(one, "rank0.pt.trace.json.gz")
	for _, c := range []struct {
		name string
		e    *Expansion
		want bool
	}{
		{"a file", Expand([]string{file}, ""), false},
		{"a missing file", Expand([]string{filepath.Join(dir, "missing")}, ""), false},
		{"standard input", Expand([]string{"-"}, ""), false},
		{"two files", Expand([]string{file, file}, ""), true},
		{"a directory of traces", Expand([]string{dir}, ""), true},
		{"a directory of one trace", Expand([]string{one}, ""), true},
		{"a path as given", Paths(dir), false},
		{"paths as given", Paths(file, file), true},
	} {
		if c.e.Many() != c.want {
			t.Errorf("%s: got many %v, want %v", c.name, c.e.Many(), c.want)
		}
		if run := c.e.Read(Options{}); run.Many() != c.want {
			t.Errorf("%s: got a run with many %v, want %v", c.name, run.Many(), c.want)
		}
	}
	// A directory given as it is is read as one input: no directory reader
	// claims it, so the run fails with it.
	run := Paths(dir).Read(Options{})
	if err := run.Err(); err == nil || !strings.Contains(err.Error(), "no directory reader recognises") {
		t.Errorf("got %v, want the directory's error", err)
	}
	if run := Paths(file).Read(Options{}); run.Err() != nil || run.Inputs[0].Capture.Source.Rank != "0" {
		t.Errorf("got %v, want rank 0 read", run.Err())
	}
}

// Every input's read is watched through the one read function: one bar
// for the set (Progress), or, for one input, its own bar (Watch) when set.
// A directory and a file that cannot be opened are watched with no opened
// input.
func TestReadWatchesEveryInput(t *testing.T) {
	dir := runDir(t)
	missing := filepath.Join(dir, "missing.json")
	p := &recordProgress{}
	run := Expand([]string{dir, missing}, "").Read(Options{Progress: p, Watch: func(*format.Input) func() {
		t.Error("a run of many: got a bar per input, want none")
		return func() {}
	}})
	if len(run.Inputs) != 3 || !reflect.DeepEqual(p.begun, []string{run.Inputs[0].Path, run.Inputs[1].Path, missing}) || !p.ended {
		t.Errorf("got begin %v, end %v; want every path, then the end", p.begun, p.ended)
	}
	if p.opened != 2 || p.unopened != 1 || p.stopped != 3 {
		t.Errorf("got %d opened, %d not opened, %d stopped; want 2, 1, 3", p.opened, p.unopened, p.stopped)
	}
	// One input: its own bar, not the set's.
	watched := 0
	p = &recordProgress{}
	Expand([]string{run.Inputs[0].Path}, "").Read(Options{Progress: p, Watch: func(*format.Input) func() { watched++; return func() {} }})
	if watched != 1 || p.begun != nil {
		t.Errorf("one input: got %d bars of its own, set begun with %v; want 1 bar, no set", watched, p.begun)
	}
	// One input without a bar of its own: the set's.
	Expand([]string{missing}, "").Read(Options{Progress: p})
	if len(p.begun) != 1 || p.unopened != 1 {
		t.Errorf("one input, set only: got begin %v, %d not opened; want it watched", p.begun, p.unopened)
	}
}

type recordProgress struct {
	mu                        sync.Mutex
	begun                     []string
	ended                     bool
	opened, unopened, stopped int
}

func (p *recordProgress) Begin(paths []string) { p.begun = append([]string(nil), paths...) }
func (p *recordProgress) End()                 { p.ended = true }
func (p *recordProgress) Watch(_ string, in *format.Input) func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if in == nil {
		p.unopened++
	} else {
		p.opened++
	}
	return func() {
		p.mu.Lock()
		p.stopped++
		p.mu.Unlock()
	}
}

// The files of a directory are sniffed in parallel; the inputs and the
// skipped files still come in name order, each with its own verdict.
func TestExpandManyFiles(t *testing.T) {
	dir := t.TempDir()
	var want []string
	var skipped []string
	for i := range 40 {
		p := filepath.Join(dir, fmt.Sprintf("f%02d", i))
		if i%3 == 1 {
			os.WriteFile(p, []byte("notes, not a trace\n"), 0o644)
			skipped = append(skipped, p)
			continue
		}
		writeGz(t, p, rankTrace(i, []string{"gemm"}, []int{5}))
		want = append(want, p)
	}
	e := Expand([]string{dir}, "")
	if !reflect.DeepEqual(e.Paths, want) {
		t.Fatalf("inputs %v, want %v", e.Paths, want)
	}
	var got []string
	for _, s := range e.Skipped {
		got = append(got, s.Path)
		if !strings.Contains(s.Reason, "no reader recognises it") {
			t.Errorf("%s skipped because %q, want no reader recognises it", s.Path, s.Reason)
		}
	}
	if !reflect.DeepEqual(got, skipped) {
		t.Fatalf("skipped %v, want %v", got, skipped)
	}
}
