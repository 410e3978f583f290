package render

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// A breakdown made without a spill file says so, in the text and the JSON;
// one that failed says why in place of its figures.
func TestBreakdownNotes(t *testing.T) {
	c := &capture.Capture{Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true}}
	p := c.AddProgram(capture.Program{Name: "p", Instances: 1})
	k := c.AddKernel(capture.Kernel{Program: p, Name: "k", Category: "kernel"})
	a := analysis.NewAggregator()
	bs := analysis.NewBreakdownSink(analysis.BreakdownOptions{})
	sink := capture.Tee{a, bs}
	sink.Dispatch(c, &capture.Dispatch{Program: p, Queue: capture.NoQueue, Kernel: k, Device: capture.Interval{Begin: 0, End: 10, Valid: true}})
	bd := bs.Finish(c)
	bd.InMemory = true
	if out := text(t, c, a.Tables(c), TextOptions{Breakdown: bd}); !strings.Contains(out, "no spill file could be made in TMPDIR") {
		t.Errorf("got no in-memory note, want %q in:\n%s", "no spill file could be made in TMPDIR", out)
	}
	if j := BuildBreakdown(c, bd); !j.InMemory {
		t.Error("JSON: in_memory false, want true")
	}
	bd.Err = errorString("the breakdown's spill file reached the spill limit")
	if out := text(t, c, a.Tables(c), TextOptions{Breakdown: bd}); !strings.Contains(out, "breakdown not made: the breakdown's spill file reached the spill limit") || strings.Contains(out, "busy ") {
		t.Errorf("text: want the error in place of the figures:\n%s", out)
	}
	if j := BuildBreakdown(c, bd); j.Error == "" {
		t.Error("JSON: no error, want the spill's")
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// A device row's window bounds are known only when it holds something (a
// window or a dispatch), its wait after a sync only when a sync call was
// recorded, and its input only among many (docs/report-json.md,
// "breakdown").
func TestBreakdownDeviceOptionalFields(t *testing.T) {
	r := analysis.DeviceBreakdown{Device: "GPU 0", Unit: "ns", Input: 1, Begin: 5, End: 5, HostWaitAfterSync: 3}
	optional := func(j JSONDeviceBreakdown) any {
		return struct {
			Begin, End, Wait *int64
			Input            *int
		}{j.BeginNS, j.EndNS, j.HostWaitAfterSyncNS, j.Input}
	}
	wantJSON(t, "empty, no sync, one input", optional(jsonDevice(&r, false, false)), `{"Begin":null,"End":null,"Wait":null,"Input":null}`)
	r.Dispatches = 1 // zero-length: no window, yet a dispatch
	wantJSON(t, "one zero-length dispatch, sync, many", optional(jsonDevice(&r, true, true)), `{"Begin":5,"End":5,"Wait":3,"Input":1}`)
}
