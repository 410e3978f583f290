package record

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/testfile"
)

// recordUntilPaused runs fakehrx until it pauses (see its -pause-at), sends
// sig and returns the result and the kept trace's path.
func recordUntilPaused(t *testing.T, sig syscall.Signal, args ...string) (*Result, string) {
	t.Helper()
	res, kept, _ := recordUntil(t, "fakehrx: paused", sig, args...)
	return res, kept
}

// recordUntil runs fakehrx until its standard output says want, sends sig
// to this process — tally record's forwarding passes it on, as on a
// Ctrl-C — and returns the result, the kept trace's path and the output.
func recordUntil(t *testing.T, want string, sig syscall.Signal, args ...string) (*Result, string, *notifyWriter) {
	t.Helper()
	kept := filepath.Join(t.TempDir(), "run.kept")
	hit := make(chan struct{})
	out := &notifyWriter{want: want, hit: hit}
	done := make(chan *Result)
	go func() {
		res, err := Run(Options{Command: append([]string{fake}, args...), Kept: kept, Stdout: out, Stderr: &syncBuffer{}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case <-hit:
	case <-time.After(20 * time.Second):
		t.Fatalf("fakehrx never said %q", want)
	}
	syscall.Kill(os.Getpid(), sig)
	select {
	case res := <-done:
		return res, kept, out
	case <-time.After(20 * time.Second):
		t.Fatalf("got the command still running 20 s after %v, want it forwarded and the command ended", sig)
	}
	return nil, "", nil
}

func endRecord(t *testing.T, kept string) string {
	t.Helper()
	return lastLine(testfile.Read(t, kept))
}

// Stopped between two program runs: the command's status is 128+N, and the
// report is incomplete, naming the signal — nothing else is missing.
func TestRecordStoppedBetweenRuns(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		name := signalName(sig)
		t.Run(name, func(t *testing.T) {
			res, kept := recordUntilPaused(t, sig, "-decode", "3", "-pause-at", "end phase=command-program")
			if res.ExitCode != 128+int(sig) || res.Signal != sig {
				t.Fatalf("got exit %d signal %v, want %d %v", res.ExitCode, res.Signal, 128+int(sig), sig)
			}
			if got, want := endRecord(t, kept), "# tally kept trace end signal="+name+" forwarded="+name+" at="; !strings.HasPrefix(got, want) {
				t.Fatalf("end record: got %q, want %q…", got, want)
			}
			c, r := readKept(t, kept)
			if c.Accounting.Complete() {
				t.Fatal("got a recording stopped by a signal reading complete, want it incomplete")
			}
			g := c.Accounting.Find(capture.InterruptedRecording)
			if g == nil || g.Count != 1 || !strings.Contains(g.Items[0].What, "killed by "+name) || !strings.Contains(g.Items[0].What, "between program runs") {
				t.Fatalf("interrupted_recording: got %+v, want one item naming %s between runs", g, name)
			}
			for _, k := range []capture.Kind{capture.DeviceFault, capture.UnfinishedDispatch, capture.IncompleteProgram} {
				if c.Accounting.CountOf(k) != 0 {
					t.Fatalf("got a %s gap between runs, want none: %+v", k, c.Accounting.Gaps)
				}
			}
			if r.Dispatches() != 43 {
				t.Fatalf("got %d dispatches, want the first run's 43", r.Dispatches())
			}
		})
	}
}

// A Ctrl-C while the program waits on the device: the open sync and the
// launched kernel are listed, and nothing is called a device fault —
// whether the program dies of the signal or traps it and exits 130.
func TestRecordCtrlCInsideRun(t *testing.T) {
	for _, trap := range []bool{false, true} {
		name := "killed"
		args := []string{"-decode", "3", "-pause-at", "sync-begin phase=command-post-dispatch", "-pause-nth", "50"}
		if trap {
			name, args = "trapped", append(args, "-trap")
		}
		t.Run(name, func(t *testing.T) {
			res, kept := recordUntilPaused(t, syscall.SIGINT, args...)
			if res.ExitCode != 130 {
				t.Fatalf("got exit %d, want 130", res.ExitCode)
			}
			want := "# tally kept trace end signal=SIGINT forwarded=SIGINT"
			if trap {
				want = "# tally kept trace end exit=130 forwarded=SIGINT"
			}
			if got := endRecord(t, kept); !strings.HasPrefix(got, want) {
				t.Fatalf("end record: got %q, want %q…", got, want)
			}
			c, _ := readKept(t, kept)
			if n := c.Accounting.CountOf(capture.DeviceFault); n != 0 {
				t.Fatalf("got %d device_fault for a Ctrl-C, want 0: %+v", n, c.Accounting.Gaps)
			}
			g := c.Accounting.Find(capture.InterruptedRecording)
			if g == nil || g.Count != 1 {
				t.Fatalf("interrupted_recording: got %+v, want one", g)
			}
			what := g.Items[0].What
			for _, s := range []string{"SIGINT", "inside run 2 of p41", "at sync-begin phase=command-post-dispatch", "for loom_libs:ggml_unary_f32 to finish", "not a device fault"} {
				if !strings.Contains(what, s) {
					t.Fatalf("interrupted_recording item: got %q, want it to say %q", what, s)
				}
			}
			u := c.Accounting.Find(capture.UnfinishedDispatch)
			if u == nil || u.Count != 1 || !strings.Contains(u.Items[0].What, "stopped by SIGINT") {
				t.Fatalf("unfinished_dispatch: got %+v, want the launched kernel, stopped by SIGINT", u)
			}
			if c.Accounting.CountOf(capture.IncompleteProgram) != 1 {
				t.Fatalf("incomplete_program: got %d, want 1", c.Accounting.CountOf(capture.IncompleteProgram))
			}
		})
	}
}

// A non-zero status is a gap that names it; a device fault that aborts the
// process stays a device fault.
func TestRecordFailedCommand(t *testing.T) {
	res, kept, _, _, err := record(t, "-decode", "1", "-exit", "3")
	if err != nil || res.ExitCode != 3 {
		t.Fatalf("got exit %v %v, want 3", res, err)
	}
	c, _ := readKept(t, kept)
	g := c.Accounting.Find(capture.InterruptedRecording)
	if g == nil || !strings.Contains(g.Items[0].What, "exit status 3") || c.Accounting.Complete() {
		t.Fatalf("interrupted_recording: got %+v, want it to name exit status 3", g)
	}

	res, kept, _, _, err = record(t, "-decode", "1", "-end", "fault")
	if err != nil || res.ExitCode != 134 {
		t.Fatalf("got exit %v %v, want 134", res, err)
	}
	c, _ = readKept(t, kept)
	if c.Accounting.CountOf(capture.DeviceFault) != 1 {
		t.Fatalf("a fault that aborted the process: got %+v, want device_fault", c.Accounting.Gaps)
	}
	if g := c.Accounting.Find(capture.InterruptedRecording); g == nil || !strings.Contains(g.Items[0].What, "exit status 134") {
		t.Fatalf("interrupted_recording: got %+v, want exit status 134", g)
	}
}
