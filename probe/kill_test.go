package probe_test

import (
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

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/testfile"
	"github.com/tallyprof/tally/probe"
)

func TestMain(m *testing.M) { testfile.ChildMain(m, child) }

// child is the child half of the kill tests: it records into path, prints
// "ready" and waits to be killed.
func child(mode, path string) {
	s, err := probe.Open(probe.Options{Families: probe.DispatchEvents, Path: path, RingSize: 1024, Threshold: 64, FlushEvery: -1})
	if err != nil {
		fmt.Println(err)
		os.Exit(4)
	}
	q := s.Queue("q0", "cpu")
	p := s.Program("decode")
	done, stuck := p.Kernel("done"), p.Kernel("stuck")
	switch mode {
	case "fsize":
		fileSizeLimited(s, path)
	case "empty", "empty-signal": // killed before the first event
		if mode == "empty-signal" {
			s.HandleSignals()
		}
		fmt.Println("ready")
	case "inflight", "signal":
		if mode == "signal" {
			s.HandleSignals()
		}
		for i := 0; i < 1000; i++ {
			q.Begin(done).End()
		}
		for i := 0; i < 3; i++ {
			q.Begin(stuck) // never ended: in flight
		}
		s.Flush()
		for i := 0; i < 10; i++ { // below the threshold: lost to kill -9
			q.Begin(done).End()
		}
		fmt.Println("ready")
	case "load":
		k := p.Kernel("matmul")
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			q := s.Queue(fmt.Sprintf("q%d", g+1), "cpu")
			wg.Add(1)
			go func() {
				for {
					q.Begin(k).End()
				}
			}()
		}
		time.Sleep(50 * time.Millisecond)
		s.Flush() // at least one drain before the kill, however slow the machine
		fmt.Println("ready")
	}
	time.Sleep(time.Minute)
}

// startChild runs the child until it is ready.
func startChild(t *testing.T, mode string) (*exec.Cmd, string) {
	path := filepath.Join(t.TempDir(), "killed.probe")
	return testfile.Child(t, mode, path), path
}

// kill -9 after a checkpoint: the file is readable, holds the 1000
// dispatches drained before it (and perhaps the 10 after it, if the writer
// drained again: never more, never fewer), names the 3 in flight with their
// launch times, and says the session was never closed.
func TestKill9InFlight(t *testing.T) {
	cmd, path := startChild(t, "inflight")
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	c, ds := readBack(t, path)
	if len(ds) != 1000 && len(ds) != 1010 {
		t.Fatalf("got %d dispatches, want 1000 (or 1010 if the writer drained again)", len(ds))
	}
	g := c.Accounting.Find(capture.UnfinishedDispatch)
	if g == nil || g.Count != 3 || g.Program != "decode" {
		t.Fatalf("unfinished_dispatch: got %+v, want 3 in program decode", g)
	}
	for _, it := range g.Items {
		if it.Kernel != "stuck" || it.Time == nil || !strings.Contains(it.LastCompleted, "done") || !strings.Contains(it.What, "last checkpoint") {
			t.Fatalf("unfinished item: got %+v, want kernel stuck with its launch time, after done, at the last checkpoint", it)
		}
	}
	if c.Accounting.CountOf(capture.UnfinalizedCapture) != 1 || c.Accounting.Complete() {
		t.Fatalf("got gaps %+v, want one unfinalized_capture and incomplete", c.Accounting.Gaps)
	}
}

// kill -9 under load from 8 goroutines: whatever moment the kill hits, the
// file reads (a cut record is a gap, not an error) and is never complete.
func TestKill9UnderLoad(t *testing.T) {
	cmd, path := startChild(t, "load")
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	c, ds := readBack(t, path)
	if len(ds) == 0 || c.Accounting.Complete() || c.Accounting.CountOf(capture.UnfinalizedCapture) != 1 {
		t.Fatalf("got %d dispatches, gaps %+v; want some dispatches, incomplete, one unfinalized_capture", len(ds), c.Accounting.Gaps)
	}
	if err := c.Accounting.CheckValid(); err != nil {
		t.Fatal(err)
	}
}

// SIGTERM with the handler on: the session is closed (everything drained,
// the 3 in flight listed, a note naming the signal), then the process dies
// of the signal as it would have.
func TestSigtermHandler(t *testing.T) {
	cmd, path := startChild(t, "signal")
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Fatalf("child: got %v, want killed by SIGTERM", err)
	}
	c, ds := readBack(t, path)
	if len(ds) != 1010 {
		t.Fatalf("got %d dispatches, want 1010 (all drained)", len(ds))
	}
	if g := c.Accounting.Find(capture.UnfinishedDispatch); g == nil || g.Count != 3 || !strings.Contains(g.Items[0].What, "session closed") {
		t.Fatalf("unfinished_dispatch: got %+v, want 3 listed when the session closed", g)
	}
	if c.Accounting.CountOf(capture.UnfinalizedCapture) != 0 || c.Accounting.Find("closed_by_signal") == nil {
		t.Fatalf("got gaps %+v, want closed_by_signal and no unfinalized_capture", c.Accounting.Gaps)
	}
	// Stopped by a signal: a gap naming it, so --strict fails; never a
	// device fault.
	g := c.Accounting.Find(capture.InterruptedRecording)
	if g == nil || g.Count != 1 || !strings.Contains(g.Items[0].What, "stopped by SIGTERM") || c.Accounting.Complete() {
		t.Fatalf("interrupted_recording: got %+v, want one item naming SIGTERM", g)
	}
	if c.Accounting.CountOf(capture.DeviceFault) != 0 {
		t.Fatalf("got gaps %+v, want no device_fault for a SIGTERM", c.Accounting.Gaps)
	}
}
