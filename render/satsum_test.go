package render

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// The rows past --top are summed in one line: kernels or ops of MaxInt64
// dispatches and ns pin the sum at MaxInt64, never wrap it negative (no
// dispatches, a negative time).
func TestRestRowsSaturate(t *testing.T) {
	const huge = int64(math.MaxInt64)
	pt := &analysis.ProgramTable{Program: capture.Program{Name: "step"}, Clock: capture.Clock{Unit: "ns", Timed: true},
		Dispatches: huge, Timed: huge, Total: huge}
	for _, n := range []string{"a", "b", "c"} {
		pt.Kernels = append(pt.Kernels, analysis.KernelRow{Kernel: capture.Kernel{Name: n}, Dispatches: huge, Timed: huge, Total: huge, Share: 0.25})
	}
	var b bytes.Buffer
	p := &printer{w: &b}
	writeKernels(p, pt, TextOptions{Top: 1})
	want := fmt.Sprintf("… 2 more kernels (--top 0 shows all): %d dispatches, %s, ", huge, Duration(huge, "ns"))
	if !strings.Contains(b.String(), want) {
		t.Errorf("kernel table: got\n%s\nwant a line with %q", b.String(), want)
	}

	ot := &analysis.OpTable{Level: "inner", Source: "test", Unit: "ns", Dispatches: huge, Timed: huge, Device: huge}
	for _, n := range []string{"aten::a", "aten::b", "aten::c"} {
		ot.Rows = append(ot.Rows, analysis.OpRow{Name: n, Calls: huge, OpFigures: analysis.OpFigures{Dispatches: huge, Timed: huge, Device: huge}})
	}
	b.Reset()
	writeOps(p, ot, TextOptions{Top: 1})
	var rest string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, "more op names") {
			rest = l
		}
	}
	if f := strings.Fields(rest); len(f) < 2 || f[0] != fmt.Sprint(huge) || f[1] != fmt.Sprint(huge) || !strings.Contains(rest, "  "+Duration(huge, "ns")+"  ") {
		t.Errorf("op table rest row: got %q, want calls and dispatches %d, device %s", rest, huge, Duration(huge, "ns"))
	}
}
