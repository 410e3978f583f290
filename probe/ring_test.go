package probe

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	_ "github.com/tallyprof/tally/format/probereader"
)

// A full ring drops and counts, exactly, without blocking: the writer is
// held off while 100 dispatches end into a ring of 8, and 6 are begun on
// a queue that allows 4 in flight.
func TestFullRingDropsCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "full.probe")
	var log bytes.Buffer
	s, err := Open(Options{Families: DispatchEvents, Path: path, Log: &log, RingSize: 8, Threshold: 8, MaxInFlight: 4, FlushEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	k := s.Program("p").Kernel("k")
	q, q2 := s.Queue("q", ""), s.Queue("q2", "")
	s.drainMu.Lock() // the writer cannot drain
	for i := 0; i < 100; i++ {
		q.Begin(k).End()
	}
	var hs []Handle
	for i := 0; i < 6; i++ {
		hs = append(hs, q2.Begin(k))
	}
	s.drainMu.Unlock()
	for _, h := range hs {
		h.End()
	}
	r, err := s.Close()
	if !errors.Is(err, ErrDropped) {
		t.Fatalf("got %v, want ErrDropped", err)
	}
	if r.Dropped != 92+2 || r.Dispatches != 8+4 || r.Launches != 106 {
		t.Fatalf("got %+v, want 94 dropped, 12 dispatches, 106 launches", r)
	}
	var all capture.Collect
	c, err := format.ReadFile(path, "", nil, &all)
	if err != nil {
		t.Fatal(err)
	}
	g := c.Accounting.Find(capture.DroppedRecords)
	if g == nil || g.Count != 94 || len(all.Dispatches) != 12 {
		t.Fatalf("got gap %+v, %d dispatches; want a dropped_records gap of 94 and 12 dispatches", g, len(all.Dispatches))
	}
	if !strings.Contains(g.Items[0].What, "92 dispatches dropped") || g.Items[0].Where != "queue q" {
		t.Fatalf("got items %+v, want the first to say \"92 dispatches dropped\" at \"queue q\"", g.Items)
	}
}

// Once the file cannot be written, the writer stops writing and counts what
// it could not write; Close says so and never reports those as recorded.
func TestWriteFailureMidRun(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	path := filepath.Join(t.TempDir(), "run.probe")
	s, err := Open(Options{Families: DispatchEvents, Path: path, Log: &bytes.Buffer{}, FlushEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	s.drainMu.Lock()
	s.f.Close()
	s.f = full
	s.bw.Reset(full)
	s.drainMu.Unlock()
	k := s.Program("p").Kernel("k")
	q := s.Queue("q", "")
	for i := 0; i < 10; i++ {
		q.Begin(k).End()
	}
	r, err := s.Close()
	if !errors.Is(err, ErrWrite) || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("got %v, want ErrWrite saying no space left", err)
	}
	if r.Unwritten != 10 || r.Dispatches != 0 {
		t.Fatalf("got %+v, want 10 unwritten and 0 dispatches", r)
	}
}

// Begin/End allocate nothing.
func TestBeginEndNoAlloc(t *testing.T) {
	s, err := Open(Options{Families: DispatchEvents | Summaries, Path: filepath.Join(t.TempDir(), "a.probe"), RingSize: 1 << 16, FlushEvery: -1, Log: &bytes.Buffer{}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k := s.Program("p").Kernel("k")
	q := s.Queue("q", "")
	if n := testing.AllocsPerRun(1000, func() { q.Begin(k).End() }); n != 0 {
		t.Fatalf("got %v allocations per Begin/End, want 0", n)
	}
}

// A kernel defined after a drain took the definitions and summarised before
// the next one: its definition still precedes the summary naming it.
func TestSummaryAfterNewKernel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sum.probe")
	s, err := Open(Options{Families: Summaries, Path: path, Window: 1, FlushEvery: -1, Log: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	q := s.Queue("q", "")
	s.drainMu.Lock()
	s.drain(false)
	q.Begin(s.Program("late").Kernel("k")).End()
	s.summarise()
	s.drainMu.Unlock()
	if _, err := s.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := format.ReadFile(path, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Accounting.Complete() {
		t.Fatalf("got gaps %+v, want none", c.Accounting.Gaps[0].Items)
	}
}
