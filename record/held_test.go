package record

import (
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tallyprof/tally/capture"
)

// The command exits while a process it started (here a sleep put in the
// background) holds its output open (the third sweep): tally record read
// on until that process ended, and a signal was forwarded to the exited
// command and ignored — Ctrl-C did nothing for as long as the process
// lived. Now a signal then stops the reading: Run returns, its Result and
// the end record say on which signal (unread=), and the kept trace reads
// as an interrupted recording, not a whole one.
func TestRecordStopsReadingHeldOutput(t *testing.T) {
	// Our own registration keeps SIGTERM from killing the test binary if
	// one lands after Run has stopped watching it.
	mine := make(chan os.Signal, 16)
	signal.Notify(mine, syscall.SIGTERM)
	defer signal.Stop(mine)

	kept := filepath.Join(t.TempDir(), "run.kept")
	out := &notifyWriter{want: "exiting", hit: make(chan struct{})}
	script := fake + ` -decode 1; sleep 60 & echo "bg=$!"; echo exiting`
	done := make(chan *Result)
	go func() {
		res, err := Run(Options{Command: []string{"/bin/sh", "-c", script}, Kept: kept, Stdout: out, Stderr: &syncBuffer{}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case <-out.hit:
	case <-time.After(20 * time.Second):
		t.Fatal("the command never said it was exiting")
	}
	if m := regexp.MustCompile(`bg=(\d+)`).FindStringSubmatch(out.String()); m != nil {
		pid, _ := strconv.Atoi(m[1])
		defer syscall.Kill(pid, syscall.SIGKILL) // the sleep this test started, by its id
	}
	// Ctrl-C, again every 200 ms, as a user whose first one went to the
	// command before it exited.
	start := time.Now()
	var res *Result
	for res == nil {
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		select {
		case res = <-done:
		case <-time.After(200 * time.Millisecond):
		}
		if time.Since(start) > 20*time.Second {
			t.Fatal("got tally record still reading 20 s after the signals, want it stopped (the background sleep holds the output for 60 s)")
		}
	}
	if res.Unread != syscall.SIGTERM {
		t.Errorf("got Unread %v, want SIGTERM", res.Unread)
	}
	end := endRecord(t, kept)
	if !strings.HasSuffix(end, " unread=SIGTERM") {
		t.Errorf("end record: got %q, want it to end unread=SIGTERM", end)
	}
	c, _ := readKept(t, kept)
	g := c.Accounting.Find(capture.InterruptedRecording)
	if g == nil || g.Count != 1 || !strings.Contains(g.Items[0].What, "stopped reading its output on SIGTERM") || c.Accounting.Complete() {
		t.Errorf("got interrupted_recording %+v, want one saying the reading stopped on SIGTERM, and an incomplete capture", g)
	}
}
