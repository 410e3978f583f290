package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/internal/gen/hrxgen"
)

const (
	rank0 = "../../format/kineto/testdata/hta__sampled_rank-0.json.gz"
	rank1 = "../../format/kineto/testdata/hta__sampled_rank-1.json.gz"
)

// genTrace writes an hrxgen kept trace; slower scales the matmul kernel's
// device time (1 for none).
func genTrace(t *testing.T, name string, seed int64, slower float64) string {
	t.Helper()
	saved := append([]hrxgen.Kernel(nil), hrxgen.Kernels...)
	defer copy(hrxgen.Kernels, saved)
	hrxgen.Kernels[0].DeviceNS = int64(float64(hrxgen.Kernels[0].DeviceNS) * slower)
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hrxgen.Write(f, hrxgen.Options{Seed: seed, Decode: 12, Prefill: 6}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDiffSlowerKernel(t *testing.T) {
	a := genTrace(t, "a.kept", 1, 1)
	b := genTrace(t, "b.kept", 2, 1.3)
	out := tallyOK(t, "diff", "--manifests", kernels, a, b)
	containsAll(t, "diff", out, "program p41: A 12 runs, B 12 runs: slower\n", "program p303: A 6 runs, B 6 runs", "kernels: 4 slower, 16 no change (~)\n", "A: COMPLETE\nB: COMPLETE\n")
	code, _, errOut := tally("diff", "--manifests", kernels, "--fail-if-slower", "10", a, b)
	if code != 1 || !strings.Contains(errOut, "slower by more than 10%: program p41, kernel loom_libs:ggml_mul_mat_f32_f32_wmma: time per dispatch +") {
		t.Fatalf("--fail-if-slower 10: got exit %d\n%s\nwant 1 and p41's kernel named slower by more than 10%%", code, errOut)
	}
	if code, _, errOut = tally("diff", "--manifests", kernels, "--fail-if-slower", "50", a, b); code != 0 || errOut != "" {
		t.Fatalf("--fail-if-slower 50 on a 30%% slowdown: got exit %d %s, want 0 and no stderr", code, errOut)
	}
	// The same workload again: nothing is slower.
	a2 := genTrace(t, "a2.kept", 3, 1)
	if code, out, errOut := tally("diff", "--manifests", kernels, "--fail-if-slower", "5", a, a2); code != 0 {
		t.Fatalf("same workload, --fail-if-slower 5: got exit %d %s\n%s\nwant 0", code, errOut, out)
	}
}

// A1 A2 -- B1 B2 pools the runs of each side's files.
func TestDiffRepeatedInputs(t *testing.T) {
	a1, a2 := genTrace(t, "a1.kept", 1, 1), genTrace(t, "a2.kept", 2, 1)
	b1, b2 := genTrace(t, "b1.kept", 3, 1), genTrace(t, "b2.kept", 4, 1)
	out := tallyOK(t, "diff", a1, "--manifests", kernels, a2, "--", b1, b2, "--json")
	var doc struct {
		Schema string
		Sides  []struct {
			Label  string
			Inputs []json.RawMessage
		}
		Programs []struct {
			Name  string
			RunsA int `json:"runs_a"`
			RunsB int `json:"runs_b"`
		}
	}
	decodeJSON(t, out, &doc)
	if doc.Schema != "tally.diff/v1" || len(doc.Sides) != 2 || len(doc.Sides[0].Inputs) != 2 || len(doc.Sides[1].Inputs) != 2 {
		t.Fatalf("sides: got %+v, want schema tally.diff/v1 and 2 sides of 2 inputs each", doc.Sides)
	}
	for _, p := range doc.Programs {
		if p.Name == "p41" && (p.RunsA != 24 || p.RunsB != 24) {
			t.Fatalf("p41 runs %d/%d, want 24/24", p.RunsA, p.RunsB)
		}
	}
}

func TestDiffRealRanks(t *testing.T) {
	out := tallyOK(t, "diff", rank0, rank1)
	// No GPU annotations: the host ProfilerStep ranges make 2 steps a side.
	if !strings.Contains(out, "program ProfilerStep: A 2 runs, B 2 runs") || !strings.Contains(out, "A: INCOMPLETE") {
		t.Fatalf("got output:\n%s\nwant program ProfilerStep with 2 runs a side and \"A: INCOMPLETE\"", out)
	}
	code, _, errOut := tally("diff", "--strict", rank0, rank1)
	if code != 1 || !strings.Contains(errOut, "side A is incomplete") || !strings.Contains(errOut, "side B is incomplete") {
		t.Fatalf("--strict: got exit %d %s, want 1 and both sides named incomplete", code, errOut)
	}
	code, out, _ = tally("diff", "--csv", rank0, rank1)
	if code != 0 || !strings.HasPrefix(out, "program,kernel,list,status,changes,quantity,unit,") {
		t.Fatalf("--csv: got exit %d %.200s, want 0 and the CSV header", code, out)
	}
}

func TestDiffUsageAndWriteErrors(t *testing.T) {
	for _, args := range [][]string{
		{"diff"},
		{"diff", rank0},
		{"diff", rank0, rank1, rank1},
		{"diff", rank0, "--"},
		{"diff", "--", rank1},
		{"diff", "--json", "--csv", rank0, rank1},
		{"diff", "--fail-if-slower", "-3", rank0, rank1},
		{"diff", "--fail-if-slower", "NaN", rank0, rank1},
		{"diff", rank0, "no-such-file.json"},
		{"diff", "--bogus", rank0, rank1},
	} {
		if code, _, _ := tally(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	if code, _, errOut := tally("diff", "-o", "/dev/full", rank0, rank1); code != 2 || errOut == "" {
		t.Errorf("-o /dev/full: got exit %d %q, want 2 and an error", code, errOut)
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	if os.Getuid() != 0 {
		if code, _, _ := tally("diff", "-o", filepath.Join(dir, "d.txt"), rank0, rank1); code != 2 {
			t.Errorf("-o into a read-only dir: got exit %d, want 2", code)
		}
	}
	empty := writeFile(t, t.TempDir(), "empty.json", "")
	if code, out, errOut := tally("diff", empty, rank1); code != 2 || !strings.Contains(errOut, "holds no dispatch event") || !strings.Contains(out, "GAP empty_capture") {
		t.Errorf("empty side A: got exit %d %q\n%s\nwant 2, \"holds no dispatch event\" and GAP empty_capture", code, errOut, out)
	}
	out := filepath.Join(t.TempDir(), "d.json")
	if code, stdout, errOut := tally("diff", "--json", "-o", out, rank0, rank1); code != 0 || stdout != "" {
		t.Fatalf("-o: got exit %d %s, want 0 and nothing on stdout", code, errOut)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), `"schema": "tally.diff/v1"`) {
		t.Fatalf("-o: got %.100s (%v), want the tally.diff/v1 JSON", b, err)
	}
}
