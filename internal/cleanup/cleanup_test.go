package cleanup

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/tallyprof/tally/internal/testfile"
)

func TestMain(m *testing.M) { testfile.ChildMain(m, child) }

// child is the child half of the signal tests: it tracks temporaries in
// dir, installs Catch, prints "ready" and waits for the signal.
func child(mode, dir string) {
	file, sub, kept := filepath.Join(dir, ".out.tmp1"), filepath.Join(dir, ".ds.tmp2"), filepath.Join(dir, "kept")
	os.WriteFile(file, []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(sub, "dispatches"), 0o755)
	os.WriteFile(filepath.Join(sub, "dispatches", "f"), []byte("x"), 0o644)
	os.WriteFile(kept, []byte("x"), 0o644)
	Track(file)
	Track(sub)
	stop := Catch()
	switch mode {
	case "stop":
		// A command whose write fails because the handler removed its
		// temporary returns at once: stop, then its own exit status.
		fmt.Println("ready")
		for {
			if _, err := os.Stat(file); err != nil {
				break
			}
		}
		stop()
		fmt.Println("stop returned")
		os.Exit(2)
	case "wait":
		fmt.Println("ready")
	case "hold":
		// A rename in progress when the signal comes is finished before
		// the cleanup starts: the renamed file is an output, not removed.
		release := Hold()
		fmt.Println("ready")
		time.Sleep(300 * time.Millisecond)
		os.Rename(file, filepath.Join(dir, "out"))
		Untrack(file)
		release()
	}
	time.Sleep(time.Minute)
}

func startChild(t *testing.T, mode string) (*exec.Cmd, string) {
	t.Helper()
	dir := t.TempDir()
	return testfile.Child(t, mode, dir), dir
}

// TestSignalRemovesTracked: on SIGINT or SIGTERM every tracked temporary
// (a file, a directory with content) is removed, untracked files stay, and
// the process ends by the signal.
func TestSignalRemovesTracked(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd, dir := startChild(t, "wait")
		cmd.Process.Signal(sig)
		cmd.Wait()
		if ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != sig {
			t.Errorf("%v: the child ended with %v, want killed by %v", sig, cmd.ProcessState, sig)
		}
		if got := testfile.Names(dir); !slices.Equal(got, []string{"kept"}) {
			t.Errorf("%v: left %v, want only the untracked file", sig, got)
		}
	}
}

// TestSignalWaitsForHold: a signal during a held step (a rename into
// place) removes nothing the step finished: the output stays.
// TestSignalEndsACommandThatReturns: a command that returns while the
// handler removes its temporaries (its write failed on the removed file)
// ends by the signal, not by its own exit status. Found by the second
// sweep: tally export --to csv, SIGTERM mid-write, exited 2 with "chmod
// .e.csv.tmpNNN: no such file or directory".
func TestSignalEndsACommandThatReturns(t *testing.T) {
	for i := 0; i < 5; i++ {
		cmd, _ := startChild(t, "stop")
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Fatalf("run %d: the child ended with %v, want killed by SIGTERM", i, cmd.ProcessState)
		}
	}
}

func TestSignalWaitsForHold(t *testing.T) {
	cmd, dir := startChild(t, "hold")
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if got := testfile.Names(dir); !slices.Equal(got, []string{"kept", "out"}) {
		t.Errorf("left %v, want the renamed output and the untracked file", got)
	}
}

func TestTrackUntrack(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, nil, 0o644)
	os.Mkdir(b, 0o755)
	Track(a)
	Track(b)
	Untrack(a)
	if got := Tracked(); !slices.Equal(got, []string{b}) {
		t.Fatalf("tracked %v, want [%s]", got, b)
	}
	release := Hold()
	removeTracked()
	release()
	if got := testfile.Names(dir); !slices.Equal(got, []string{"a"}) || len(Tracked()) != 0 {
		t.Errorf("left %v, tracked %v; want the untracked a only", got, Tracked())
	}
}

// TestInstalledWithFirstTemporary: Catch only arms the handler; the first
// Hold installs it (before the temporary exists), and stop removes it.
func TestInstalledWithFirstTemporary(t *testing.T) {
	installed := func() bool {
		armMu.Lock()
		defer armMu.Unlock()
		return uninstall != nil
	}
	Hold()() // not armed: nothing to install
	if installed() {
		t.Fatal("Hold without Catch: got the handler installed, want none")
	}
	stop := Catch()
	if installed() {
		t.Error("Catch with nothing tracked installed the handler; want it installed with the first temporary")
	}
	Hold()()
	if !installed() {
		t.Error("Hold under Catch: got no handler, want it installed")
	}
	stop()
	if installed() {
		t.Error("after stop: got the handler still installed, want it removed")
	}
}
