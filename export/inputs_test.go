package export

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/internal/gen/hrxgen"
)

// rankDir is a run directory: two ranks' hrx traces and a README that no
// reader recognises.
func rankDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i, seed := range []int64{1, 2} {
		var b bytes.Buffer
		if _, err := hrxgen.Write(&b, hrxgen.Options{Seed: seed, Decode: 2}); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "rank"+string(rune('0'+i)), "trace.kept")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("how this run was made\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A directory is expanded as tally report expands it: every trace in it is
// an input, and the file no reader knows is listed in the accounting of
// every output format.
func TestDirectoryInput(t *testing.T) {
	dir := rankDir(t)
	readme := filepath.Join(dir, "README.md")
	for _, to := range Names {
		t.Run(to, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			if to == Kineto {
				out += ".json" // two inputs: a directory of that name
			}
			res := run(t, []string{dir}, Options{To: to, Out: out, Workers: 2})
			if len(res.Run.Inputs) != 2 || len(res.Written) != 2 || len(res.Run.Skipped) != 1 || res.Run.Skipped[0].Path != readme {
				t.Fatalf("got %d inputs (%d written), skipped %+v; want 2, skipped %s", len(res.Run.Inputs), len(res.Written), res.Run.Skipped, readme)
			}
			for i, in := range res.Run.Inputs {
				if in.Index != i || !strings.Contains(in.Path, "rank"+string(rune('0'+i))) || res.Written[i].Dispatches == 0 {
					t.Errorf("input %d: got %+v, want index %d, rank%d in its path, some dispatches", i, in, i, i)
				}
			}
			var where string
			switch to {
			case CSV, JSONL:
				where = out + ".gaps." + to
			case Parquet, Kineto:
				where = filepath.Join(out, datasetMarker)
			case PProf:
				p := parseProfile(t, out)
				if c := strings.Join(p.Comments, "\n"); !strings.Contains(c, "skipped file (not read): "+readme) {
					t.Errorf("got pprof comments without the skipped file, want %q in:\n%s", "skipped file (not read): "+readme, c)
				}
				return
			}
			if b := read(t, where); !bytes.Contains(b, []byte(readme)) {
				t.Errorf("%s: got no skipped file, want %s listed in:\n%s", where, readme, b)
			}
		})
	}
}

// Inputs read in parallel give the same output, byte for byte, as inputs
// read one at a time, whatever order the readers finish in.
func TestParallelSameAsSequential(t *testing.T) {
	src := t.TempDir()
	var paths []string
	for i := range 6 {
		paths = append(paths, writeSynth(t, src, "in"+string(rune('a'+i)), synthSpec{N: 300 * (6 - i), Kernels: 5, PerRun: 50, Untimed: i%2 == 0}))
	}
	for _, c := range []struct {
		to        string
		perKernel bool
	}{{Parquet, false}, {PProf, false}, {Kineto, false}, {CSV, true}, {CSV, false}} {
		var outs [2]map[string][]byte
		for j, workers := range []int{1, 4} {
			out := filepath.Join(t.TempDir(), "out")
			run(t, paths, Options{To: c.to, Out: out, Format: synthFormat, Workers: workers, PerKernel: c.perKernel})
			outs[j] = map[string][]byte{}
			filepath.Walk(filepath.Dir(out), func(p string, info os.FileInfo, err error) error {
				if err == nil && info.Mode().IsRegular() {
					b, _ := os.ReadFile(p)
					outs[j][strings.TrimPrefix(p, filepath.Dir(out))] = sameID(bytes.ReplaceAll(b, []byte(filepath.Dir(out)), nil))
				}
				return nil
			})
		}
		if len(outs[0]) == 0 || len(outs[0]) != len(outs[1]) {
			t.Fatalf("%s: got %d files sequential, %d parallel; want the same, not 0", c.to, len(outs[0]), len(outs[1]))
		}
		for name, b := range outs[0] {
			if !bytes.Equal(b, outs[1][name]) {
				t.Errorf("%s (per kernel %v): got %s differing between 1 and 4 workers, want the same bytes", c.to, c.perKernel, name)
			}
		}
	}
}

// One failing input among many read in parallel fails the export, naming
// it; nothing appears under the final name and no temporary is left.
func TestFailedInputAmongParallel(t *testing.T) {
	src := t.TempDir()
	var paths []string
	for i := range 5 {
		paths = append(paths, writeSynth(t, src, "in"+string(rune('a'+i)), synthSpec{N: 500, Kernels: 3}))
	}
	bad := filepath.Join(src, "in-bad")
	os.WriteFile(bad, []byte(`{"magic": "not a synth spec"}`), 0o644)
	paths = append(paths[:2], append([]string{bad}, paths[2:]...)...)
	for _, to := range Names {
		t.Run(to, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			_, err := Run(paths, Options{To: to, Out: out, Format: synthFormat, Workers: 4})
			if err == nil || !strings.Contains(err.Error(), "in-bad") {
				t.Fatalf("got %v, want an error naming in-bad", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("got %v left behind, want an empty directory", entries)
			}
		})
	}
	// An argument directory holding nothing a reader knows is an error.
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("nothing here\n"), 0o644)
	if _, err := Run([]string{empty}, Options{To: CSV, Out: filepath.Join(t.TempDir(), "x.csv")}); err == nil || !strings.Contains(err.Error(), "no input found in "+empty) {
		t.Errorf("empty directory: got %v, want an error saying no input found in %s", err, empty)
	}
}

// A run directory a directory reader claims (swimlane) is one input, as in
// tally report; before inputs were expanded it could not be exported.
func TestRunDirectoryIsOneInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.csv")
	res := run(t, []string{"../format/swimlane/testdata/seed"}, Options{To: CSV, Out: out})
	if len(res.Run.Inputs) != 1 || res.Run.Inputs[0].Capture.Source.Format != "swimlane" || res.Written[0].Dispatches == 0 || len(res.Run.Skipped) != 0 {
		t.Fatalf("got %d inputs, skipped %v; want the swimlane run, nothing skipped", len(res.Run.Inputs), res.Run.Skipped)
	}
}

// One trace and a README: kineto writes one file, and says in it which
// file it passed over.
func TestKinetoOneInputListsSkipped(t *testing.T) {
	dir := rankDir(t)
	os.RemoveAll(filepath.Join(dir, "rank1"))
	out := filepath.Join(t.TempDir(), "out.json")
	run(t, []string{dir}, Options{To: Kineto, Out: out})
	if b := read(t, out); !bytes.Contains(b, []byte("skipped file (not read): "+filepath.Join(dir, "README.md"))) {
		t.Errorf("got a trace that does not name the skipped file, want README.md named:\n%.600s", b)
	}
}

// -o naming the directory that holds the inputs (-o .) is refused for what
// it is — a directory the export cannot write — not reported as "no input
// found" (the fourth sweep: every input was passed over as the output).
func TestOutputIsInputsDirectory(t *testing.T) {
	dir := rankDir(t)
	in := filepath.Join(dir, "rank0", "trace.kept")
	for _, to := range Names {
		_, err := Run([]string{in}, Options{To: to, Out: dir, Workers: 1})
		if err == nil || strings.Contains(err.Error(), "no input found") {
			t.Errorf("--to %s -o the inputs' directory: got error %v, want the directory refused as the output", to, err)
		}
	}
}
