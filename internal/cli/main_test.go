package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

const (
	example   = "../../examples/decode-fault.kept"
	kernels   = "../../examples/kernels"
	selfTrace = "../../selftest/traces/"
)

func tally(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestReportExample(t *testing.T) {
	out := tallyOK(t, "report", "--manifests", kernels, example)
	first := strings.SplitN(out, "\n", 2)[0]
	if !strings.HasPrefix(first, "times: ns on the recording process's monotonic clock, taken when each line arrived") {
		t.Fatalf("first line: got %q, want it to state the clock", first)
	}
	containsAll(t, "report", out, "program p41:", "program p96:", "loom_libs:ggml_mul_mat_f32_f32_wmma", "GAP unfinished_dispatch", "GAP device_fault", "p41:#14896872061627543929", "INCOMPLETE")
	// Flags may follow the file.
	code2, out2, _ := tally("report", example, "--manifests", kernels)
	if code2 != 0 || out2 != out {
		t.Fatalf("flags after the file: got exit %d or another report, want exit 0 and the same report", code2)
	}
}

func TestReportStrictAndExitCodes(t *testing.T) {
	if code, _, _ := tally("report", "--strict", "--manifests", kernels, example); code != 1 {
		t.Fatalf("--strict on an incomplete capture: exit %d, want 1", code)
	}
	tallyOK(t, "report", "--strict", "--manifests", kernels, selfTrace+"complete.kept")
	// A log of another program is no format: an error listing the
	// formats, never an empty hrx capture advising hrx's debug switch.
	code, out, errOut := tally("report", selfTrace+"nontrace.log")
	if code != 2 || out != "" || !strings.Contains(errOut, "nontrace.log: no reader recognises it") ||
		!strings.Contains(errOut, "hrx-serial, iree-jsonl") || !strings.Contains(errOut, "give --format NAME") || strings.Contains(errOut, "GGML_HRX") {
		t.Fatalf("not a trace: got exit %d\n%s%s, want exit 2 and no reader", code, out, errOut)
	}
	// The same lines kept by tally record are a kept trace whose command
	// printed no trace line.
	code, out, _ = tally("report", selfTrace+"nontrace.kept")
	if code != 2 || !strings.Contains(out, "NO DISPATCH RECORDED: a kept trace whose command \"./llama-cli -m q.gguf -p hi\" printed no 'hrx debug serial:' trace line") || strings.Contains(out, "tally record") {
		t.Fatalf("kept, no trace line: got exit %d\n%s\nwant 2 and NO DISPATCH RECORDED naming the command, no tally record advice", code, out)
	}
	code, out, _ = tally("report", selfTrace+"empty.log")
	if code != 2 || !strings.Contains(out, "the file is empty (0 bytes)") {
		t.Fatalf("empty file: got exit %d\n%s\nwant 2 and \"the file is empty (0 bytes)\"", code, out)
	}
	if code, _, errOut := tally("report", "no/such/file"); code != 2 || !strings.Contains(errOut, "no/such/file") {
		t.Fatalf("missing file: got exit %d %s, want 2 and the path named", code, errOut)
	}
	if code, _, errOut := tally("report", "--format", "nope", example); code != 2 || !strings.Contains(errOut, "no reader of that name: give hrx-serial, ") {
		t.Fatalf("unknown format: got exit %d %s, want 2 and the readers listed", code, errOut)
	}
	if code, _, _ := tally("report"); code != 2 {
		t.Fatalf("no file: got exit %d, want 2", code)
	}
	if code, _, _ := tally("nonsense"); code != 2 {
		t.Fatalf("unknown command: got exit %d, want 2", code)
	}
}

func TestReportJSON(t *testing.T) {
	out := tallyOK(t, "report", "--json", "--manifests", kernels, example)
	var doc struct {
		Schema string `json:"schema"`
		Inputs []struct {
			Path, Format string
		} `json:"inputs"`
		Clock struct {
			Unit  string `json:"unit"`
			Timed bool   `json:"timed"`
		} `json:"clock"`
		Programs []struct {
			Name      string `json:"name"`
			Instances int64  `json:"instances"`
			Kernels   []struct {
				Name       string   `json:"name"`
				Dispatches int64    `json:"dispatches"`
				TotalNS    *int64   `json:"total_ns"`
				Share      *float64 `json:"share"`
			} `json:"kernels"`
		} `json:"programs"`
		Accounting struct {
			Complete bool `json:"complete"`
			Gaps     []struct {
				Kind  string            `json:"kind"`
				Count int64             `json:"count"`
				Items []json.RawMessage `json:"items"`
			} `json:"gaps"`
		} `json:"accounting"`
	}
	decodeJSON(t, out, &doc)
	if doc.Schema != "tally.report/v1" || len(doc.Inputs) != 1 || doc.Inputs[0].Format != "hrx-serial" || doc.Clock.Unit != "ns" {
		t.Fatalf("header: got %+v, want tally.report/v1, one hrx-serial input, clock in ns", doc)
	}
	if doc.Accounting.Complete {
		t.Fatal("JSON: got complete for a faulted capture, want incomplete")
	}
	kinds := map[string]bool{}
	for _, g := range doc.Accounting.Gaps {
		kinds[g.Kind] = true
		if g.Items == nil {
			t.Fatalf("gap %s: got null items, want a list", g.Kind)
		}
	}
	for _, k := range []string{"unfinished_dispatch", "device_fault", "unresolved_name", "incomplete_program"} {
		if !kinds[k] {
			t.Errorf("JSON: got no gap %s, want it", k)
		}
	}
	var shares float64
	for _, p := range doc.Programs {
		if p.Name != "p41" {
			continue
		}
		for _, k := range p.Kernels {
			if k.TotalNS == nil || k.Share == nil {
				t.Fatalf("timed kernel: got %+v, want total_ns and share set", k)
			}
			shares += *k.Share
		}
	}
	if shares < 0.999 || shares > 1.001 {
		t.Fatalf("shares within p41: got sum %f, want 1", shares)
	}
	// An untimed trace has null times, never zeros.
	_, out, _ = tally("report", "--json", selfTrace+"raw.log")
	if !strings.Contains(out, `"total_ns": null`) || strings.Contains(out, `"total_ns": 0`) {
		t.Fatal("untimed trace: times must be null")
	}
}

func TestOutputFileChecked(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.txt")
	code, stdout, _ := tally("report", "-o", path, "--manifests", kernels, example)
	data, err := os.ReadFile(path)
	if code != 0 || err != nil || stdout != "" {
		t.Fatalf("got exit %d, %v, stdout %q; want 0, the file written, nothing on stdout", code, err, stdout)
	}
	_, direct, _ := tally("report", "--manifests", kernels, example)
	if string(data) != direct {
		t.Fatal("-o: got something else than standard output, want the same report")
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		code, _, errOut := tally("report", "-o", "/dev/full", example)
		if code != 2 || !strings.Contains(errOut, "no space left on device") {
			t.Fatalf("/dev/full: got exit %d %q, want 2 and \"no space left on device\"", code, errOut)
		}
	}
	code, _, errOut := tally("report", "-o", filepath.Join(dir, "missing", "r.txt"), example)
	if code != 2 || !strings.Contains(errOut, "missing") {
		t.Fatalf("unwritable path: got exit %d %q, want 2 and the path named", code, errOut)
	}
	// A failing standard output is an error too.
	var errBuf bytes.Buffer
	if code := run([]string{"report", example}, failingWriter{}, &errBuf); code != 2 || !strings.Contains(errBuf.String(), "standard output") {
		t.Fatalf("failing stdout: got exit %d %q, want 2 and \"standard output\" named", code, errBuf.String())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestInspect(t *testing.T) {
	code, out, _ := tally("inspect", "--manifests", kernels, example)
	if code != 0 || !strings.Contains(out, "format: hrx-serial") || !strings.Contains(out, "trace lines:") || !strings.Contains(out, "INCOMPLETE") {
		t.Fatalf("inspect: got exit %d\n%s\nwant 0, the format, trace lines and INCOMPLETE", code, out)
	}
	code, out, _ = tally("inspect", "--json", example)
	var doc map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc["schema"] != "tally.inspect/v1" {
		t.Fatalf("inspect --json: got exit %d %s, want 0 and tally.inspect/v1 JSON", code, out)
	}
	if code, _, _ := tally("inspect", "--strict", example); code != 1 {
		t.Fatalf("inspect --strict on an incomplete capture: got exit %d, want 1", code)
	}
}

func TestSelftestAndFormats(t *testing.T) {
	if code, out, _ := tally("selftest"); code != 0 || !strings.Contains(out, "all 10 checks passed") {
		t.Fatalf("selftest: got exit %d %s, want 0 and \"all 10 checks passed\"", code, out)
	}
	code, out, _ := tally("formats")
	if code != 0 || !strings.Contains(out, "hrx-serial") {
		t.Fatalf("formats: got exit %d %s, want 0 and hrx-serial listed", code, out)
	}
}

// tallyCommand runs tally as a process: this test binary, which is tally
// when TALLY_TEST_MAIN=1 (TestMain), so no second binary is linked.
func tallyCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TALLY_TEST_MAIN=1")
	return cmd
}

// fake is the fake hrx program, built once per test process (removed by
// TestMain).
var fake struct {
	once      sync.Once
	dir, path string
	err       error
}

// fakeHRX builds the fake hrx program the record tests run, once.
func fakeHRX(t *testing.T) string {
	t.Helper()
	fake.once.Do(func() {
		if fake.dir, fake.err = os.MkdirTemp("", "tally-test-fakehrx"); fake.err != nil {
			return
		}
		fake.path = filepath.Join(fake.dir, "fakehrx")
		if out, err := exec.Command("go", "build", "-o", fake.path, "../../record/testdata/fakehrx").CombinedOutput(); err != nil {
			fake.err = fmt.Errorf("go build ../../record/testdata/fakehrx: %v\n%s", err, out)
		}
	})
	if fake.err != nil {
		t.Fatal(fake.err)
	}
	return fake.path
}

func TestRecordCLI(t *testing.T) {
	fake := fakeHRX(t)
	dir := t.TempDir()
	kept := filepath.Join(dir, "run.kept")

	// The command's status is tally's; the report names the unfinished dispatch.
	cmd := tallyCommand("record", "-o", kept, "--manifests", kernels, "--", fake, "-decode", "2", "-end", "cut")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 137 {
		t.Fatalf("exit: got %v\n%s\nwant exit status 137", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "GAP unfinished_dispatch") || !strings.Contains(stdout.String(), "fakehrx: token 1") {
		t.Fatalf("got stdout %q\nstderr %s\nwant the command's output and GAP unfinished_dispatch", stdout.String(), stderr.String())
	}

	// A clean run passes; --strict only bites an incomplete trace.
	cmd = tallyCommand("record", "-o", kept, "--strict", "--manifests", kernels, "--", fake, "-decode", "1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clean run: got error %v\n%s\nwant none", err, out)
	}

	// A command that prints nothing and fails: its status, the kept
	// lines, and no advice to record with tally record (issue 20).
	if f, err := exec.LookPath("false"); err == nil {
		cmd = tallyCommand("record", "-o", kept, "--", f)
		out, err := cmd.CombinedOutput()
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "ended with status 1; kept 2 lines (0 trace lines) in ") ||
			!strings.Contains(string(out), "NO DISPATCH RECORDED: a kept trace whose command") || strings.Contains(strings.ToLower(string(out)), "record with 'tally record'") {
			t.Fatalf("record false: got %v\n%s\nwant exit 1, the kept lines, an empty capture, no 'record with tally record'", err, out)
		}
	}

	// /dev/full: an error that says what was lost, never a silent short file.
	cmd = tallyCommand("record", "-o", "/dev/full", "--", fake, "-decode", "20", "-slow", "100us")
	out, err := cmd.CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "no space left on device") || !strings.Contains(string(out), "lost") {
		t.Fatalf("/dev/full: got %v\n%s\nwant exit 2, \"no space left on device\" and what was lost", err, out)
	}
}

// Killing tally itself leaves a kept trace with every line flushed before.
func TestRecordSurvivesKill(t *testing.T) {
	fake := fakeHRX(t)
	kept := filepath.Join(t.TempDir(), "run.kept")
	cmd := tallyCommand("record", "-o", kept, "--", fake, "-decode", "50", "-slow", "2ms")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(cmd, func() bool { st, err := os.Stat(kept); return err == nil && st.Size() > 20000 }) {
		t.Fatal("got nothing past 20000 bytes in the file, want the trace written as it runs")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	code, out, _ := tally("report", kept)
	if code != 0 || !strings.Contains(out, "program p41") {
		t.Fatalf("kept trace after a kill: got exit %d\n%s\nwant 0 and program p41", code, out)
	}
	if strings.Contains(out, "program p41: 50 runs") {
		t.Fatalf("got all 50 runs of p41, want the kill to cut the run short:\n%s", out)
	}
	// tally died before its end record: the cut is seen, and --strict fails.
	if !strings.Contains(out, "GAP truncated_input (1): the kept trace has no end record") {
		t.Fatalf("a kept trace without its end record: got\n%s\nwant GAP truncated_input", out)
	}
	if code, _, _ := tally("report", "--strict", kept); code != 1 {
		t.Fatalf("--strict on a kept trace without its end record: exit %d, want 1", code)
	}
}

func TestReportTop(t *testing.T) {
	code, out, _ := tally("report", "--top", "2", "--manifests", kernels, example)
	if code != 0 || !strings.Contains(out, "more kernels (--top 0 shows all)") {
		t.Fatalf("--top: got exit %d\n%s\nwant 0 and \"more kernels (--top 0 shows all)\"", code, out)
	}
	// The summed line keeps the program's total: nothing drops out.
	if !strings.Contains(out, "program p41: 5 runs (4 complete, 1 incomplete), 187 dispatches") {
		t.Fatalf("--top: got\n%s\nwant the program header unchanged (187 dispatches)", out)
	}
}
