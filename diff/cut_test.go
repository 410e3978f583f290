package diff

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/internal/gen/hrxgen"
)

// writeHRX writes a generated hrx trace to dir/name.
func writeHRX(t *testing.T, dir, name string, opt hrxgen.Options) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := hrxgen.Write(&b, opt); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A run cut short (the process killed inside it) or failed holds partial
// sums: it is left out of the samples and counted, never a short sample.
// Side A's trace has 6 complete decode runs, a failed one and a cut last
// one; side B's has 6 complete runs. Every complete run dispatches the same
// commands, so with the two runs left out the dispatch counts are constant
// and equal on both sides: no change. Were the cut run a sample, A's count
// would not be constant and its run count would be 8.
func TestCutRunsLeftOut(t *testing.T) {
	dir := t.TempDir()
	a := writeHRX(t, dir, "a.kept", hrxgen.Options{Seed: 4, Decode: 7, FailRun: 3, End: hrxgen.EndCut})
	b := writeHRX(t, dir, "b.kept", hrxgen.Options{Seed: 5, Decode: 6})
	r, err := Run([]string{a}, []string{b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := r.program(t, "p41")
	if p.RunsA != 6 || p.RunsB != 6 || p.LeftOutA != 2 || p.LeftOutB != 0 {
		t.Fatalf("runs A %d (left out %d), B %d (left out %d); want 6 (2), 6 (0)", p.RunsA, p.LeftOutA, p.RunsB, p.LeftOutB)
	}
	if r.A.LeftOut() != 2 || r.B.LeftOut() != 0 {
		t.Fatalf("left out per side: got A %d, B %d; want 2 and 0", r.A.LeftOut(), r.B.LeftOut())
	}
	if d := &p.Dispatches; !d.Exact || d.Changed() || d.A.Lo != d.A.Hi {
		t.Fatalf("dispatches per run: got exact %v, changed %v, A %+v; want exact, unchanged, a point interval: a partial run is not a sample", d.Exact, d.Changed(), d.A)
	}
	if r.A.Complete() {
		t.Fatal("got the side with a cut run complete, want it incomplete")
	}
	out := textOf(t, r)
	for _, want := range []string{"A: 2 runs cut short (failed or never ended) left out of the samples",
		"program p41: A 6 runs, B 6 runs; left out, cut short: A 2 runs, B 0 runs"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	var doc JSONDiff
	var js bytes.Buffer
	if err := r.WriteJSON(&js, -1); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Sides[0].RunsLeftOut != 2 || doc.Sides[1].RunsLeftOut != 0 || doc.Programs[0].LeftOutA != 2 {
		t.Fatalf("JSON left out: got sides %d/%d, program %+v; want 2/0 and the program's LeftOutA 2", doc.Sides[0].RunsLeftOut, doc.Sides[1].RunsLeftOut, doc.Programs[0])
	}
}

// A side may be a directory of ranks: each input is a sample source with
// its own accounting, and files no reader knows are listed as skipped.
func TestSideDirectory(t *testing.T) {
	dir := t.TempDir()
	for i, seed := range []int64{1, 2, 3} {
		writeHRX(t, dir, filepath.Join("a", "rank"+string(rune('0'+i)), "trace.kept"), hrxgen.Options{Seed: seed, Decode: 3})
	}
	os.WriteFile(filepath.Join(dir, "a", "README.md"), []byte("how the run was made\n"), 0o644)
	b := writeHRX(t, dir, "b.kept", hrxgen.Options{Seed: 9, Decode: 4})
	r, err := Run([]string{filepath.Join(dir, "a")}, []string{b}, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.A.Captures) != 3 || len(r.B.Captures) != 1 {
		t.Fatalf("inputs: got A %d, B %d; want 3 and 1", len(r.A.Captures), len(r.B.Captures))
	}
	if len(r.A.Skipped) != 1 || !strings.HasSuffix(r.A.Skipped[0].Path, "README.md") {
		t.Fatalf("skipped: got %+v, want only README.md", r.A.Skipped)
	}
	if p := r.program(t, "p41"); p.RunsA != 9 || p.RunsB != 4 {
		t.Fatalf("runs A %d, B %d; want 3 inputs × 3 and 4", p.RunsA, p.RunsB)
	}
	// In order of the expanded paths, whatever order they were read in.
	for i, c := range r.A.Captures {
		if !strings.Contains(c.Source.Path, "rank"+string(rune('0'+i))) {
			t.Errorf("input %d: got %s, want rank%d", i, c.Source.Path, i)
		}
	}
	if out := textOf(t, r); !strings.Contains(out, "A: skipped "+filepath.Join(dir, "a", "README.md")+": no reader recognises it") {
		t.Errorf("got no line for the skipped file, want \"A: skipped …README.md: no reader recognises it\" in:\n%s", out)
	}

	// An empty directory is an error naming it; so is an input that fails,
	// even among good ones.
	empty := t.TempDir()
	if _, err := Run([]string{empty}, []string{b}, Options{}); err == nil || !strings.Contains(err.Error(), "side A: no input found in "+empty) {
		t.Errorf("empty side: got %v, want an error naming %q", err, "side A: no input found in "+empty)
	}
	bad := filepath.Join(dir, "a", "rank9", "trace.kept")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte("hrx debug serial: begin phase=command-program main_commands=2\n"), 0o000)
	if os.Getuid() != 0 {
		if _, err := Run([]string{filepath.Join(dir, "a")}, []string{b}, Options{}); err == nil || !strings.Contains(err.Error(), "rank9") {
			t.Errorf("unreadable input among good ones: got %v, want an error naming rank9", err)
		}
	}
}
