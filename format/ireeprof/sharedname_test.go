package ireeprof

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// Kernels of one program that share a name are told apart by executable
// and function, alike from the bundle and from iree-profile's JSONL (both
// readers go through progState.dedupeKernelNames); a kernel whose name no
// other kernel of its program has keeps it.
func TestSharedKernelNamesQualified(t *testing.T) {
	sp := good()
	sp.names = []string{"alpha", "alpha"}
	got := kernelNames(mustRead(t, build(sp)).c)
	want := "command buffer 1: alpha [executable 1 #0] | command buffer 1: alpha [executable 1 #1] | direct dispatches: alpha"
	if got != want {
		t.Errorf("bundle: got kernels %s, want %s", got, want)
	}
	rows := bytes.ReplaceAll(goldenJSONL(t, "dispatch_mode"), []byte(`"key":"softmax_f32"`), []byte(`"key":"matmul_q4k_f32_wg256"`))
	c, _ := readJSONLBytes(t, rows)
	got = kernelNames(c)
	want = "command buffer 5: matmul_q4k_f32_wg256 [executable 1 #0] | command buffer 5: matmul_q4k_f32_wg256 [executable 1 #1] | direct dispatches: rms_norm_f32"
	if got != want {
		t.Errorf("JSONL: got kernels %s, want %s", got, want)
	}
}

// kernelNames lists the capture's kernels as "program: name", sorted.
func kernelNames(c *capture.Capture) string {
	var out []string
	for _, k := range c.Kernels {
		out = append(out, c.Programs[k.Program].Name+": "+k.Name)
	}
	slices.Sort(out)
	return strings.Join(out, " | ")
}
