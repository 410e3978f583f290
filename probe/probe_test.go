package probe_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	_ "github.com/tallyprof/tally/format/probereader"
	"github.com/tallyprof/tally/probe"
)

// readBack reads a probe file the way tally report does.
func readBack(t *testing.T, path string) (*capture.Capture, []capture.Dispatch) {
	t.Helper()
	var all capture.Collect
	c, err := format.ReadFile(path, "", nil, &all)
	if err != nil {
		t.Fatal(err)
	}
	if c.Source.Format != "probe" {
		t.Fatalf("got it read as %s, want probe", c.Source.Format)
	}
	return c, all.Dispatches
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.probe")
	var log bytes.Buffer
	s, err := probe.Open(probe.Options{Families: probe.DispatchEvents, Path: path, Log: &log, RingSize: 1024, Threshold: 16})
	if err != nil {
		t.Fatal(err)
	}
	pre, dec := s.Program("prefill"), s.Program("decode")
	mm, mv := pre.Kernel("matmul"), dec.Kernel("matvec")
	q0, q1 := s.Queue("q0", "cpu"), s.Queue("q1", "cpu")
	for i := 0; i < 50; i++ {
		q0.Begin(mm).End()
		q1.Begin(mv).End()
	}
	r, err := s.Close()
	if err != nil {
		t.Fatalf("got error %v, want none (log %q)", err, log.String())
	}
	if r.Dispatches != 100 || r.Dropped != 0 || r.InFlight != 0 || r.Launches != 100 {
		t.Fatalf("got %+v, want 100 dispatches, 100 launches, none dropped or in flight", r)
	}
	c, ds := readBack(t, path)
	if len(ds) != 100 || !c.Accounting.Complete() {
		t.Fatalf("got %d dispatches, gaps %+v; want 100 and none", len(ds), c.Accounting.Gaps)
	}
	if c.Clock.Domain != "monotonic" || c.Clock.Unit != "ns" {
		t.Fatalf("got clock %+v, want monotonic ns", c.Clock)
	}
	per := map[string]int{}
	for _, d := range ds {
		k := c.Kernels[d.Kernel]
		per[c.Programs[k.Program].Name+"/"+k.Name+"@"+c.Queues[d.Queue].Name]++
		if !d.Device.Valid || d.Device.End < d.Device.Begin {
			t.Fatalf("got interval %+v, want a valid one with end ≥ begin", d.Device)
		}
	}
	if per["prefill/matmul@q0"] != 50 || per["decode/matvec@q1"] != 50 {
		t.Fatalf("got %v, want 50 of prefill/matmul@q0 and 50 of decode/matvec@q1", per)
	}
}

func TestDispatchEventsNeedPath(t *testing.T) {
	if _, err := probe.Open(probe.Options{Families: probe.DispatchEvents}); err == nil {
		t.Fatal("dispatch events without a file: got no error, want one")
	}
}

// A session that asked for dispatch events and recorded none says so, in
// Close's error, on the log, and in the file.
func TestNothingRecorded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.probe")
	var log bytes.Buffer
	s, err := probe.Open(probe.Options{Families: probe.DispatchEvents, Path: path, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	q := s.Queue("q0", "")
	q.Begin(s.Program("p").Kernel("k")) // begun, never ended
	r, err := s.Close()
	if !errors.Is(err, probe.ErrNoDispatches) || r.Dispatches != 0 || r.InFlight != 1 {
		t.Fatalf("got %+v %v, want ErrNoDispatches, 0 dispatches, 1 in flight", r, err)
	}
	if !strings.Contains(log.String(), "recorded none") {
		t.Fatalf("got log %q, want it to say recorded none", log.String())
	}
	c, ds := readBack(t, path)
	if len(ds) != 0 || c.Accounting.CountOf(capture.EmptyCapture) != 1 || c.Accounting.CountOf(capture.UnfinishedDispatch) != 1 {
		t.Fatalf("got %d dispatches, gaps %+v; want 0, one empty_capture and one unfinished_dispatch", len(ds), c.Accounting.Gaps)
	}
	// Quiet: returned, not printed.
	log.Reset()
	s, _ = probe.Open(probe.Options{Families: probe.DispatchEvents, Path: path, Log: &log, Quiet: true})
	if _, err := s.Close(); !errors.Is(err, probe.ErrNoDispatches) || log.Len() != 0 {
		t.Fatalf("quiet: got %v, log %q; want ErrNoDispatches and no log", err, log.String())
	}
}

const time1ms = 1000000

// Misuse is counted, never a crash and never a misnamed event: a kernel of
// another session, a nil kernel, a handle ended twice, the zero Handle.
func TestMisuse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.probe")
	s, _ := probe.Open(probe.Options{Families: probe.DispatchEvents, Path: path, Log: &bytes.Buffer{}})
	other, _ := probe.Open(probe.Options{Families: probe.Summaries, Log: &bytes.Buffer{}})
	q := s.Queue("q", "")
	q.Begin(other.Program("x").Kernel("foreign")).End()
	q.Begin(nil).End()
	h := q.Begin(s.Program("p").Kernel("k"))
	h.End()
	h.End()
	probe.Handle{}.End()
	r, err := s.Close()
	other.Close()
	if !errors.Is(err, probe.ErrMisuse) || r.Misused != 3 || r.Dispatches != 1 {
		t.Fatalf("got %+v %v, want ErrMisuse, 3 misused, 1 dispatch", r, err)
	}
	c, ds := readBack(t, path)
	if len(ds) != 1 || c.Kernels[ds[0].Kernel].Name != "k" {
		t.Fatalf("got %d dispatches, want 1 of kernel k", len(ds))
	}
}
