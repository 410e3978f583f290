package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReportHTML(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	code, stdout, errOut := tally("report", "--manifests", kernels, "--html", out, example)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "INCOMPLETE") {
		t.Fatal("--html dropped the text report")
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`data-verdict="incomplete"`, "unfinished_dispatch", "loom_libs:ggml_mul_mat_f32_f32_wmma", "tally report --manifests ../../examples/kernels --html"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Failed writes are errors, and leave nothing behind.
	if code, _, errOut := tally("report", "--html", "/dev/full", example); code != 2 || !strings.Contains(errOut, "/dev/full") {
		t.Fatalf("/dev/full: exit %d %s", code, errOut)
	}
	dir := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(dir, 0o555)
	if os.Getuid() != 0 { // root writes anywhere
		if code, _, errOut := tally("report", "--html", filepath.Join(dir, "r.html"), example); code != 2 || !strings.Contains(errOut, "cannot create") {
			t.Fatalf("read-only dir: exit %d %s", code, errOut)
		}
	}
	if code, _, errOut := tally("report", "--html", filepath.Join(t.TempDir(), "no", "such", "r.html"), example); code != 2 || !strings.Contains(errOut, "cannot create") {
		t.Fatalf("missing dir: exit %d %s", code, errOut)
	}
}

func TestProgressFlag(t *testing.T) {
	if code, _, errOut := tally("report", "--progress", "sometimes", example); code != 2 || !strings.Contains(errOut, "give never, auto or always") {
		t.Fatalf("bad --progress: exit %d %s", code, errOut)
	}
	// auto: standard error is not a terminal here, so no bar.
	progressDelay = time.Nanosecond
	defer func() { progressDelay = 0 }()
	code, _, errOut := tally("report", example)
	if code != 0 || strings.Contains(errOut, "tally: reading") {
		t.Fatalf("auto drew on a non-terminal: %q", errOut)
	}
	if code, _, errOut := tally("inspect", "--progress=never", example); code != 0 || errOut != "" {
		t.Fatalf("never: %d %q", code, errOut)
	}
	// always: the bar is drawn (here at once) and cleared.
	code, _, errOut = tally("report", "--progress=always", selfTrace+"hta__cuda_event_sync.json.gz")
	if code != 0 || !strings.Contains(errOut, "tally: reading hta__cuda_event_sync.json.gz [") || !strings.HasSuffix(errOut, "\r\033[K") {
		t.Fatalf("always: exit %d %q", code, errOut)
	}
}
