package htmlreport

import (
	"html/template"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/render"
)

// opsFixture: a GEMM (FLOPs and bytes: a point), an elementwise op (bytes
// only: not a point), an op with a hostile name, and a dispatch under no
// op, on an H100 (bf16 and fp32 roofs).
func opsFixture(t *testing.T, edit ...func(*analysis.OpTable)) []byte {
	c := &capture.Capture{Source: capture.Source{Path: "t.json", Format: "test"}, Clock: capture.Clock{Unit: "ns", Timed: true},
		OpSource: "test", OpDevice: "NVIDIA H100 80GB HBM3"}
	p := c.AddProgram(capture.Program{Name: "step", Instances: 1})
	k := c.AddKernel(capture.Kernel{Program: p, Name: "gemm", Resolved: true, Category: "kernel"})
	long := c.AddKernel(capture.Kernel{Program: p, Name: longKernel, Resolved: true, Category: "kernel"})
	mm := c.AddOp(capture.Op{Name: "aten::mm", Dims: "[[1024,2048],[2048,4096]]", Types: `["c10::BFloat16","c10::BFloat16"]`, Calls: 1, HostValid: true})
	mm32 := c.AddOp(capture.Op{Name: "aten::bmm", Dims: "[[2,64,64],[2,64,64]]", Types: `["float","float"]`, Calls: 1})
	add := c.AddOp(capture.Op{Name: "aten::add", Dims: "[[1024],[1024]]", Types: `["float","float"]`, Calls: 1})
	bad := c.AddOp(capture.Op{Name: xssName, Calls: 1})
	agg, ops := analysis.NewAggregator(), analysis.NewOpAggregator()
	for i, op := range []capture.OpID{mm, mm32, add, bad, capture.NoOp} {
		d := &capture.Dispatch{Program: p, Kernel: k, Op: op, Device: capture.Interval{Begin: 0, End: int64(1000 * (i + 1)), Valid: true}}
		if op == add {
			d.Kernel = long
		}
		agg.Dispatch(c, d)
		ops.Dispatch(c, d)
	}
	tb := agg.Tables(c)
	tb.Ops = ops.Table(c, analysis.OpOptions{})
	for _, e := range edit {
		e(tb.Ops)
	}
	return writePage(t, oneInput(c, tb), Options{})
}

// longKernel is a demangled name as PyTorch's traces carry them.
const longKernel = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)"

// An op's costliest kernel is shown short, as the kernel tables show it,
// its whole name on hover: the table stays within the page.
func TestOpsKernelShort(t *testing.T) {
	page := string(opsFixture(t))
	short := render.ShortNames([]string{longKernel})[0]
	if short == longKernel {
		t.Fatalf("got ShortNames leaving %q whole, want it shortened", longKernel)
	}
	cell := `<code title="` + template.HTMLEscapeString(longKernel) + `">` + template.HTMLEscapeString(short) + `</code>`
	if !strings.Contains(page, cell) {
		t.Errorf("got no short kernel cell on the page, want %s", cell)
	}
}

func TestOpsSection(t *testing.T) {
	page := string(opsFixture(t))
	for _, want := range []string{`<section class="ops">`, `data-op="aten::mm"`, `data-op="aten::bmm"`, "bf16 roof: 989.5 TFLOP/s, 3.35 TB/s", "fp32 roof: 67 TFLOP/s",
		"1 op is modelled by bytes only (no FLOPs) and not drawn", "under no op", "peaks: H100 SXM", "&lt;img src=x onerror="} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<circle class="op"`); n != 2 {
		t.Errorf("got %d points, want 2 (the two GEMMs; add has bytes only)", n)
	}
	if strings.Contains(page, xssName) {
		t.Error("got the hostile op name on the page as markup, want it escaped")
	}
	// Without --by op: no section.
	if strings.Contains(string(sampleCapture().page(t)), `class="ops"`) {
		t.Error("got an ops section on a page without the op table, want none")
	}
}
