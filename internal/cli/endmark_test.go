package cli

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// selfManifest names the self-test traces' kernels: without it they have
// unresolved_name gaps.
const selfManifest = selfTrace + "manifest.json"

// Formats and files without an end marker never get the bare COMPLETE
// sentence, in text, JSON, HTML or inspect; --strict still passes on the
// note alone.
func TestNoEndMarkerVerdict(t *testing.T) {
	dir := t.TempDir()
	complete := readFile(t, selfTrace+"complete.kept")
	// An old kept trace: the header without end=1, no end record.
	old := strings.Replace(complete, " end=1", "", 1)
	old = old[:strings.LastIndex(strings.TrimSuffix(old, "\n"), "\n")+1]
	oldKept := writeFile(t, dir, "old.kept", old)
	rocCSV := "../../format/rocprof/testdata/decode_kernel_trace.csv"
	for _, c := range []struct{ name, path, unit, why string }{
		{"raw stderr", selfTrace + "raw.log", "line", "raw standard error has no end marker"},
		{"old kept trace", oldKept, "line", "written by a tally record without end records"},
		{"rocprof CSV", rocCSV, "row", "a rocprof CSV (rocprofv3 kernel_trace.csv, rocprof v1 results.csv) has no end marker"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := tally("report", "--strict", "--manifests", selfManifest, c.path)
			want := "COMPLETE up to the last " + c.unit + ": this input has no end marker, so a cut at a " + c.unit + " boundary cannot be detected"
			if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "note no_end_marker (1): ") || !strings.Contains(out, c.why) {
				t.Fatalf("got exit %d %s\n%s\nwant exit 0, %q and the note", code, errOut, out, want)
			}
			if strings.Contains(out, "COMPLETE: every input unit") {
				t.Fatalf("got the bare COMPLETE sentence for a file without an end marker, want the end-marker one:\n%s", out)
			}
			_, js, _ := tally("report", "--json", "--manifests", selfManifest, c.path)
			var doc struct {
				Accounting struct {
					Complete  bool
					EndMarker *bool  `json:"end_marker"`
					CutUnit   string `json:"cut_unit"`
				}
			}
			decodeJSON(t, js, &doc)
			if a := doc.Accounting; !a.Complete || a.EndMarker == nil || *a.EndMarker || a.CutUnit != c.unit {
				t.Fatalf("JSON accounting: got %+v, want complete, end_marker false, cut_unit %q", a, c.unit)
			}
			html := filepath.Join(t.TempDir(), "r.html")
			tallyOK(t, "report", "--html", html, "--manifests", selfManifest, c.path)
			if page := readFile(t, html); !strings.Contains(page, want) {
				t.Fatalf("the HTML verdict lacks %q", want)
			}
			if _, out, _ := tally("inspect", "--manifests", selfManifest, c.path); !strings.Contains(out, want) {
				t.Fatalf("inspect lacks %q:\n%s", want, out)
			}
		})
	}
	// The negative arm: a kept trace with its end record is plainly
	// complete, and its JSON has no end_marker field.
	code, out, _ := tally("report", "--strict", "--manifests", selfManifest, selfTrace+"complete.kept")
	if code != 0 || !strings.Contains(out, "COMPLETE: every input unit is accounted for and no gap was found") || strings.Contains(out, "no_end_marker") {
		t.Fatalf("a kept trace with its end record: got exit %d\n%s\nwant 0, COMPLETE and no no_end_marker", code, out)
	}
	if _, js, _ := tally("report", "--json", "--manifests", selfManifest, selfTrace+"complete.kept"); strings.Contains(js, "end_marker") {
		t.Fatal("got end_marker in the JSON of a file whose end is checked, want none")
	}

	// Many inputs: the merged verdict says it when any input has the note.
	_, out, _ = tally("report", "--manifests", selfManifest, selfTrace+"complete.kept", selfTrace+"raw.log")
	merged := out[strings.Index(out, "== merged over"):]
	if !strings.Contains(merged, "COMPLETE up to each input's last line: 1 input has no end marker") || !strings.Contains(merged, "note no_end_marker (1)") {
		t.Fatalf("merged verdict: got\n%s\nwant COMPLETE up to each input's last line and note no_end_marker (1)", merged)
	}
	_, out, _ = tally("report", "--manifests", selfManifest, selfTrace+"complete.kept", selfTrace+"complete.kept")
	if merged := out[strings.Index(out, "== merged over"):]; !strings.Contains(merged, "COMPLETE: every input unit") {
		t.Fatalf("merged verdict of inputs with end records: got\n%s\nwant \"COMPLETE: every input unit\"", merged)
	}
}

// A kept trace cut right after a run's end line (its end record lost) and a
// recording whose command was stopped are gaps: --strict fails on them.
func TestCutsAndInterruptionsFailStrict(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := tally("report", "--strict", "--manifests", selfManifest, selfTrace+"cutline.kept")
	if code != 1 || !strings.Contains(out, "GAP truncated_input (1): the kept trace has no end record") || !strings.Contains(out, "(line 332)") {
		t.Fatalf("kept trace without its end record: got exit %d\n%s\nwant 1 and GAP truncated_input at line 332", code, out)
	}
	complete := readFile(t, selfTrace+"complete.kept")
	stopped := writeFile(t, dir, "stopped.kept", strings.Replace(complete, "end exit=0", "end signal=SIGTERM forwarded=SIGTERM", 1))
	code, out, _ = tally("report", "--strict", "--manifests", selfManifest, stopped)
	if code != 1 || !strings.Contains(out, "GAP interrupted_recording (1)") || !strings.Contains(out, "killed by SIGTERM after tally record forwarded SIGTERM to it; it stopped between program runs") {
		t.Fatalf("stopped recording: got exit %d\n%s\nwant 1 and GAP interrupted_recording naming SIGTERM", code, out)
	}
}

// tally record of a command stopped by SIGINT or SIGTERM between two runs:
// tally exits 128+N, and the report is INCOMPLETE, naming the signal.
func TestRecordCLIStopped(t *testing.T) {
	fake := fakeHRX(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		kept := filepath.Join(t.TempDir(), "run.kept")
		cmd := tallyCommand("record", "-o", kept, "--strict", "--manifests", kernels, "--", fake, "-decode", "3", "-pause-at", "end phase=command-program")
		var stdout syncWriter
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if !waitFor(cmd, func() bool { return strings.Contains(stdout.String(), "fakehrx: paused") }) {
			t.Fatal("fakehrx: got no \"fakehrx: paused\", want it to pause")
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
			t.Fatalf("%v: got %v, want exit %d\n%s", sig, err, 128+int(sig), stderr.String())
		}
		name := map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]
		for _, want := range []string{"INCOMPLETE: 1 gap", "GAP interrupted_recording (1)", "killed by " + name, "between program runs"} {
			if !strings.Contains(stderr.String(), want) {
				t.Fatalf("%v: report lacks %q:\n%s", sig, want, stderr.String())
			}
		}
		if strings.Contains(stderr.String(), "device_fault") {
			t.Fatalf("%v: got a device fault between runs, want none:\n%s", sig, stderr.String())
		}
	}
}

// syncWriter is a buffer a child's output can be polled from while the
// command's copying goroutine writes to it.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
