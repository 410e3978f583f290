package all

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// npu-prof: the two profilers an NPU engine log holds. Every record is an
// aggregate: a per-family row stands for its window's launches (100 here),
// an NPU_PROFILE line for one call (n=1, 2). The engine's stderr has no end
// marker: a cut at a window boundary is the no_end_marker note.
func init() {
	// Two whole windows of W = 100 launches, one row each: a row stands
	// for 100 dispatches.
	rows := []string{
		"[prof] dec QKV 1 100 0.05 0.10 1.200 0.020 1.370",
		"[prof] dec O 1 100 0.05 0.10 2.200 0.020 2.370",
	}
	gemm := []string{
		"[prof] npu_gemm n=1 pack=0.0 quant+launch=0.2 wait=3.8 readback=0.0 ms (N=2048)",
		"[prof] npu_gemm n=2 pack=0.0 quant+launch=0.2 wait=4.0 readback=0.1 ms (N=2048)",
	}
	promiseFixtures["npu-prof"] = append(promiseFixtures["npu-prof"],
		promiseFixture{
			variant:        "rows",
			base:           npuLog(rows...),
			unreadable:     npuLog(rows[0], "[prof] dec O 1 100 0.05 0.10 2.2x0 0.020 2.370"),
			impossible:     npuLog(rows[0], "[prof] dec O 1 100 0.05 0.10 4000000.000 0.020 4000000.170"),
			unitDispatches: 100,
			// A row carries no identity: the engine prints each kernel
			// once per window, so a row repeated reads as the next
			// window's row of that kernel (docs/formats/npuprof.md).
			noIdentity: "per-family rows carry no id: a repeated row is the next window's row of the same kernel",
			cut:        npuLog(rows[0]),
			endMarker:  false,
			records:    npuRecords(rows),
		},
		promiseFixture{
			variant:    "npu_gemm",
			base:       npuLog(gemm...),
			unreadable: npuLog(gemm[0], "[prof] npu_gemm n=2 pack=0.0 quant+launch=0.2 wait=4.x readback=0.1 ms (N=2048)"),
			impossible: npuLog(gemm[0], "[prof] npu_gemm n=2 pack=0.0 quant+launch=0.2 wait=-4.0 readback=0.1 ms (N=2048)"),
			// A line's identity is its run and n.
			repeated:   npuLog(gemm[0], gemm[1], gemm[1]),
			repeatKind: capture.DuplicateEvent,
			cut:        npuLog(gemm[0]),
			endMarker:  false,
			records:    npuRecords(gemm),
			ordered:    "npu_gemm lines carry running means over n calls, and a decrease of n starts a new process (docs/formats/npuprof.md): two lines swapped are two runs",
		})
}

func npuLog(lines ...string) func(t *testing.T, dir string) string {
	return func(t *testing.T, dir string) string {
		return fixture.Write(t, dir, "engine.log", []byte(strings.Join(lines, "\n")+"\n"))
	}
}

func npuRecords(lines []string) func(*testing.T, string, func(int) []int) string {
	return pickedLines(func() string { return strings.Join(lines, "\n") }, "engine.log")
}
