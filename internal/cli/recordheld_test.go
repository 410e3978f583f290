package cli

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
)

// tally record whose command exits while a process it started holds the
// output open (the third sweep): a Ctrl-C or a kill of tally then stops
// the reading, the report is printed with the interrupted_recording, and
// tally exits 128+N — not the command's 0, as if nothing was stopped (before,
// the signal did nothing until that process ended).
func TestRecordHeldOutputStopsOnSignal(t *testing.T) {
	mine := make(chan os.Signal, 16) // no SIGTERM kills the test binary
	signal.Notify(mine, syscall.SIGTERM)
	defer signal.Stop(mine)
	kept := filepath.Join(t.TempDir(), "run.kept")
	script := fakeHRX(t) + ` -decode 1 >/dev/null; sleep 60 & echo "bg=$!" >&2; echo exiting >&2`
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result)
	go func() {
		code, out, errOut := tally("record", "-o", kept, "--", "/bin/sh", "-c", script)
		done <- result{code, out, errOut}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, _ := os.ReadFile(kept); strings.Contains(string(b), "exiting") {
			if m := regexp.MustCompile(`bg=(\d+)`).FindSubmatch(b); m != nil {
				pid, _ := strconv.Atoi(string(m[1]))
				defer syscall.Kill(pid, syscall.SIGKILL) // the sleep this test started, by its id
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never said it was exiting")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var r result
	for got := false; !got; {
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		select {
		case r = <-done:
			got = true
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("got tally record still reading 20 s on, want it stopped by SIGTERM")
		}
	}
	if r.code != 128+int(syscall.SIGTERM) || !strings.Contains(r.errOut, "tally record: stopped reading on SIGTERM: /bin/sh had exited") ||
		!strings.Contains(r.errOut, "GAP interrupted_recording") {
		t.Errorf("got exit %d, stderr:\n%s\nwant 143, the stopped-reading line and the interrupted_recording gap", r.code, r.errOut)
	}
}
