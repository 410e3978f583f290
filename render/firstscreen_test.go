package render

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// progSpec is one program of a test capture: its kernels' names and the
// device time of each one's single dispatch.
type progSpec struct {
	name    string
	kernels []string
	ns      []int64
	launch  bool
	unit    string // "" : the capture's ns clock
}

func build(specs ...progSpec) (*capture.Capture, *analysis.Tables) {
	c := &capture.Capture{Source: capture.Source{Path: "x", Format: "test"},
		Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true, Description: "ns on a test clock"}}
	a := analysis.NewAggregator()
	for _, s := range specs {
		prog := capture.Program{Name: s.name, Instances: 1}
		if s.unit != "" {
			prog.Clock = &capture.Clock{Domain: "device-ticks", Unit: s.unit, Timed: true}
		}
		p := c.AddProgram(prog)
		for i, n := range s.kernels {
			k := c.AddKernel(capture.Kernel{Program: p, Name: n, Resolved: true, Category: "kernel"})
			d := &capture.Dispatch{Program: p, Kernel: k, Device: capture.Interval{Begin: 0, End: s.ns[i], Valid: true}}
			if s.launch {
				d.Launch = capture.Interval{Begin: 0, End: 5, Valid: true}
				d.Link = capture.LinkLaunched
			}
			a.Dispatch(c, d)
		}
	}
	return c, a.Tables(c)
}

func text(t *testing.T, c *capture.Capture, r *analysis.Tables, opt TextOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := Text(&b, c, r, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestProgramsCostliestFirst: programs print by device time, costliest
// first, unless --order input; the summary lists them in that order with
// their share of the capture's device time.
func TestProgramsCostliestFirst(t *testing.T) {
	c, r := build(
		progSpec{name: "cheap", kernels: []string{"a"}, ns: []int64{100}},
		progSpec{name: "dear", kernels: []string{"b"}, ns: []int64{300}},
	)
	out := text(t, c, r, TextOptions{})
	if i, j := strings.Index(out, "program dear:"), strings.Index(out, "program cheap:"); i < 0 || j < i {
		t.Fatalf("got cheap before dear, want the costliest program first:\n%s", out)
	}
	wantIn(t, out,
		"programs by device time, costliest first",
		"share: of the capture's device time, 400 ns",
		"         1           1  300 ns  75.0%  dear\n",
		"         1           1  100 ns  25.0%  cheap\n")
	if strings.Index(out, "  dear\n") > strings.Index(out, "  cheap\n") {
		t.Errorf("summary: got cheap before dear, want dear first:\n%s", out)
	}
	// Negative arm: --order input keeps the input's order everywhere.
	out = text(t, c, r, TextOptions{InputOrder: true})
	if i, j := strings.Index(out, "program dear:"), strings.Index(out, "program cheap:"); j < 0 || i < j {
		t.Fatalf("--order input: got dear before cheap, want input order:\n%s", out)
	}
	if !strings.Contains(out, "programs in input order") || strings.Index(out, "  dear\n") < strings.Index(out, "  cheap\n") {
		t.Errorf("--order input summary: want input order:\n%s", out)
	}
	// The tables themselves stay in input order: ProgramIDs index them.
	if r.Programs[0].Program.Name != "cheap" {
		t.Errorf("tables reordered: got %q first, want cheap", r.Programs[0].Program.Name)
	}
}

// TestProgramOrderClasses: ns programs before tick programs before untimed
// ones; ties by dispatches, then as read.
func TestProgramOrderClasses(t *testing.T) {
	r := &analysis.Tables{Programs: []analysis.ProgramTable{
		{Program: capture.Program{Name: "untimed"}, Dispatches: 9, Clock: capture.Clock{Unit: "ns"}},
		{Program: capture.Program{Name: "ticks"}, Dispatches: 1, Timed: 1, Total: 1e9, Clock: capture.Clock{Unit: "ticks"}},
		{Program: capture.Program{Name: "ns-small"}, Dispatches: 1, Timed: 1, Total: 10, Clock: capture.Clock{Unit: "ns"}},
		{Program: capture.Program{Name: "ns-tie-few"}, Dispatches: 1, Timed: 1, Total: 50, Clock: capture.Clock{Unit: "ns"}},
		{Program: capture.Program{Name: "ns-tie-many"}, Dispatches: 4, Timed: 4, Total: 50, Clock: capture.Clock{Unit: "ns"}},
	}}
	var got []string
	for _, i := range ProgramOrder(r, false) {
		got = append(got, r.Programs[i].Program.Name)
	}
	want := "ns-tie-many ns-tie-few ns-small ticks untimed"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
}

// TestSummaryOnlyForSeveralAndCapped: no summary for one program; past
// summaryRows+1 programs the rest are summed in one line.
func TestSummaryOnlyForSeveralAndCapped(t *testing.T) {
	c, r := build(progSpec{name: "only", kernels: []string{"k"}, ns: []int64{10}})
	if out := text(t, c, r, TextOptions{}); strings.Contains(out, "programs by device time") {
		t.Fatalf("one program: got a summary, want none:\n%s", out)
	}
	var specs []progSpec
	for i := 0; i < summaryRows+3; i++ {
		specs = append(specs, progSpec{name: fmt.Sprintf("p%02d", i), kernels: []string{"k"}, ns: []int64{int64(100 + i)}})
	}
	c, r = build(specs...)
	out := text(t, c, r, TextOptions{})
	if !strings.Contains(out, "    … 3 more programs, each with its table below: 3 dispatches, 303 ns (") {
		t.Fatalf("got no rest line for 3 programs, want one (3 dispatches, 303 ns) in:\n%s", out)
	}
	summary := out[strings.Index(out, "programs by"):strings.Index(out, "columns:")]
	if n := strings.Count(summary, "\n         1           1"); n != summaryRows {
		t.Fatalf("got %d summary rows, want %d:\n%s", n, summaryRows, summary)
	}
	// Every program still has its table.
	for _, s := range specs {
		if !strings.Contains(out, "program "+s.name+":") {
			t.Errorf("got no table for %s, want one per program", s.name)
		}
	}
}

// TestSummarySharesPerUnit: a share is of the device time in the
// program's own unit; ns and ticks are never summed.
func TestSummarySharesPerUnit(t *testing.T) {
	c, r := build(
		progSpec{name: "a", kernels: []string{"k"}, ns: []int64{30}},
		progSpec{name: "b", kernels: []string{"k"}, ns: []int64{10}},
		progSpec{name: "t", kernels: []string{"k"}, ns: []int64{7}, unit: "ticks"},
	)
	out := text(t, c, r, TextOptions{})
	wantIn(t, out, "device time, 40 ns + 7 ticks", "  30 ns   75.0%  a\n", "  7 ticks  100.0%  t\n")
}

// TestLegendOnce: the legend is printed once, before the first table, and
// names the launch column only where a table has one.
func TestLegendOnce(t *testing.T) {
	c, r := build(
		progSpec{name: "a", kernels: []string{"k"}, ns: []int64{30}, launch: true},
		progSpec{name: "b", kernels: []string{"k"}, ns: []int64{10}, launch: true},
	)
	out := text(t, c, r, TextOptions{})
	if n := strings.Count(out, "launch mean: time in the host enqueue call"); n != 1 {
		t.Fatalf("got the launch legend %d times, want once:\n%s", n, out)
	}
	if strings.Index(out, "columns:") > strings.Index(out, "program a:") {
		t.Errorf("got the legend after the first table, want it before:\n%s", out)
	}
	// Negative arm: no launch column, no launch legend.
	c, r = build(progSpec{name: "a", kernels: []string{"k"}, ns: []int64{30}})
	out = text(t, c, r, TextOptions{})
	if strings.Contains(out, "launch mean") || !strings.Contains(out, "columns: total, mean, min, max") {
		t.Fatalf("no launches: want the device legend alone:\n%s", out)
	}
}

const (
	addF = "void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>, std::array<char *, (unsigned long)3>>(int, T2, T3)"
	addL = "void at::native::vectorized_elementwise_kernel<(int)2, at::native::CUDAFunctor_add<long>, std::array<char *, (unsigned long)3>>(int, T2, T3)"
	mulF = "void at::native::vectorized_elementwise_kernel<(int)4, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float>>, std::array<char *, (unsigned long)3>>(int, T2, T3)"
	red  = "void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, (int)4, (int)4>>(T3)"
)

// TestShortNamesByDefault: kernel names are short, colliding short names
// step back until told apart, --names full prints them whole.
func TestShortNamesByDefault(t *testing.T) {
	c, r := build(progSpec{name: "p", kernels: []string{addF, addL, mulF, red}, ns: []int64{40, 30, 20, 10}})
	out := text(t, c, r, TextOptions{Width: -1})
	wantIn(t, out,
		"  reduce_kernel\n",
		"  vectorized_elementwise_kernel<4, CUDAFunctor_add, array>\n",
		"  vectorized_elementwise_kernel<2, CUDAFunctor_add, array>\n",
		"  vectorized_elementwise_kernel<4, BinaryFunctor, array>\n")
	if strings.Contains(out, "at::native") {
		t.Errorf("short names: got a namespace (at::native), want none in:\n%s", out)
	}
	out = text(t, c, r, TextOptions{FullNames: true})
	for _, n := range []string{addF, addL, mulF, red} {
		if !strings.Contains(out, "  "+n+"\n") {
			t.Errorf("--names full: got no %q, want it whole in:\n%s", n, out)
		}
	}
}

// TestKernelIdentsDistinct: every row's label is its own unless the full
// names are equal, including names equal only up to a tag.
func TestKernelIdentsDistinct(t *testing.T) {
	rows := []analysis.KernelRow{
		{Kernel: capture.Kernel{Name: addF}},
		{Kernel: capture.Kernel{Name: addF, List: "init"}},
		{Kernel: capture.Kernel{Name: addL}},
		{Kernel: capture.Kernel{Name: "void k<(int)1>(int)"}},
		{Kernel: capture.Kernel{Name: "void k<(int)1>(float)"}}, // differ only in parameters
		{Kernel: capture.Kernel{Name: "k"}},                     // reads as the others' short name
	}
	names, tags := kernelIdents(rows, false)
	seen := map[string]int{}
	for i := range names {
		l := names[i] + tags[i]
		if j, ok := seen[l]; ok {
			t.Errorf("got rows %d and %d both reading %q, want distinct rows", j, i, l)
		}
		seen[l] = i
	}
	if names[0] != "vectorized_elementwise_kernel<4, CUDAFunctor_add, array>" || tags[1] != " [init list]" || names[1] != "vectorized_elementwise_kernel" {
		t.Errorf("got %q, %q%q; want the tagged row short and the untagged one with its arguments", names[0], names[1], tags[1])
	}
	if names[3] != rows[3].Kernel.Name || names[4] != rows[4].Kernel.Name {
		t.Errorf("names differing in parameters only: got %q, %q, want the full names", names[3], names[4])
	}
}

// TestTablesWithin120 checks the width on names of 300 to 1,000
// characters, as Nsight's demangled names run: every table line keeps to
// 120 columns, cut names are marked, and no two rows read the same.
func TestTablesWithin120(t *testing.T) {
	long := func(i int) string {
		return fmt.Sprintf("void ns::kernel_%d<%s>(%s)", i%3, strings.Repeat(fmt.Sprintf("Type%d, ", i), 40+10*i)+"int", strings.Repeat("float *, ", 30))
	}
	var ks []string
	var ns []int64
	for i := 0; i < 9; i++ {
		ks = append(ks, long(i))
		ns = append(ns, int64(1000-i))
	}
	ks = append(ks, "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
		"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_split_k_kernel__5x_cublas",
		"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
		"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_split_k_kernel__5x_cublas")
	ns = append(ns, 5, 4, 3, 2)
	progName := "FSDP::pre_forward (" + strings.Repeat("encoder.block.", 20) + ")"
	c, r := build(progSpec{name: progName, kernels: ks, ns: ns, launch: true}, progSpec{name: "other", kernels: []string{"k"}, ns: []int64{1}})
	out := text(t, c, r, TextOptions{})
	rows := 0
	seen := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "    ") { // table lines; headers and gaps may be longer
			continue
		}
		if n := utf8.RuneCountInString(line); n > DefaultWidth {
			t.Errorf("got a %d-column table line, want ≤ %d: %q", n, DefaultWidth, line)
		}
		if i := strings.Index(line, "µs  "); i > 0 || strings.Contains(line, " ns  ") {
			label := line[strings.LastIndex(line, "  ")+2:]
			if seen[label] {
				t.Errorf("got two rows reading %q, want distinct labels", label)
			}
			seen[label] = true
			rows++
		}
	}
	if !strings.Contains(out, "…") {
		t.Errorf("got no cut marker, want … in:\n%s", out)
	}
	if !strings.Contains(out, "tilesize64x256x8") || !strings.Contains(out, "tilesize128x128x8") {
		t.Errorf("cublas variants: want the tile sizes that set them apart shown:\n%s", out)
	}
	// Negative arm: without a limit the rows are as long as their names.
	out = text(t, c, r, TextOptions{Width: -1})
	if !strings.Contains(out, ks[9]+"\n") {
		t.Errorf("no width limit: got the cublas name cut, want %q whole in:\n%s", ks[9], out)
	}
}

// TestTopKeepsNames: --top does not change the names of the rows shown.
func TestTopKeepsNames(t *testing.T) {
	c, r := build(progSpec{name: "p", kernels: []string{addF, addL}, ns: []int64{40, 30}})
	out := text(t, c, r, TextOptions{Top: 1, Width: -1})
	if !strings.Contains(out, "vectorized_elementwise_kernel<4, CUDAFunctor_add, array>\n") {
		t.Fatalf("--top 1: got the shown row renamed, want %q in:\n%s", "vectorized_elementwise_kernel<4, CUDAFunctor_add, array>", out)
	}
}

// TestFitNamesDistinct is a property check: for random names sharing long
// prefixes and suffixes, fitted labels are distinct whenever the names
// are, and each fits its room or is the whole name.
func TestFitNamesDistinct(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"gemm", "tile", "64x256", "128x128", "split", "k", "kernel", "f32", "cublas", "a", "b"}
	for trial := 0; trial < 300; trial++ {
		n := 2 + rng.Intn(12)
		names := make([]string, n)
		for i := range names {
			var parts []string
			for j := 0; j < 2+rng.Intn(14); j++ {
				parts = append(parts, words[rng.Intn(len(words))])
			}
			names[i] = "prefix_common_" + strings.Join(parts, "_") + "_common_suffix"
		}
		width := 12 + rng.Intn(30)
		widths := make([]int, n)
		for i := range widths {
			widths[i] = width
		}
		out := fitNames(names, make([]string, n), widths)
		for i := range out {
			if out[i] != names[i] && utf8.RuneCountInString(out[i]) > width {
				t.Fatalf("%q fitted to %q: %d runes, want ≤ %d", names[i], out[i], utf8.RuneCountInString(out[i]), width)
			}
			for j := 0; j < i; j++ {
				if out[i] == out[j] && names[i] != names[j] {
					t.Fatalf("width %d: got %q and %q both reading %q, want distinct labels", width, names[i], names[j], out[i])
				}
			}
		}
	}
}
