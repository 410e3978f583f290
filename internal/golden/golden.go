// Package golden compares a test's output with a file kept under testdata/,
// as benchstat's and pprof's tests do: `go test ./PKG -update` rewrites the
// files, and a mismatch prints a unified diff and writes the output beside
// the golden file as NAME.got.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/ with the current output")

// Update reports whether -update was given.
func Update() bool { return *update }

// Check compares got with the golden file at path (rewriting it under
// -update). On a mismatch it writes path+".got" and fails with a unified
// diff from the golden file to the output.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(path + ".got")
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		os.Remove(path + ".got")
		return
	}
	gotPath := path + ".got"
	if err := os.WriteFile(gotPath, got, 0o644); err != nil {
		t.Logf("could not write %s: %v", gotPath, err)
	}
	t.Fatalf("output differs from %s (go test -update if the change is intended):\n%s", path, Diff(path, gotPath, want, got))
}
