package cli

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func TestNPUStallAndInspect(t *testing.T) {
	dir := t.TempDir()
	stall := writeFile(t, dir, "stall.log", "loading model\n  [L] -1 0.100000 1.0000\n  [L] 0 0.200000 2.0000\n  [L] 2 0.300000 3.0000\n")
	code, out, _ := tally("report", stall)
	if code != 2 || !strings.Contains(out, "no profiler window completed (fewer than W launches, or the run stalled before the first window); the absence of rows is not an absence of launches") {
		t.Fatalf("stall: got exit %d\n%s\nwant 2 and \"no profiler window completed ...\"", code, out)
	}
	if strings.Contains(out, "no dispatches") || strings.Contains(out, "none is an") {
		t.Fatalf("stall: got it reported as no dispatches, want a stall:\n%s", out)
	}
	// The log: [L] lines without the engine's indentation, an
	// [mla] line, no [prof] line. It is npu-prof's stall, not hrx's.
	code, out, _ = tally("report", "../../format/npuprof/testdata/stall-unindented.log")
	if code != 2 || !strings.Contains(out, "(npu-prof,") || !strings.Contains(out, "no profiler window completed") || strings.Contains(out, "GGML_HRX") {
		t.Fatalf("unindented stall: got exit %d\n%s, want npu-prof's stall", code, out)
	}
	code, out, _ = tally("inspect", stall)
	if code != 0 || !strings.Contains(out, "format: npu-prof") || !strings.Contains(out, "layers missing between seen ones: 1") {
		t.Fatalf("inspect: got exit %d\n%s\nwant 0, format npu-prof and 1 layer missing", code, out)
	}
	kept := writeFile(t, dir, "run.kept", "# tally kept trace v1 clock=monotonic unit=ns pid=1 cmd=\"./engine\"\n"+
		"100 [prof] pre D 128 100 0.30 0.21 3.806 0.011 4.328\n200 [prof] dec D 1 100 0.30 0.21 1.000 0.011 1.600\n")
	code, out, _ = tally("report", "--strict", kept)
	if code != 1 || !strings.Contains(out, "program prefill") || !strings.Contains(out, "GAP inconsistent_trace") {
		t.Fatalf("kept npu trace: got exit %d\n%s\nwant 1, program prefill and GAP inconsistent_trace", code, out)
	}
}

func TestNPURecord(t *testing.T) {
	kept := filepath.Join(t.TempDir(), "npu.kept")
	code, _, errOut := tally("record", "-o", kept, "--", "/bin/sh", "-c",
		"echo '[prof] pre QKV 64 100 0.10 0.20 2.000 0.010 2.310'; echo '  [L] 0 0.5 1.0' >&2")
	if code != 0 || !strings.Contains(errOut, "program prefill") || !strings.Contains(errOut, "QKV M=64") {
		t.Fatalf("record: got exit %d\n%s\nwant 0, program prefill and QKV M=64", code, errOut)
	}
	// A row the engine did not finish writing (killed mid-line) is named:
	// the report is not complete, and --strict says so.
	code, _, errOut = tally("record", "--strict", "-o", kept, "--", "/bin/sh", "-c",
		"echo '[prof] pre QKV 64 100 0.10 0.20 2.000 0.010 2.310' >&2; printf '[prof] dec D 1 100 0.30 0.21 3.806 0.011 4.3' >&2")
	if code != 1 || !strings.Contains(errOut, "GAP truncated_input") || !strings.Contains(errOut, kept+":3") {
		t.Fatalf("cut row: got exit %d\n%s\nwant 1 and GAP truncated_input at %s:3", code, errOut, kept)
	}
}

func writeF32(t *testing.T, dir string, l int, vals []float32) {
	t.Helper()
	b := make([]byte, 0, 4*len(vals))
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	writeFile(t, dir, fmt.Sprintf("layer_%d.f32", l), string(b))
}

func TestLayersCommand(t *testing.T) {
	ref, ours := t.TempDir(), t.TempDir()
	for l := 0; l < 4; l++ {
		v := []float32{1, 2, 3, 4, float32(l), 6}
		writeF32(t, ref, l, v)
		if l != 2 {
			writeF32(t, ours, l, v)
		}
	}
	code, out, errOut := tally("layers", "--hidden", "3", ref, ours)
	if code != 0 || !strings.Contains(out, "NOT WRITTEN (ours)") || !strings.Contains(out, "2×3") {
		t.Fatalf("layers: got exit %d %s\n%s\nwant 0, \"NOT WRITTEN (ours)\" and 2×3", code, errOut, out)
	}
	if code, _, _ := tally("layers", "--strict", ref, ours); code != 1 {
		t.Fatalf("--strict with a layer not written: got exit %d, want 1", code)
	}
	code, out, _ = tally("layers", "--json", ref, ref)
	var doc struct {
		Schema string
		Totals struct{ Compared int }
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Schema != "tally.layers/v1" || doc.Totals.Compared != 4 {
		t.Fatalf("json: got exit %d\n%s\nwant 0, tally.layers/v1 and 4 compared", code, out)
	}
	if code, _, errOut := tally("layers", "-o", "/dev/full", ref, ours); code != 2 || errOut == "" {
		t.Fatalf("-o /dev/full: got exit %d and stderr %q, want 2 and an error", code, errOut)
	}
	if code, _, _ := tally("layers", ref); code != 2 {
		t.Fatalf("one argument: got exit %d, want 2", code)
	}
	// A --hidden that fits none of the dumps compares nothing: exit 2 with
	// the reason, without --strict and with --json too.
	for _, args := range [][]string{{"--hidden", "4"}, {"--hidden", "4", "--json"}} {
		code, _, errOut = tally(append(append([]string{"layers"}, args...), ref, ref)...)
		if want := "tally layers: nothing compared: --hidden 4 does not fit the dumps"; code != 2 || !strings.HasPrefix(errOut, want) {
			t.Fatalf("%v: got exit %d %q, want 2 %q…", args, code, errOut, want)
		}
	}
	// The negative arm: a width that fits compares, exit 0.
	if code, _, errOut := tally("layers", "--hidden", "2", ref, ref); code != 0 || errOut != "" {
		t.Fatalf("--hidden 2: got exit %d %q, want 0", code, errOut)
	}
}
