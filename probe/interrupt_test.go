package probe_test

import (
	"strings"
	"syscall"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// A recording process killed at each point — before its first event, or
// between records after a checkpoint — by SIGKILL, or by SIGTERM or SIGINT
// with no handler (the default action: the process dies as under kill -9),
// reads as unfinalized, never complete, with every dispatch drained before
// the kill counted. (A kill mid-record leaves a cut file: probereader's
// TestCutEverywhere cuts one at every byte, the end record included.)
func TestKilledAtEachPoint(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT} {
		for _, tc := range []struct {
			mode string
			want []int // the dispatches the file may hold
		}{{"empty", []int{0}}, {"inflight", []int{1000, 1010}}} {
			t.Run(sig.String()+"/"+tc.mode, func(t *testing.T) {
				cmd, path := startChild(t, tc.mode)
				cmd.Process.Signal(sig)
				cmd.Wait()
				c, ds := readBack(t, path)
				if !containsInt(tc.want, len(ds)) {
					t.Errorf("got %d dispatches, want one of %v (all drained before the kill)", len(ds), tc.want)
				}
				if c.Accounting.CountOf(capture.UnfinalizedCapture) != 1 || c.Accounting.Complete() {
					t.Errorf("got gaps %+v, want one unfinalized_capture and incomplete", c.Accounting.Gaps)
				}
				if len(ds) == 0 && c.Accounting.CountOf(capture.EmptyCapture) == 0 {
					t.Errorf("got gaps %+v, want empty_capture for a file with no dispatch", c.Accounting.Gaps)
				}
			})
		}
	}
}

// SIGINT or SIGTERM with the handler on, before the first event: the
// session is closed, and the file says it was stopped by the signal and
// holds nothing — never a complete empty recording.
func TestSignalledBeforeFirstEvent(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd, path := startChild(t, "empty-signal")
		cmd.Process.Signal(sig)
		cmd.Wait()
		c, ds := readBack(t, path)
		g := c.Accounting.Find(capture.InterruptedRecording)
		if len(ds) != 0 || g == nil || !strings.Contains(g.Items[0].What, "stopped by "+signalName(sig)) {
			t.Errorf("%v: got %d dispatches, interrupted_recording %+v, want none and the signal named", sig, len(ds), g)
		}
		if c.Accounting.CountOf(capture.EmptyCapture) == 0 || c.Accounting.CountOf(capture.UnfinalizedCapture) != 0 || c.Accounting.Complete() {
			t.Errorf("%v: got gaps %+v, want empty_capture, finalized, incomplete", sig, c.Accounting.Gaps)
		}
	}
}

func signalName(sig syscall.Signal) string {
	if sig == syscall.SIGINT {
		return "SIGINT"
	}
	return "SIGTERM"
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
