package export

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// An unfinished dispatch is named with its kernel, its launch time and the
// last dispatch completed before it (docs/export.md): the gaps file's
// `first` must carry all three, not only the kernel and its position.
func TestGapFirstItemNamesLaunchAndLastCompleted(t *testing.T) {
	c := &capture.Capture{Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true}}
	c.AddProgram(capture.Program{Name: "p41"})
	g := c.Accounting.Gap(capture.UnfinishedDispatch, "p41")
	g.Add(capture.Item{What: "launched, never finished", Kernel: "mul_mat", Where: "run 5, main[13]", Time: capture.TimeOf(912412097245),
		LastCompleted: "p41 main[12] flash_attn"})
	var first string
	for _, r := range gapRows(&input{Input: analysis.Input{Capture: c}}) {
		if r.Kind == string(capture.UnfinishedDispatch) {
			first = r.First
		}
	}
	for _, want := range []string{"mul_mat", "run 5, main[13]", "912412097245 ns", "p41 main[12] flash_attn"} {
		if !strings.Contains(first, want) {
			t.Errorf("first %q lacks %q", first, want)
		}
	}
}
