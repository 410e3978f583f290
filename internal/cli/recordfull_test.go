//go:build unix

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The kept trace's write fails mid-run (a file size limit stands in for a
// full disk) while a process the command started holds its output open:
// tally record stopped the command, then read on until that process ended
// — here 60 s, for a daemon never — with its error unsaid. Now it stops
// reading once the command has exited, exits 2, and says why.
func TestRecordWriteFailsWhileOutputHeld(t *testing.T) {
	dir := t.TempDir()
	kept, bgFile := filepath.Join(dir, "run.kept"), filepath.Join(dir, "bg")
	script := `sleep 60 & echo $! >` + bgFile + `; i=0; while [ $i -lt 400 ]; do echo "hrx debug serial: line $i of a trace that outgrows the limit"; i=$((i+1)); done >&2; sleep 0.2`
	// ulimit -f applies to tally (writes past it fail with EFBIG; Go
	// ignores SIGXFSZ) and to the command, whose few bytes of pid fit.
	cmd := exec.Command("/bin/sh", "-c", `ulimit -f 4 && exec "$0" "$@"`, os.Args[0], "record", "-o", kept, "--", "/bin/sh", "-c", script)
	cmd.Env = append(os.Environ(), "TALLY_TEST_MAIN=1")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if b, err := os.ReadFile(bgFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL) // the sleep this test started, by its id
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("got tally record still running 30 s after its kept trace's write failed, want it ended (the background sleep holds the output for 60 s); stderr:\n%s", errOut.String())
	}
	code := cmd.ProcessState.ExitCode()
	out := errOut.String()
	if code != 2 || !strings.Contains(out, "kept trace write failed") || !strings.Contains(out, "still held its output open; tally record stopped reading it") {
		t.Fatalf("got exit %d, stderr:\n%s\nwant 2, the failed write, and that a process still held the output", code, out)
	}
}
