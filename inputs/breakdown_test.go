package inputs

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/render"
)

// On every shared public Kineto trace the breakdown's rows add up to their
// windows to the ns, in the model and in the JSON; and the spilled path
// (sorted runs in TMPDIR, merged) gives the same rows as the in-memory one.
func TestBreakdownSumsOnSharedTraces(t *testing.T) {
	paths, err := filepath.Glob("../format/kineto/testdata/*.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 15 {
		t.Fatalf("shared Kineto traces: got %d, want the 15", len(paths))
	}
	rows, spills := 0, 0
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			run := Expand([]string{path}, "").Read(Options{Breakdown: &analysis.BreakdownOptions{}})
			in := run.Inputs[0]
			if in.Err != nil {
				t.Fatal(in.Err)
			}
			bd := in.Breakdown
			if bd == nil || bd.Err != nil {
				t.Fatalf("breakdown: got %+v, want one", bd)
			}
			for _, r := range bd.Devices {
				rows++
				if got := r.Busy.Sum() + r.Idle.Sum(); got != r.Window || r.Window != r.End-r.Begin {
					t.Errorf("%s: busy %+v + idle %+v = %d, want the window %d (%d − %d)", r.Device, r.Busy, r.Idle, got, r.Window, r.End, r.Begin)
				}
				if r.CommOverlapped > r.CommTotal || r.Busy.Comm > r.CommTotal || r.HostWaitAfterSync > r.Idle.HostWait || r.GraphBusy > r.Busy.Sum() {
					t.Errorf("%s: got comm %d/%d (busy comm %d), host wait after sync %d of %d, graph busy %d of %d; want each part within its whole",
						r.Device, r.CommOverlapped, r.CommTotal, r.Busy.Comm, r.HostWaitAfterSync, r.Idle.HostWait, r.GraphBusy, r.Busy.Sum())
				}
			}
			j := render.BuildBreakdown(in.Capture, bd)
			for _, d := range j.Devices {
				b, i := d.BusyNS, d.IdleNS
				if got := b.Compute + b.Comm + b.Memcpy + b.Memset + i.HostWait + i.LaunchLatency + i.OtherStream + i.Unrecorded + i.Unexplained; got != d.WindowNS {
					t.Errorf("JSON %s: busy_ns + idle_ns = %d, want window_ns %d", d.Device, got, d.WindowNS)
				}
			}
			// The same rows through the spill file (a run every 500 records).
			spilled := Expand([]string{path}, "").Read(Options{Breakdown: &analysis.BreakdownOptions{Records: 500, TempDir: t.TempDir()}}).Inputs[0].Breakdown
			if spilled.Err != nil {
				t.Fatal(spilled.Err)
			}
			if spilled.Runs > 1 {
				spills++
			}
			if !reflect.DeepEqual(spilled.Devices, bd.Devices) {
				t.Errorf("spilled (%d bytes in %d runs): got %+v, want %+v", spilled.Spilled, spilled.Runs, spilled.Devices, bd.Devices)
			}
		})
	}
	if rows == 0 || spills == 0 {
		t.Fatalf("got %d device rows and %d spilled breakdowns over the shared traces, want some of each", rows, spills)
	}
}
