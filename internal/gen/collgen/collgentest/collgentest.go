// Package collgentest is the test fixture of a generated distributed job
// (collgen): its ranks written to a temporary directory, and that
// directory read as `tally report DIR` reads it, with the collectives
// analysed. The tests of report, html, export, timeline and the command
// all start from this one planted job.
package collgentest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/collectives"
	_ "github.com/tallyprof/tally/format/kineto" // the ranks are Kineto traces
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/internal/gen/collgen"
)

// Dir writes cfg's ranks into a fresh temporary directory and returns it
// with the ranks' paths, in rank order.
func Dir(t testing.TB, cfg collgen.Config) (dir string, paths []string) {
	t.Helper()
	dir = t.TempDir()
	paths, err := collgen.WriteDir(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dir, paths
}

// Job writes collgen.Default()'s job (8 ranks, rank 5 slow, rank 2's
// instance 3 missing) with Dir, reads it with read and returns its config
// too.
func Job(t testing.TB) (collgen.Config, *analysis.Run, *collectives.Result) {
	t.Helper()
	cfg := collgen.Default()
	dir, _ := Dir(t, cfg)
	run, res := read(t, dir)
	return cfg, run, res
}

// Rank writes rank r's trace alone to dir/name and returns its path.
func Rank(t testing.TB, cfg collgen.Config, r int, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	err = collgen.Write(f, cfg, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// read reads dir as `tally report DIR` does (the time breakdown on, each
// input with its collectives sink) and analyses the collectives.
func read(t testing.TB, dir string) (*analysis.Run, *collectives.Result) {
	t.Helper()
	col := collectives.NewCollector()
	run := inputs.Expand([]string{dir}, "").Read(inputs.Options{Workers: 2, Breakdown: &analysis.BreakdownOptions{},
		Sink: func(i int, _ string) capture.Sink { return col.Sink(i) }})
	for _, in := range run.Inputs {
		if in.Err != nil {
			t.Fatalf("%s: %v", in.Path, in.Err)
		}
	}
	return run, collectives.Analyze(run, col)
}
