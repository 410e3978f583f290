package probe_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/probe"
)

// A prefill-only run below the window prints the final line, and Close
// returns ErrNotSummaried: a stalled run never stays silent.
func TestPrefillOnlyBelowWindow(t *testing.T) {
	var log bytes.Buffer
	s, err := probe.Open(probe.Options{Families: probe.Summaries, Window: 100, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	k := s.Program("prefill").Kernel("matmul")
	q := s.Queue("q", "")
	for i := 0; i < 37; i++ {
		q.Begin(k).End()
	}
	r, err := s.Close()
	if !errors.Is(err, probe.ErrNotSummaried) || r.Summaries != 0 || r.Unsummarised != 37 {
		t.Fatalf("got %+v %v, want ErrNotSummaried, 0 summaries, 37 unsummarised", r, err)
	}
	if got := log.String(); got != "[probe] 37 launches, no summary written (window 100)\n" {
		t.Fatalf("got log %q, want %q", got, "[probe] 37 launches, no summary written (window 100)\n")
	}
}

// No launches at all: still the final line, with 0, and no summary.
func TestSummariesZeroLaunches(t *testing.T) {
	var log bytes.Buffer
	s, _ := probe.Open(probe.Options{Families: probe.Summaries, Window: 5, Log: &log, FlushEvery: time1ms})
	s.Program("prefill")
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Close(); !errors.Is(err, probe.ErrNotSummaried) {
		t.Fatal(err)
	}
	if got := log.String(); got != "[probe] 0 launches, no summary written (window 5)\n" {
		t.Fatalf("got log %q, want %q", got, "[probe] 0 launches, no summary written (window 5)\n")
	}
}

var lineRE = regexp.MustCompile(`^\[probe\] window (\d+) (\w+): (\d+) launches, (\d+) completed(, total .+, mean .+)?$`)

// One family alone reaches the window: a summary per 10 launches, each
// covering launches > 0; every launch is in a summary or in the tail line.
func TestOneFamilyWindows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sum.probe")
	var log bytes.Buffer
	s, err := probe.Open(probe.Options{Families: probe.Summaries, Path: path, Window: 10, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	k := s.Program("prefill").Kernel("matmul")
	q := s.Queue("q", "")
	for i := 0; i < 35; i++ {
		q.Begin(k).End()
		s.Flush() // a drain after every launch: a summary exactly when due, never early
	}
	r, err := s.Close()
	if err != nil || r.Summaries != 3 || r.Unsummarised != 5 {
		t.Fatalf("got %+v %v, want 3 summaries, 5 unsummarised, no error:\n%s", r, err, log.String())
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 4 || lines[3] != "[probe] 5 launches after the last summary, not summarised (window 10)" {
		t.Fatalf("got %q, want 4 lines, the last %q", lines, "[probe] 5 launches after the last summary, not summarised (window 10)")
	}
	total := 0
	for i, l := range lines[:3] {
		m := lineRE.FindStringSubmatch(l)
		if m == nil || m[1] != strconv.Itoa(i+1) || m[2] != "prefill" || m[3] != "10" {
			t.Fatalf("got line %q, want window %d of prefill with 10 launches", l, i+1)
		}
		n, _ := strconv.Atoi(m[3])
		total += n
	}
	if total != 30 {
		t.Fatalf("got summaries covering %d launches, want 30", total)
	}
	// A summaries-only file reads as aggregated records.
	c, ds := readBack(t, path)
	var count int64
	for _, d := range ds {
		if d.Aggregate == nil {
			t.Fatal("got a single dispatch from a summaries-only session, want only summaries")
		}
		count += d.Aggregate.Count
	}
	if count != 30 || !c.Accounting.Complete() {
		t.Fatalf("got %d summed dispatches, gaps %+v; want 30 and none", count, c.Accounting.Gaps)
	}
}

// Two families: the window counts launches of either.
func TestMixedFamiliesWindow(t *testing.T) {
	var log bytes.Buffer
	s, _ := probe.Open(probe.Options{Families: probe.Summaries, Window: 4, Log: &log, FlushEvery: -1})
	pre, dec := s.Program("prefill").Kernel("mm"), s.Program("decode").Kernel("mv")
	q := s.Queue("q", "")
	for i := 0; i < 2; i++ {
		q.Begin(pre).End()
		q.Begin(dec).End()
	}
	s.Flush()
	s.Close()
	out := log.String()
	if !strings.Contains(out, "[probe] window 1 prefill: 2 launches, 2 completed") || !strings.Contains(out, "[probe] window 1 decode: 2 launches, 2 completed") {
		t.Fatalf("got %q, want window 1 lines for prefill and decode, 2 launches, 2 completed each", out)
	}
}
