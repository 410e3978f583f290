package kineto

import (
	"testing"

	"github.com/tallyprof/tally/capture"
)

// A read takes the repeat windows an earlier read gave back, full of that
// read's events, and finds its own repeats, and only those: the earlier
// read's events repeat the later one's exactly (same stream, times, name
// and correlation) and must not count.
func TestRepeatWindowsReused(t *testing.T) {
	drain(&repeatWindows)
	var evs []string
	for i := range 3 * repeatWindow {
		evs = append(evs, kernelOn("k", 7, itoa(int64(100+i)), itoa(int64(1000+10*i)), "5"))
	}
	first := readT(t, trace(evs))
	if got := first.c.Accounting.CountOf(capture.DuplicateEvent); got != 0 {
		t.Fatalf("first read: %d duplicates, want 0", got)
	}
	w, ok := newest(&repeatWindows)
	if !ok || cap(w) != repeatWindowCap {
		t.Fatalf("after a read: a kept window %v of capacity %d, want one of %d", ok, cap(w), repeatWindowCap)
	}
	kept := &w[:1][0]
	again := readT(t, trace(append(evs[:10:10], evs[5])))
	if got := again.c.Accounting.CountOf(capture.DuplicateEvent); got != 1 || len(again.disp) != 10 {
		t.Fatalf("a read with the first read's window: %d duplicates and %d dispatches, want 1 and 10", got, len(again.disp))
	}
	if w, ok := newest(&repeatWindows); !ok || &w[:1][0] != kept {
		t.Fatalf("got a newest window (ok %v) other than the first read's, want the second read to take and return it", ok)
	}
}
