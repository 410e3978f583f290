package kineto

import (
	"testing"

	"github.com/tallyprof/tally/capture"
)

// An event whose ts + dur passes the int64 ns range cannot end: a kernel
// is skipped as unusable (not handed on with its end wrapped below its
// start), a launch call keeps its link but loses its interval.
func TestEndOverflow(t *testing.T) {
	data := trace([]string{
		call("cudaLaunchKernel", "1", "9223372036854775.000", "9223372036854775.000"),
		kernel("late", "1", "9000000000000000.000", "1"),
		kernel("wraps", "2", "9223372036854775.000", "9223372036854775.000"),
	})
	r := readT(t, data)
	if len(r.disp) != 1 || r.c.Kernels[r.disp[0].Kernel].Name != "late" {
		t.Fatalf("got dispatches %+v, want only \"late\"", r.disp)
	}
	if d := r.disp[0]; !d.Device.Valid || d.Launch.Valid {
		t.Errorf("device %+v launch %+v: want the kernel's interval and no launch interval", d.Device, d.Launch)
	}
	if s := r.c.Accounting.FindSkip("events", reasonText[rsBadDevice]); s == nil || s.Count != 1 {
		t.Errorf("unusable device events: got %+v, want 1 (the kernel whose end wraps)", s)
	}
}

// A relative time plus baseTimeNanoseconds that passes the int64 ns range
// keeps the relative times, says so, and breaks no interval. The event
// whose end passes it lasts 8e18 ns: an impossible time, so it is an
// invalid_event (capture.Checked) and not in the tables; the ordinary
// kernel beside it stays, on the file's relative clock.
func TestBaseOverflow(t *testing.T) {
	data := trace([]string{kernel("long", "1", "1000", "8000000000000000"), kernel("short", "2", "2000", "5")}, `"baseTimeNanoseconds": 1751410836000000000`)
	r := readT(t, data)
	if len(r.disp) != 1 || r.c.Kernels[r.disp[0].Kernel].Name != "short" || r.disp[0].Device.Begin != 2_000_000 || r.disp[0].Device.End != 2_005_000 {
		t.Fatalf("dispatches %+v, want only \"short\" at 2000000..2005000 ns (relative, the base not added)", r.disp)
	}
	if r.c.Clock.Domain != "trace-relative" {
		t.Errorf("clock %+v, want trace-relative", r.c.Clock)
	}
	mustGap(t, r.c, capture.InconsistentTrace)
	g := mustGap(t, r.c, capture.InvalidEvent)
	if got := fig(t, g, "claimed_ns"); got != 8e18 {
		t.Errorf("invalid_event claimed_ns = %d, want 8e18 (the long event's duration)", got)
	}
	if got := r.tables.Dispatches(); got != 1 {
		t.Errorf("tables hold %d dispatches, want 1", got)
	}
	// The negative arm: a base that fits is added.
	r = readT(t, trace([]string{kernel("k", "1", "1000", "5")}, `"baseTimeNanoseconds": 1751410836000000000`))
	if r.disp[0].Device.Begin != 1751410836001000000 || r.c.Clock.Domain != "unix-epoch" {
		t.Fatalf("got device %+v, clock %+v; want the base added: begin 1751410836001000000, unix-epoch", r.disp[0].Device, r.c.Clock)
	}
}
