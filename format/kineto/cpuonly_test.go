package kineto

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// An old PyTorch (autograd profiler) export: a bare array of host ops on
// the pseudo-process "CPU functions", no category, no device activity.
func TestOldCPUOnlyArray(t *testing.T) {
	data := `[{"name": "aten::add", "ph": "X", "ts": 1.5, "dur": 2.0, "tid": 1, "pid": "CPU functions", "args": {}},
	{"name": "aten::mul", "ph": "X", "ts": 4, "dur": 2, "tid": 1, "pid": "CPU functions", "args": {}},
	{"name": "x", "ph": "X", "ts": 4, "dur": 2, "tid": 1, "pid": "other", "args": {}}]`
	r := readT(t, data)
	g := mustGap(t, r.c, capture.EmptyCapture)
	if !strings.Contains(g.Summary, "3 events: 2 host events, no device activity") || strings.Contains(g.Summary, "nothing at all") {
		t.Errorf("got summary %q, want it to say %q and not %q", g.Summary, "3 events: 2 host events, no device activity", "nothing at all")
	}
	// The event without a category on another process stays unknown.
	if u := mustGap(t, r.c, capture.UnknownInput); u.Count != 1 {
		t.Errorf("got unknown-input gap %+v, want count 1", u)
	}
}

func TestCPUOnlySample(t *testing.T) {
	s := readSample(t, "testdata/hta__cpu_only_rank-34.pt.trace.json.gz", nil)
	g := mustGap(t, s.c, capture.EmptyCapture)
	if !strings.Contains(g.Summary, "30 events: 15 host events, no device activity") {
		t.Errorf("got summary %q, want it to say %q", g.Summary, "30 events: 15 host events, no device activity")
	}
}
