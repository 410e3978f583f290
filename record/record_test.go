package record

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
	"github.com/tallyprof/tally/format/hrxserial"
	"github.com/tallyprof/tally/internal/gen/hrxgen"
	"github.com/tallyprof/tally/internal/testfile"
)

var fake string // path of the built testdata/fakehrx program

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakehrx")
	if err != nil {
		panic(err)
	}
	fake = filepath.Join(dir, "fakehrx")
	build := exec.Command("go", "build", "-o", fake, "./testdata/fakehrx")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building testdata/fakehrx:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// syncBuffer is a bytes.Buffer safe for the pumps' concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// record runs the fake program with args, keeping its trace in a new file.
func record(t *testing.T, args ...string) (*Result, string, *syncBuffer, *syncBuffer, error) {
	t.Helper()
	return recordCommand(t, append([]string{fake}, args...)...)
}

// recordCommand runs command, keeping its trace in a new file; it returns
// the result, the kept file's path, what passed to stdout and stderr, and
// Run's error.
func recordCommand(t *testing.T, command ...string) (*Result, string, *syncBuffer, *syncBuffer, error) {
	t.Helper()
	kept := filepath.Join(t.TempDir(), "run.kept")
	var out, errOut syncBuffer
	res, err := Run(Options{Command: command, Kept: kept, Stdout: &out, Stderr: &errOut})
	return res, kept, &out, &errOut, err
}

// recordScript runs the shell script, which must record without error.
func recordScript(t *testing.T, script string) (*Result, string, *syncBuffer, *syncBuffer) {
	t.Helper()
	res, kept, out, errOut, err := recordCommand(t, "/bin/sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	return res, kept, out, errOut
}

func readKept(t *testing.T, path string) (*capture.Capture, *analysis.Tables) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cat, err := catalog.Load([]string{"../testdata/hrx/manifest.json"})
	if err != nil {
		t.Fatal(err)
	}
	agg := analysis.NewAggregator()
	c, err := hrxserial.ReadStream(f, path, cat, agg)
	if err != nil {
		t.Fatal(err)
	}
	return c, agg.Tables(c)
}

func TestRecordClean(t *testing.T) {
	res, kept, out, errOut, err := record(t, "-decode", "2")
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("got exit %d, want 0", res.ExitCode)
	}
	if !strings.Contains(out.String(), "fakehrx: done") || strings.Contains(out.String(), "hrx debug serial") {
		t.Fatalf("got stdout %q, want it passed through as is (\"fakehrx: done\", no trace lines)", out.String())
	}
	if !strings.Contains(errOut.String(), "llama_model_load") || strings.Contains(errOut.String(), "hrx debug serial:") {
		t.Fatalf("stderr: non-trace lines must pass, trace lines must not: %q", errOut.String())
	}
	c, r := readKept(t, kept)
	if !c.Accounting.Complete() || !c.Clock.Timed {
		t.Fatalf("got the kept trace incomplete or untimed (gaps %+v), want it complete and timed", c.Accounting.Gaps)
	}
	var want bytes.Buffer
	sum, _ := hrxgen.Write(&want, hrxgen.Options{Seed: 11, Decode: 2, Raw: true})
	var wantDispatches int64
	for _, p := range sum.Programs {
		for _, k := range p.Kernels {
			wantDispatches += k.Dispatches
		}
	}
	if r.Dispatches() != wantDispatches {
		t.Fatalf("%d dispatches kept, %d printed", r.Dispatches(), wantDispatches)
	}
	data := testfile.Read(t, kept)
	if !bytes.HasPrefix(data, []byte("# tally kept trace v1 clock=monotonic unit=ns end=1 pid=")) {
		t.Fatalf("header: got %q, want it to announce the end record", data[:60])
	}
	// The last line is the end record: exit 0, and when.
	if last := lastLine(data); !strings.HasPrefix(last, "# tally kept trace end exit=0 at=") {
		t.Fatalf("last line: got %q, want the end record with exit=0", last)
	}
	if g := c.Accounting.Find(capture.InterruptedRecording); g != nil || c.Accounting.Find(capture.NoEndMarker) != nil {
		t.Fatalf("clean run: got an interrupted_recording gap or a no_end_marker note, want neither: %+v", c.Accounting.Gaps)
	}
	// The foreign stderr line is kept too (stamped), as the format asks.
	if !bytes.Contains(data, []byte(" llama_model_load: 32 layers\n")) {
		t.Fatal("got no non-trace stderr line in the kept file, want \" llama_model_load: 32 layers\" kept")
	}
	if res.TraceLines != int64(sum.Lines) {
		t.Fatalf("got %d trace lines kept, want the %d printed", res.TraceLines, sum.Lines)
	}
}

func TestRecordKilledMidDispatch(t *testing.T) {
	res, kept, _, _, err := record(t, "-decode", "2", "-end", "cut")
	if err != nil {
		t.Fatal(err)
	}
	if res.Signal != syscall.SIGKILL || res.ExitCode != 128+9 {
		t.Fatalf("got exit %d signal %v, want 137 and SIGKILL", res.ExitCode, res.Signal)
	}
	c, _ := readKept(t, kept)
	g := c.Accounting.Find(capture.UnfinishedDispatch)
	if g == nil || g.Count != 1 || g.Items[0].Kernel != "loom_libs:ggml_mul_mat_f32_f32_wmma" || g.Items[0].Time == nil {
		t.Fatalf("got %+v, want one unfinished dispatch of loom_libs:ggml_mul_mat_f32_f32_wmma with its time", g)
	}
}

func TestRecordExitStatus(t *testing.T) {
	res, _, _, _, err := record(t, "-decode", "1", "-exit", "3")
	if err != nil || res.ExitCode != 3 {
		t.Fatalf("got %v %v, want exit 3 and no error", res, err)
	}
}

// A full disk stops the run with an error that says what was lost.
func TestRecordFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	var out, errOut syncBuffer
	res, err := Run(Options{Command: []string{fake, "-decode", "50", "-slow", "200us"}, Kept: "/dev/full", Stdout: &out, Stderr: &errOut})
	if err == nil || !errors.Is(err, ErrWrite) {
		t.Fatalf("got %v, want ErrWrite", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "no space left on device") || !strings.Contains(msg, "lost") || !strings.Contains(msg, "/dev/full") {
		t.Fatalf("got error %s, want it to name no space left on device, what was lost and /dev/full", msg)
	}
	// The command was stopped rather than left running unrecorded.
	if res == nil || res.Signal != syscall.SIGTERM {
		t.Fatalf("got %+v, want the command stopped by SIGTERM", res)
	}
}

func TestRecordForwardsSignals(t *testing.T) {
	res, _, out := recordUntil(t, "fakehrx: waiting", syscall.SIGTERM, "-decode", "1", "-wait")
	if res.ExitCode != 143 || !strings.Contains(out.String(), "fakehrx: got terminated") {
		t.Fatalf("got exit %d, out %q; want 143 and \"fakehrx: got terminated\"", res.ExitCode, out.String())
	}
}

type notifyWriter struct {
	syncBuffer
	want string
	hit  chan struct{}
	once sync.Once
}

func (n *notifyWriter) Write(p []byte) (int, error) {
	k, err := n.syncBuffer.Write(p)
	if strings.Contains(n.syncBuffer.String(), n.want) {
		n.once.Do(func() { close(n.hit) })
	}
	return k, err
}

// Lines reach the file while the command still runs (flushed every 100 ms),
// so a kill of tally itself keeps them.
func TestRecordFlushesWhileRunning(t *testing.T) {
	kept := filepath.Join(t.TempDir(), "run.kept")
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(Options{Command: []string{fake, "-decode", "4", "-slow", "1ms"}, Kept: kept, Stdout: &syncBuffer{}, Stderr: &syncBuffer{}})
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-done:
			t.Fatal("got the command ended before any line reached the file, want a line flushed while it runs")
		default:
		}
		if st, err := os.Stat(kept); err == nil && st.Size() > 1000 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("got nothing flushed by the deadline, want a line in the file")
		}
		time.Sleep(20 * time.Millisecond)
	}
	<-done
}

func TestReadLines(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	var got []string
	var cut []bool
	readLines(strings.NewReader("a\n"+long+"\nlast"), func(b []byte, c bool) { got, cut = append(got, string(b)), append(cut, c) })
	if len(got) != 3 || got[0] != "a" || got[1] != long || got[2] != "last" {
		t.Fatalf("got %d lines, want 3: a, the long line, last", len(got))
	}
	if cut[0] || cut[1] || !cut[2] {
		t.Fatalf("got cut %v, want [false false true]: only the last line lacks its newline", cut)
	}
}

// A pass-through that cannot be written is reported, and the trace is kept.
func TestRecordPassThroughError(t *testing.T) {
	kept := filepath.Join(t.TempDir(), "run.kept")
	res, err := Run(Options{Command: []string{fake, "-decode", "1"}, Kept: kept, Stdout: brokenWriter{}, Stderr: &syncBuffer{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.PassErr == nil || res.Unshown == 0 {
		t.Fatalf("got %+v, want the pass-through failure reported (PassErr and Unshown set)", res)
	}
	if c, _ := readKept(t, kept); !c.Accounting.Complete() {
		t.Fatal("got the kept trace incomplete after a stdout failure, want it complete")
	}
}

func lastLine(data []byte) string {
	data = bytes.TrimSuffix(data, []byte("\n"))
	return string(data[bytes.LastIndexByte(data, '\n')+1:])
}

type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }
