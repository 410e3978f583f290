package render

import (
	"bytes"
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
	var b bytes.Buffer
	if err := Text(&b, c, a.Tables(c), TextOptions{Breakdown: bd}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no spill file could be made in TMPDIR") {
		t.Errorf("text lacks the in-memory note:\n%s", b.String())
	}
	if j := BuildBreakdown(c, bd); !j.InMemory {
		t.Error("JSON: in_memory false, want true")
	}
	bd.Err = errorString("the breakdown's spill file reached the spill limit")
	b.Reset()
	if err := Text(&b, c, a.Tables(c), TextOptions{Breakdown: bd}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "breakdown not made: the breakdown's spill file reached the spill limit") || strings.Contains(b.String(), "busy ") {
		t.Errorf("text: want the error in place of the figures:\n%s", b.String())
	}
	if j := BuildBreakdown(c, bd); j.Error == "" {
		t.Error("JSON: no error, want the spill's")
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// A device row's window bounds are absent when it holds nothing (no
// window, no dispatch), and its wait after a sync is null unless a sync
// call was recorded; many inputs name the row's input (docs/report-json.md,
// "breakdown").
func TestBreakdownDeviceOptionalFields(t *testing.T) {
	empty := analysis.DeviceBreakdown{Device: "GPU 0", Unit: "ns", Begin: 5, End: 5, HostWaitAfterSync: 3}
	one := analysis.DeviceBreakdown{Device: "GPU 1", Unit: "ns", Input: 1, Begin: 5, End: 5, Dispatches: 1, HostWaitAfterSync: 3}
	for _, c := range []struct {
		what       string
		r          *analysis.DeviceBreakdown
		sync, many bool
		want       string
	}{
		{"empty, no sync", &empty, false, false, `"device":"GPU 0","unit":"ns","window_ns":0,`},
		{"one zero-length dispatch, sync, many", &one, true, true, `"input":1,"rank":null,"device":"GPU 1","unit":"ns","begin_ns":5,"end_ns":5,"window_ns":0,`},
	} {
		j := jsonOf(t, jsonDevice(c.r, c.sync, c.many))
		if !strings.Contains(j, c.want) {
			t.Errorf("%s: got\n%s\nwant it to hold %s", c.what, j, c.want)
		}
		if wait := `"host_wait_after_sync_ns":3,`; strings.Contains(j, wait) != c.sync {
			t.Errorf("%s: got\n%s\nwant %s only with a sync call recorded (%v)", c.what, j, wait, c.sync)
		}
	}
}
