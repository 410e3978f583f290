//go:build unix

package record

import (
	"bufio"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A signal that lands after the kept trace is created and before the
// command starts: it was not caught yet, so a Ctrl-C killed tally and left
// an empty kept trace. Now signals are caught before the file is created,
// and one in that moment is forwarded to the command once it starts; the
// end record says so. The moment is held open with a FIFO as the kept
// trace: creating it blocks until this test opens the other end.
func TestRecordSignalBeforeStartIsForwarded(t *testing.T) {
	mine := make(chan os.Signal, 4) // without Run's registration, SIGUSR1 lands here, not on the test binary
	signal.Notify(mine, syscall.SIGUSR1)
	defer signal.Stop(mine)
	kept := filepath.Join(t.TempDir(), "run.kept")
	if err := syscall.Mkfifo(kept, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Run(Options{Command: []string{"/bin/sh", "-c", "sleep 3"}, Kept: kept, Stdout: &syncBuffer{}, Stderr: &syncBuffer{},
			Signals: []os.Signal{syscall.SIGUSR1}})
		done <- err
	}()
	time.Sleep(300 * time.Millisecond) // Run is now blocked creating the kept trace
	syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	f, err := os.Open(kept)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, _ := io.ReadAll(bufio.NewReader(f))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	end := lastLine(b)
	if !strings.Contains(end, "forwarded=SIGUSR1") {
		t.Fatalf("end record: got %q, want the signal sent before the command started forwarded to it (forwarded=SIGUSR1)", end)
	}
}

// The header reaches the file when the command starts, not at the first
// flush: a kill of tally in between leaves a trace that reads as cut, not
// an empty file that reads as no recording at all.
func TestRecordHeaderOnDiskAtStart(t *testing.T) {
	kept := filepath.Join(t.TempDir(), "run.kept")
	started := make(chan struct{})
	out := &notifyWriter{want: "started", hit: started}
	done := make(chan error, 1)
	go func() {
		_, err := Run(Options{Command: []string{"/bin/sh", "-c", "echo started; sleep 1"}, Kept: kept, Stdout: out, Stderr: &syncBuffer{},
			FlushEvery: time.Hour})
		done <- err
	}()
	<-started
	b, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "# tally kept trace v1 ") || !strings.HasSuffix(string(b), "\n") {
		t.Errorf("kept trace while the command runs: got %q, want its header line on disk", b)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
