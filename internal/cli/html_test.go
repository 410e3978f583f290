package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReportHTML(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	if stdout := tallyOK(t, "report", "--manifests", kernels, "--html", out, example); !strings.Contains(stdout, "INCOMPLETE") {
		t.Fatal("--html: got no text report on stdout, want it too")
	}
	page := readFile(t, out)
	containsAll(t, "page", page, `data-verdict="incomplete"`, "unfinished_dispatch", "loom_libs:ggml_mul_mat_f32_f32_wmma", "tally report --manifests ../../examples/kernels --html")
	// Failed writes are errors, and leave nothing behind.
	if code, _, errOut := tally("report", "--html", "/dev/full", example); code != 2 || !strings.Contains(errOut, "/dev/full") {
		t.Fatalf("/dev/full: got exit %d %s, want 2 and /dev/full named", code, errOut)
	}
	dir := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(dir, 0o555)
	if os.Getuid() != 0 { // root writes anywhere
		if code, _, errOut := tally("report", "--html", filepath.Join(dir, "r.html"), example); code != 2 || !strings.Contains(errOut, "cannot create") {
			t.Fatalf("read-only dir: got exit %d %s, want 2 and \"cannot create\"", code, errOut)
		}
	}
	if code, _, errOut := tally("report", "--html", filepath.Join(t.TempDir(), "no", "such", "r.html"), example); code != 2 || !strings.Contains(errOut, "cannot create") {
		t.Fatalf("missing dir: got exit %d %s, want 2 and \"cannot create\"", code, errOut)
	}
}

func TestProgressFlag(t *testing.T) {
	if code, _, errOut := tally("report", "--progress", "sometimes", example); code != 2 || !strings.Contains(errOut, "give never, auto or always") {
		t.Fatalf("bad --progress: got exit %d %s, want 2 and \"give never, auto or always\"", code, errOut)
	}
	// auto: standard error is not a terminal here, so no bar.
	progressDelay = time.Nanosecond
	defer func() { progressDelay = 0 }()
	code, _, errOut := tally("report", example)
	if code != 0 || strings.Contains(errOut, "tally: reading") {
		t.Fatalf("auto on a non-terminal: got exit %d %q, want 0 and no bar", code, errOut)
	}
	if code, _, errOut := tally("inspect", "--progress=never", example); code != 0 || errOut != "" {
		t.Fatalf("never: got exit %d %q, want 0 and no stderr", code, errOut)
	}
	// always: the bar is drawn (here at once) and cleared.
	code, _, errOut = tally("report", "--progress=always", selfTrace+"hta__cuda_event_sync.json.gz")
	if code != 0 || !strings.Contains(errOut, "tally: reading hta__cuda_event_sync.json.gz [") || !strings.HasSuffix(errOut, "\r\033[K") {
		t.Fatalf("always: got exit %d %q, want 0 and the bar, then cleared", code, errOut)
	}
}

// TestReportHTMLMany: several inputs (or a directory) make one page with a
// section per input; every write is checked.
func TestReportHTMLMany(t *testing.T) {
	dir := runOfRanks(t)
	out := filepath.Join(t.TempDir(), "run.html")
	code, stdout, errOut := tally("report", "--html", out, dir, filepath.Join(dir, "missing.json"))
	if code != 0 || !strings.Contains(stdout, "3 inputs read, 2 used, 1 skipped (1 could not be read)") {
		t.Fatalf("got exit %d: %s; want 0 and \"3 inputs read, 2 used, 1 skipped (1 could not be read)\"", code, errOut)
	}
	page := readFile(t, out)
	containsAll(t, "page", page, `id="merged"`, `id="input-0" data-input="0" data-rank="0"`, `data-rank="1"`, `data-verdict="failed"`,
		`data-kind="failed_input"`, `data-kind="incomplete_input"`, `class="tinput" data-input="1"`, "input 3/3")
	if code, _, _ := tally("report", "--strict", "--html", out, dir); code != 1 {
		t.Errorf("--strict with --html on incomplete ranks: got exit %d, want 1", code)
	}
	for _, bad := range []string{"/dev/full", filepath.Join(dir, "no", "such", "r.html")} {
		if code, _, errOut := tally("report", "--html", bad, rank0, rank1); code != 2 || !strings.Contains(errOut, bad) {
			t.Errorf("unwritable %s: got exit %d %s, want 2 and the path named", bad, code, errOut)
		}
	}
}

// TestReportHTMLStdout: --html - puts the page on standard output in place
// of the text report, which then goes only to -o FILE.
func TestReportHTMLStdout(t *testing.T) {
	code, stdout, errOut := tally("report", "--manifests", kernels, "--html", "-", example)
	if code != 0 || !strings.HasPrefix(stdout, "<!DOCTYPE html>") || strings.Contains(stdout, "\nINCOMPLETE") || !strings.HasSuffix(stdout, "</html>\n") {
		t.Fatalf("got exit %d %s: stdout starts %.40q; want 0 and one whole HTML page, no text report", code, errOut, stdout)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Fatal("--html -: got a file named -, want none")
	}
	txt := filepath.Join(t.TempDir(), "r.txt")
	code, stdout, _ = tally("report", "--html", "-", "-o", txt, rank0, rank1)
	text := readFile(t, txt)
	if code != 0 || !strings.Contains(stdout, `id="merged"`) || !strings.Contains(text, "== merged over 2 inputs") {
		t.Fatalf("--html - -o FILE: got exit %d, text %.80q; want 0, the page on stdout, the merged text in FILE", code, text)
	}
	if code, stdout, errOut := tally("report", "--html", "-", "-o", "-", example); code != 2 || stdout != "" || !strings.Contains(errOut, "both write to standard output") {
		t.Fatalf("--html - -o -: got exit %d %q, want 2 and \"both write to standard output\"", code, errOut)
	}
}

// TestProgressMany: a many-input report and a timeline draw one bar for
// the whole set under always, none under auto off a terminal or never.
func TestProgressMany(t *testing.T) {
	progressDelay = time.Nanosecond
	defer func() { progressDelay = 0 }()
	tl := filepath.Join(t.TempDir(), "t.json")
	for _, args := range [][]string{{"report", rank0, rank1}, {"timeline", rank0, rank1, "-o", tl}} {
		code, _, errOut := tally(append([]string{args[0], "--progress=always"}, args[1:]...)...)
		// The bar's last frame is cleared before anything else is written.
		i := strings.LastIndex(errOut, "\r\033[K")
		if code != 0 || i < 0 || !strings.Contains(errOut[:i], "tally: reading 2 inputs [") || !strings.Contains(errOut[:i], "; 2 of 2 inputs done") {
			t.Errorf("%s --progress=always: got exit %d %q, want 0 and a bar over 2 of 2 inputs, then cleared", args[0], code, errOut)
			continue
		}
		want := ""
		if args[0] == "timeline" {
			want = "tally timeline: "
		}
		if rest := errOut[i+len("\r\033[K"):]; !strings.HasPrefix(rest, want) || strings.Contains(rest, "tally: reading") || (want == "" && rest != "") {
			t.Errorf("%s: after the bar got %q, want it to begin %q, with no bar", args[0], rest, want)
		}
		for _, mode := range []string{"--progress=auto", "--progress=never"} {
			if code, _, errOut := tally(append([]string{args[0], mode}, args[1:]...)...); code != 0 || strings.Contains(errOut, "tally: reading") {
				t.Errorf("%s %s on a non-terminal: got exit %d, %q; want 0 and no bar", args[0], mode, code, errOut)
			}
		}
	}
}
