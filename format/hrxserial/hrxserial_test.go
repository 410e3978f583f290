package hrxserial

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/gen/hrxgen"
)

const manifest = "../../testdata/hrx/manifest.json"

type result struct {
	c    *capture.Capture
	r    *analysis.Tables
	disp []capture.Dispatch
}

func readTrace(t testing.TB, trace []byte, manifests ...string) result {
	t.Helper()
	cat, err := catalog.Load(manifests)
	if err != nil {
		t.Fatal(err)
	}
	agg := analysis.NewAggregator()
	var all capture.Collect
	chk := &capture.Checked{Next: capture.Tee{agg, &all}}
	c, err := ReadStream(bytes.NewReader(trace), "trace.kept", cat, chk)
	if err != nil {
		t.Fatal(err)
	}
	if chk.Err != nil {
		t.Fatalf("got a dispatch that breaks the model (%v), want none", chk.Err)
	}
	chk.Finish(c)
	if err := c.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return result{c: c, r: agg.Tables(c), disp: all.Dispatches}
}

func generate(t testing.TB, opt hrxgen.Options) ([]byte, *hrxgen.Summary) {
	t.Helper()
	var b bytes.Buffer
	sum, err := hrxgen.Write(&b, opt)
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), sum
}

func (r result) program(t testing.TB, label string) *analysis.ProgramTable {
	t.Helper()
	for i := range r.r.Programs {
		if r.r.Programs[i].Program.Name == label {
			return &r.r.Programs[i]
		}
	}
	t.Fatalf("got no program %s, want one", label)
	return nil
}

func (r result) kinds() []string {
	var out []string
	for _, g := range r.c.Accounting.Gaps {
		out = append(out, string(g.Kind))
	}
	return out
}

// checkAgainst compares every table with the generator's own bookkeeping.
func checkAgainst(t *testing.T, r result, sum *hrxgen.Summary, timed bool) {
	t.Helper()
	for label, ps := range sum.Programs {
		pt := r.program(t, label)
		if pt.Program.Instances != ps.Complete+ps.Failed+ps.Incomplete {
			t.Errorf("%s: %d runs, want %d", label, pt.Program.Instances, ps.Complete+ps.Failed+ps.Incomplete)
		}
		if len(pt.Kernels) != len(ps.Kernels) {
			t.Errorf("%s: %d kernels, want %d", label, len(pt.Kernels), len(ps.Kernels))
		}
		for _, k := range pt.Kernels {
			want := ps.Kernels[hrxgen.KernelKey{List: k.Kernel.List, ID: k.Kernel.ID}]
			if want == nil {
				t.Errorf("%s: got kernel %s the generator did not write, want only its kernels", label, k.Kernel.Name)
				continue
			}
			if k.Dispatches != want.Dispatches {
				t.Errorf("%s %s: %d dispatches, want %d", label, k.Kernel.Name, k.Dispatches, want.Dispatches)
			}
			if !timed {
				if k.Timed != 0 {
					t.Errorf("%s %s: got %d timed dispatches in an untimed trace, want 0", label, k.Kernel.Name, k.Timed)
				}
				continue
			}
			if k.Total != want.DeviceNS || k.LaunchTotal != want.LaunchNS {
				t.Errorf("%s %s: device %d launch %d, want %d %d", label, k.Kernel.Name, k.Total, k.LaunchTotal, want.DeviceNS, want.LaunchNS)
			}
		}
	}
}

func TestCompleteTrace(t *testing.T) {
	trace, sum := generate(t, hrxgen.Options{Seed: 7, Decode: 5, Prefill: 2, Foreign: 40})
	r := readTrace(t, trace, manifest)
	if !r.c.Accounting.Complete() {
		t.Fatalf("complete trace: got gaps %v, want none", r.kinds())
	}
	checkAgainst(t, r, sum, true)
	if !r.c.Clock.Timed || r.c.Clock.Unit != "ns" || !strings.Contains(r.c.Clock.Description, "monotonic") {
		t.Fatalf("got clock %+v, want timed monotonic ns", r.c.Clock)
	}
	in := r.c.Accounting.InputFor("lines")
	if in.Read != sum.Lines {
		t.Fatalf("got %d lines read, want the %d the generator wrote", in.Read, sum.Lines)
	}
	if skipped := in.SkippedTotal(); skipped == 0 {
		t.Fatal("got 0 lines skipped, want the foreign lines counted as skipped")
	}
	for _, k := range r.c.Kernels {
		if !k.Resolved {
			t.Fatalf("got kernel %s unresolved, want it resolved", k.Name)
		}
	}
	if p := r.program(t, "p303"); p.Program.Instances != 2 {
		t.Fatalf("p303: got %d runs, want 2", p.Program.Instances)
	}
}

// The example of spec §8: launch 8400 ns, device 76300 ns.
func TestSpecExample(t *testing.T) {
	trace := `# tally kept trace v1 clock=monotonic unit=ns
912400118200 hrx debug serial: sync-begin phase=command-pre-dispatch list=main index=0 list_commands=2 ordinal=0 kind=Kernel kernel_id=5916100870017593149 bindings=3
912400121900 hrx debug serial: sync-end phase=command-pre-dispatch list=main index=0 list_commands=2 ordinal=0 kind=Kernel kernel_id=5916100870017593149 bindings=3
912400122600 hrx debug serial: begin phase=command-dispatch list=main index=0 list_commands=2 ordinal=0 kind=Kernel kernel_id=5916100870017593149 bindings=3
912400131000 hrx debug serial: end phase=command-dispatch list=main index=0 list_commands=2 ordinal=0 kind=Kernel kernel_id=5916100870017593149 bindings=3
912400131700 hrx debug serial: sync-begin phase=command-post-dispatch list=main index=0 list_commands=2 ordinal=0 kind=Kernel kernel_id=5916100870017593149 bindings=3
912400207300 hrx debug serial: sync-end phase=command-post-dispatch list=main index=0 list_commands=2 ordinal=0 kind=Kernel kernel_id=5916100870017593149 bindings=3
`
	r := readTrace(t, []byte(trace), manifest)
	if len(r.disp) != 1 {
		t.Fatalf("got %d dispatches, want 1", len(r.disp))
	}
	d := r.disp[0]
	launch, _ := d.Launch.Duration()
	dev, _ := d.Device.Duration()
	if launch != 8400 || dev != 76300 {
		t.Fatalf("launch %d device %d, want 8400 76300", launch, dev)
	}
	if name := r.c.Kernels[d.Kernel].Name; name != "loom_libs:ggml_mul_mat_f32_f32_wmma" {
		t.Fatalf("got name %s, want loom_libs:ggml_mul_mat_f32_f32_wmma", name)
	}
}

// Cut right after a launch: the dispatch is named as unfinished and the
// tables are exactly those of the trace without it.
func TestCutInsideDispatch(t *testing.T) {
	trace, _ := generate(t, hrxgen.Options{Seed: 3, Decode: 3})
	lines := strings.SplitAfter(string(trace), "\n")
	// Find the last "begin phase=command-dispatch" and cut after it.
	cut := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "begin phase=command-dispatch") {
			cut = i
			break
		}
	}
	full := readTrace(t, trace, manifest)
	cutTrace := []byte(strings.Join(lines[:cut+1], ""))
	// The same trace without the three lines of the unfinished command.
	before := readTrace(t, []byte(strings.Join(lines[:cut-2], "")), manifest)
	r := readTrace(t, cutTrace, manifest)

	if r.c.Accounting.Complete() {
		t.Fatal("got the cut trace reported complete, want it incomplete")
	}
	g := r.c.Accounting.Find(capture.UnfinishedDispatch)
	if g == nil || g.Count != 1 {
		t.Fatalf("got unfinished gap %+v (gaps %v), want one of count 1", g, r.kinds())
	}
	it := g.Items[0]
	if it.Kernel == "" || it.Time == nil || !strings.Contains(it.LastCompleted, "p41 main[") || it.Program != "p41" {
		t.Fatalf("got unfinished item %+v, want it to name the kernel, launch time, program p41 and the last completed", it)
	}
	if r.r.Dispatches() != before.r.Dispatches() || r.r.Dispatches() >= full.r.Dispatches() {
		t.Fatalf("dispatches: got cut %d, before %d, full %d; want cut = before < full", r.r.Dispatches(), before.r.Dispatches(), full.r.Dispatches())
	}
	pa, pb := r.program(t, "p41"), before.program(t, "p41")
	for i := range pa.Kernels {
		a, b := pa.Kernels[i], pb.Kernels[i]
		if a.Kernel.Name != b.Kernel.Name || a.Total != b.Total || a.Share != b.Share || a.Min != b.Min {
			t.Fatalf("kernel %s: got %+v after the cut, want it unchanged: %+v", a.Kernel.Name, a, b)
		}
	}
	if r.c.Accounting.Find(capture.IncompleteProgram) == nil {
		t.Fatal("got no incomplete_program gap, want the cut run reported incomplete")
	}
	if got := r.program(t, "p41").Program.IncompleteRuns; !slices.Equal(got, []int64{2}) {
		t.Fatalf("incomplete runs %v, want [2] (the third run was cut)", got)
	}
	if got := full.program(t, "p41").Program.IncompleteRuns; got != nil {
		t.Fatalf("whole trace: got incomplete runs %v, want none", got)
	}
}

func TestFault(t *testing.T) {
	trace, sum := generate(t, hrxgen.Options{Seed: 5, Decode: 2, End: hrxgen.EndFault})
	r := readTrace(t, trace, manifest)
	fault := r.c.Accounting.Find(capture.DeviceFault)
	if fault == nil || fault.Count != 1 || !strings.Contains(fault.Items[0].What, "command-post-dispatch") || fault.Items[0].Kernel == "" {
		t.Fatalf("got device fault %+v, want one naming command-post-dispatch and its kernel", fault)
	}
	un := r.c.Accounting.Find(capture.UnfinishedDispatch)
	if un == nil || un.Count != 1 {
		t.Fatalf("got unfinished %+v, want one of count 1", un)
	}
	want := fmt.Sprintf("%s %s[%d]", sum.Unfinished.Program, sum.Unfinished.List, sum.Unfinished.Index)
	if !strings.Contains(un.Items[0].Where, fmt.Sprintf("%s[%d]", sum.Unfinished.List, sum.Unfinished.Index)) ||
		*un.Items[0].Time != sum.Unfinished.LaunchNS || !strings.HasPrefix(un.Items[0].LastCompleted, sum.Unfinished.Last) {
		t.Fatalf("unfinished item %+v, want %s launched at %d after %s", un.Items[0], want, sum.Unfinished.LaunchNS, sum.Unfinished.Last)
	}
	checkAgainst(t, r, sum, true)
}

func TestFailedProgram(t *testing.T) {
	trace, sum := generate(t, hrxgen.Options{Seed: 9, Decode: 3, FailRun: 2})
	r := readTrace(t, trace, manifest)
	g := r.c.Accounting.Find(capture.FailedProgram)
	if g == nil || g.Count != 1 || g.Program != "p41" {
		t.Fatalf("got failed program %+v, want one, of p41", g)
	}
	if r.c.Accounting.Find(capture.DeviceFault) == nil {
		t.Fatal("got no device_fault gap, want the sync-failure line surfaced")
	}
	// Dispatches completed before the failure stay in the table.
	checkAgainst(t, r, sum, true)
	p := r.program(t, "p41")
	if p.Program.Instances != 3 {
		t.Fatalf("got %d runs, want 3", p.Program.Instances)
	}
	// The failed run (the second, Instance 1) is named, so per-run figures
	// can leave it out; its dispatches are still in the tables.
	if !slices.Equal(p.Program.IncompleteRuns, []int64{1}) {
		t.Fatalf("incomplete runs %v, want [1]", p.Program.IncompleteRuns)
	}
	var inFailed int
	for _, d := range r.disp {
		if d.Instance == 1 {
			inFailed++
		}
	}
	if inFailed == 0 {
		t.Fatal("got no dispatches of the failed run, want its completed dispatches kept")
	}
}

func TestNotATrace(t *testing.T) {
	r := readTrace(t, []byte("llama_model_load: loaded\nmain: prompt 'hello'\n123 not a trace line\n"))
	g := r.c.Accounting.Find(capture.EmptyCapture)
	if g == nil || !strings.Contains(g.Summary, "3 lines read, none is an 'hrx debug serial:' trace line") {
		t.Fatalf("got empty capture %+v, want one saying 3 lines read, none a trace line", g)
	}
	if len(r.r.Programs) != 0 {
		t.Fatalf("got %d programs from a non-trace, want 0", len(r.r.Programs))
	}
	// Negative arm: one trace line makes it non-empty.
	r = readTrace(t, []byte("x\nhrx debug serial: begin phase=command-program main_commands=2 init_commands=0 transient_arena=0\n"))
	if r.c.Accounting.Find(capture.EmptyCapture) != nil {
		t.Fatal("got a trace with a trace line reported empty, want no empty_capture")
	}
}

func TestUnresolvedID(t *testing.T) {
	trace, _ := generate(t, hrxgen.Options{Seed: 1, Decode: 2, UnnamedKernel: true})
	r := readTrace(t, trace, manifest)
	g := r.c.Accounting.Find(capture.UnresolvedName)
	if g == nil || g.Count != 1 || g.Program != "p41" {
		t.Fatalf("got unresolved %+v, want one, of p41", g)
	}
	if !strings.Contains(g.Summary, manifest) || !strings.Contains(g.Summary, "--manifests") {
		t.Fatalf("got summary %q, want it to name the manifests read (%s) and --manifests", g.Summary, manifest)
	}
	label := catalog.Anonymous("p41", hrxgen.Unnamed)
	found := false
	for _, k := range r.program(t, "p41").Kernels {
		if k.Kernel.Name == label {
			found = !k.Kernel.Resolved && k.Dispatches == 2
		}
	}
	if !found {
		t.Fatalf("got no anonymous row %s, want one, unresolved, of 2 dispatches", label)
	}
	// Without manifests every id is anonymous, never guessed.
	r = readTrace(t, trace)
	for _, k := range r.c.Kernels {
		if k.Resolved || !strings.HasPrefix(k.Name, "p41:#") {
			t.Fatalf("got kernel %+v, want it unresolved and named p41:#id without a catalog", k)
		}
	}
}

func TestTwoManifestDirectories(t *testing.T) {
	trace, _ := generate(t, hrxgen.Options{Seed: 1, Decode: 1})
	dir := "../../testdata/hrx/build/kernels"
	r := readTrace(t, trace, filepath.Join(dir, "loom-libs"), filepath.Join(dir, "hrx"))
	if g := r.c.Accounting.Find(capture.UnresolvedName); g != nil {
		t.Fatalf("both directories: got unresolved %+v, want none", g)
	}
	r = readTrace(t, trace, filepath.Join(dir, "loom-libs"))
	g := r.c.Accounting.Find(capture.UnresolvedName)
	if g == nil || g.Count != 2 { // ggml_gather_add_f32 and ggml_mul_mat_vec_iq3xxs_f32
		t.Fatalf("one directory: got unresolved %+v, want 2", g)
	}
}

func TestRawTrace(t *testing.T) {
	trace, sum := generate(t, hrxgen.Options{Seed: 2, Decode: 3, Prefill: 1, Raw: true})
	r := readTrace(t, trace, manifest)
	if r.c.Clock.Timed || r.c.Clock.Unit != "" || !strings.Contains(r.c.Clock.Description, "no times") {
		t.Fatalf("got clock %+v, want untimed, no unit, saying no times", r.c.Clock)
	}
	if !r.c.Accounting.Complete() {
		t.Fatalf("raw trace: got gaps %v, want none", r.kinds())
	}
	checkAgainst(t, r, sum, false)
	for _, d := range r.disp {
		if d.Device.Valid || d.Launch.Valid {
			t.Fatalf("got times %+v %+v from a raw trace, want none", d.Device, d.Launch)
		}
	}
}

// The same kernel id in two programs is counted per program, as two rows.
func TestSameKernelTwoPrograms(t *testing.T) {
	trace, sum := generate(t, hrxgen.Options{Seed: 4, Decode: 2, Prefill: 1})
	r := readTrace(t, trace, manifest)
	id := hrxgen.Kernels[0].ID()
	var rows int
	for _, label := range []string{"p41", "p303"} {
		for _, k := range r.program(t, label).Kernels {
			if k.Kernel.ID == id && k.Kernel.List == "main" {
				rows++
				want := sum.Programs[label].Kernels[hrxgen.KernelKey{List: "main", ID: id}].Dispatches
				if k.Dispatches != want {
					t.Fatalf("%s: %d dispatches, want %d", label, k.Dispatches, want)
				}
			}
		}
	}
	if rows != 2 {
		t.Fatalf("kernel %d in %d rows, want one per program", id, rows)
	}
}

func TestFilteredCommands(t *testing.T) {
	trace, sum := generate(t, hrxgen.Options{Seed: 4, Decode: 2, FilterStart: 30})
	r := readTrace(t, trace, manifest)
	g := r.c.Accounting.Find(capture.SkippedInput)
	want := sum.Programs["p41"].Untraced
	if g == nil || g.Count != want || want == 0 {
		t.Fatalf("filtered: %+v, want %d", g, want)
	}
	checkAgainst(t, r, sum, true)
}

func TestMalformedAndPartial(t *testing.T) {
	trace := "# tally kept trace v1 clock=monotonic unit=ns\n" +
		"10 hrx debug serial: begin phase=command-program main_commands=1 init_commands=0 transient_arena=0\n" +
		"11 hrx debug serial: explode phase=command-program\n" +
		"12 hrx debug serial: begin phase=command-program main_commands=x init_commands=0 transient_arena=0\n" +
		"13 hrx debug serial: sync-begin phase=brand-new-phase main_commands=1\n" +
		"14 hrx debug serial: sync-end phase=brand-new-phase main_commands=1\n" +
		"15 hrx debug serial: end phase=command-program main_commands=1 init_commands=0 transient_arena=0\n" +
		"16 hrx debug serial: begin phase=comm"
	r := readTrace(t, []byte(trace))
	in := r.c.Accounting.InputFor("lines")
	skips := map[string]int64{}
	for _, s := range in.Skipped {
		skips[s.Reason] = s.Count
	}
	if skips["malformed trace line"] != 2 || skips["partial last line"] != 1 {
		t.Fatalf("got skipped %v, want 2 malformed trace lines and 1 partial last line", skips)
	}
	g := r.c.Accounting.Find(capture.SkippedInput)
	if g == nil || g.Count != 2 || !strings.Contains(g.Items[0].Where, "lines 3, 4") {
		t.Fatalf("got malformed gap %+v, want a skipped_input of 2 at lines 3, 4", g)
	}
	if r.c.Accounting.Find(capture.TruncatedInput) == nil {
		t.Fatal("got no truncated_input, want the partial last line reported")
	}
	if p := r.program(t, "p1"); p.Program.Instances != 1 {
		t.Fatalf("p1: got %d runs, want 1: an unknown phase stopped the reader", p.Program.Instances)
	}
}

func TestHeaderVersionAndClock(t *testing.T) {
	_, err := ReadStream(strings.NewReader("# tally kept trace v2 clock=monotonic unit=ns\n"), "x.kept", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "x.kept:1") {
		t.Fatalf("v2 header: got %v, want an error at x.kept:1", err)
	}
	trace, _ := generate(t, hrxgen.Options{Seed: 1, Decode: 1})
	bad := bytes.Replace(trace, []byte("clock=monotonic"), []byte("clock=realtime"), 1)
	r := readTrace(t, bad, manifest)
	if r.c.Clock.Timed {
		t.Fatal("got a realtime header trusted (clock timed), want it untimed")
	}
	for _, d := range r.disp {
		if d.Device.Valid {
			t.Fatal("got times from a header with the wrong clock, want none")
		}
	}
}

func TestClockDecreaseAndMixedTimes(t *testing.T) {
	trace := "20 hrx debug serial: begin phase=command-program main_commands=0 init_commands=0 transient_arena=0\n" +
		"10 hrx debug serial: end phase=command-program main_commands=0 init_commands=0 transient_arena=0\n" +
		"hrx debug serial: begin phase=command-program main_commands=0 init_commands=0 transient_arena=0\n" +
		"30 hrx debug serial: end phase=command-program main_commands=0 init_commands=0 transient_arena=0\n"
	r := readTrace(t, []byte(trace))
	if g := r.c.Accounting.Find(capture.ClockDecrease); g == nil || g.Count != 1 || g.Items[0].Where != "line 2" {
		t.Fatalf("got clock_decrease %+v, want one at line 2", g)
	}
	if g := r.c.Accounting.Find(capture.UntimedInput); g == nil || g.Count != 1 {
		t.Fatalf("got untimed_input %+v, want one of count 1", g)
	}
}

func TestOutOfOrderLines(t *testing.T) {
	trace, _ := generate(t, hrxgen.Options{Seed: 1, Decode: 1})
	lines := strings.SplitAfter(string(trace), "\n")
	// Drop one "end phase=command-dispatch" line.
	for i, l := range lines {
		if strings.Contains(l, "end phase=command-dispatch") && !strings.Contains(l, "sync-end") {
			lines = append(lines[:i], lines[i+1:]...)
			break
		}
	}
	r := readTrace(t, []byte(strings.Join(lines, "")), manifest)
	if r.c.Accounting.Complete() || r.c.Accounting.Find(capture.InconsistentTrace) == nil {
		t.Fatalf("a missing line: got gaps %v, want an inconsistent_trace", r.kinds())
	}
}

// Sniff claims only on evidence: the kept-trace header, or an hrx line
// (trace line, sync failure, rejected program), raw or stamped, at the
// start of a line. Other text is No, not an empty hrx trace.
func TestSniff(t *testing.T) {
	const header = "# tally kept trace v1 clock=monotonic unit=ns\n"
	const trace = "hrx debug serial: begin phase=command-program main_commands=1\n"
	for _, c := range []struct {
		head string
		want format.Confidence
	}{
		{header + "912 " + trace, format.Certain},
		{header, format.Likely},
		{trace, format.Likely},
		{"loading\n912 " + trace, format.Likely},
		{"HRX debug serial sync failed phase=command-post-dispatch status=1\n", format.Likely},
		{"ggml_hrx: invalid HRX prepared command program (3 commands)\n", format.Likely},
		{"x", format.No},
		{"hello\nworld\n", format.No},
		{"llama_model_load: loaded\nsee 'hrx debug serial: ' lines in the docs\n", format.No}, // mid-line: not a trace line
		{"[L] -1 0.012345 0.4521\n[mla] L3 attn_absmax=1 mlp_absmax=2 x_absmax=3\n", format.No},
		{"IRPF\x01\x00\x06\x00", format.No},
	} {
		if got := Sniff([]byte(c.head)); got != c.want {
			t.Errorf("Sniff(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

// A kept trace is tally record's own file: its empty capture names the
// command and its clock never advises recording with tally record.
func TestKeptTraceWithoutTraceLines(t *testing.T) {
	r := readTrace(t, []byte("# tally kept trace v1 clock=monotonic unit=ns pid=7 cmd=\"./run \\\"a b\\\"\"\n5 loading\n"))
	g := r.c.Accounting.Find(capture.EmptyCapture)
	if g == nil || !strings.HasPrefix(g.Summary, `a kept trace whose command "./run \"a b\"" printed no 'hrx debug serial:' trace line (2 lines read`) {
		t.Fatalf("got %+v, want the kept trace's command named", g)
	}
	if want := "none: the kept trace holds no trace line, so there is nothing to time"; r.c.Clock.Description != want {
		t.Fatalf("clock: got %q, want %q", r.c.Clock.Description, want)
	}
	// Trace lines without stamps in a kept trace: untimed, and still no
	// advice to record.
	const line = "hrx debug serial: sync-begin phase=command-pre-dispatch list=main index=0 list_commands=2 ordinal=0 kind=Kernel kernel_id=5916100870017593149 bindings=3\n"
	r = readTrace(t, []byte("# tally kept trace v1 clock=monotonic unit=ns\n"+line))
	if d := r.c.Clock.Description; r.c.Clock.Timed || !strings.Contains(d, "no trace line of this kept trace carries an arrival stamp") || strings.Contains(d, "tally record") {
		t.Fatalf("clock: got %q, want untimed without advice to record", d)
	}
	// A raw trace keeps the advice.
	r = readTrace(t, []byte(line))
	if !strings.Contains(r.c.Clock.Description, "record with 'tally record'") {
		t.Fatalf("raw clock: got %q, want the advice to record with 'tally record'", r.c.Clock.Description)
	}
}
