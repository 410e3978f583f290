package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "d.csv")
	if code, _, errOut := tally("export", "--to", "csv", example, "--manifests", kernels, "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, p := range []string{out, out + ".gaps.csv"} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if code, _, _ := tally("export", "--strict", "--to", "pprof", "--manifests", kernels, example, "-o", filepath.Join(dir, "p")); code != 1 {
		t.Errorf("--strict on an incomplete capture: exit %d, want 1", code)
	}
	code, stdout, _ := tally("export", "--to", "kineto", "--manifests", kernels, example, "-o", "-")
	if code != 0 || !strings.Contains(stdout, `"traceEvents"`) {
		t.Errorf("kineto to stdout: exit %d", code)
	}
	if code, _, errOut := tally("export", "--to", "csv", example); code != 2 || !strings.Contains(errOut, "-o") {
		t.Errorf("no -o: exit %d %s", code, errOut)
	}
	if code, _, errOut := tally("export", example, "-o", out); code != 2 || !strings.Contains(errOut, "--to") {
		t.Errorf("no --to: exit %d %s", code, errOut)
	}
	if code, _, errOut := tally("export", "--to", "csv", "/dev/full", "-o", "/dev/full"); code != 2 || !strings.Contains(errOut, "/dev/full") {
		t.Errorf("/dev/full: exit %d %s", code, errOut)
	}
}
