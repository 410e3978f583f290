package analysis

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// sizedCase builds a capture of two ns programs and one ticks program with
// known times, streams dispatches through the aggregator and returns the
// capture and its tables (Tables sizes the gaps).
//
//	prefill (ns):  norm 3×100, anon#7 (unnamed) 2×50, copy (no launch) 1×200  = 600
//	decode  (ns):  attn 4×100 (2 of them no launch)                            = 400
//	iree    (ticks): disp 5×10, anon#9 (unnamed) 1×30                          = 80
func sizedCase(t *testing.T, gaps func(c *capture.Capture)) (*capture.Capture, *Tables) {
	t.Helper()
	c := &capture.Capture{Clock: capture.Clock{Unit: "ns", Timed: true}}
	pre := c.AddProgram(capture.Program{Name: "prefill", Instances: 1})
	dec := c.AddProgram(capture.Program{Name: "decode", Instances: 1})
	ticks := capture.Clock{Unit: "ticks", Timed: true, Domain: "device-ticks"}
	ire := c.AddProgram(capture.Program{Name: "iree", Instances: 1, Clock: &ticks})
	norm := c.AddKernel(capture.Kernel{Program: pre, Name: "norm", Resolved: true})
	anon := c.AddKernel(capture.Kernel{Program: pre, Name: "prefill:#7"})
	cp := c.AddKernel(capture.Kernel{Program: pre, Name: "copy", Resolved: true})
	attn := c.AddKernel(capture.Kernel{Program: dec, Name: "attn", Resolved: true})
	disp := c.AddKernel(capture.Kernel{Program: ire, Name: "disp", Resolved: true})
	anon9 := c.AddKernel(capture.Kernel{Program: ire, Name: "iree:#9"})
	agg := NewAggregator()
	at := int64(0)
	emit := func(p capture.ProgramID, k capture.KernelID, n int, dur int64, link capture.Link) {
		for range n {
			d := capture.Dispatch{Program: p, Kernel: k, Queue: capture.NoQueue, Device: capture.Interval{Begin: at, End: at + dur, Valid: true}, Link: link}
			at += dur
			agg.Dispatch(c, &d)
		}
	}
	emit(pre, norm, 3, 100, capture.LinkLaunched)
	emit(pre, anon, 2, 50, capture.LinkLaunched)
	emit(pre, cp, 1, 200, capture.LinkNoLaunch)
	emit(dec, attn, 2, 100, capture.LinkLaunched)
	emit(dec, attn, 2, 100, capture.LinkNoLaunch)
	emit(ire, disp, 5, 10, capture.LinkNone)
	emit(ire, anon9, 1, 30, capture.LinkNone)
	gaps(c)
	return c, agg.Tables(c)
}

func gap(c *capture.Capture, k capture.Kind, program string, count int64, figures ...capture.Count) *capture.Gap {
	g := c.Accounting.Gap(k, program)
	g.Summary = "test"
	g.AddN(count)
	for _, f := range figures {
		g.SetFigure(f.Name, f.Count)
	}
	return g
}

func TestSizeEachMeasure(t *testing.T) {
	for _, tc := range []struct {
		name    string
		kind    capture.Kind
		program string
		count   int64
		figures []capture.Count
		want    capture.Affected
		basis   string // a word the basis must hold
	}{
		{"unresolved names, whole capture (ns and ticks apart)", capture.UnresolvedName, "", 2, nil, capture.Affected{Known: true, Touched: capture.Touched{UnattributedNs: 100, UnattributedTicks: 30}}, "no catalog"},
		{"unresolved names, one program", capture.UnresolvedName, "prefill", 1, nil, capture.Affected{Known: true, Touched: capture.Touched{UnattributedNs: 100}}, "no catalog"},
		{"no launch call, from the tables", capture.GPUEventWithoutLaunch, "", 3, nil, capture.Affected{Known: true, Touched: capture.Touched{UnattributedNs: 400}}, "launch call"},
		{"unrecorded device work, its total_ns figure", capture.UnrecordedDeviceWork, "", 2, []capture.Count{{Name: "total_ns", Count: 250}}, capture.Affected{Known: true, Touched: capture.Touched{MissingNs: 250}}, "waits"},
		{"contained events, counted twice", capture.ContainedEvents, "", 1, []capture.Count{{Name: "total_ns", Count: 70}}, capture.Affected{Known: true, Touched: capture.Touched{UnattributedNs: 70}}, "twice"},
		{"a negative missing figure touches nothing", capture.UnrecordedDeviceWork, "", 1, []capture.Count{{Name: "total_ns", Count: -250}}, capture.Affected{Known: true}, "waits"},
		{"a negative unattributed figure touches nothing", capture.ContainedEvents, "", 1, []capture.Count{{Name: "total_ns", Count: -70}}, capture.Affected{Known: true}, "twice"},
		{"untraced graph kernels without their figure: unknown", capture.GraphKernelsUntraced, "", 4, nil, capture.Affected{Known: false}, "absent"},
		{"untraced graph kernels with their figure", capture.GraphKernelsUntraced, "", 4, []capture.Count{{Name: "graph_gpu_ns", Count: 900}}, capture.Affected{Known: true, Touched: capture.Touched{MissingNs: 900}}, "graph"},
		{"a cut: unknown, never 0", capture.TruncatedInput, "", 1, nil, capture.Affected{Known: false}, "cut"},
		{"unfinished dispatches: lost, time unknown", capture.UnfinishedDispatch, "decode", 2, nil, capture.Affected{Known: false, Touched: capture.Touched{LostDispatches: 2}}, "never finished"},
		{"dropped records: lost from the figure", capture.DroppedRecords, "", 1, []capture.Count{{Name: "dropped_dispatches", Count: 94}}, capture.Affected{Known: false, Touched: capture.Touched{LostDispatches: 94}}, "dropped"},
		{"a repeat counted once touches nothing", capture.DuplicateEvent, "", 3, nil, capture.Affected{Known: true}, "once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var g *capture.Gap
			c, _ := sizedCase(t, func(c *capture.Capture) { g = gap(c, tc.kind, tc.program, tc.count, tc.figures...) })
			got := *g.Affected
			basis := got.Basis
			got.Basis = ""
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if !strings.Contains(basis, tc.basis) {
				t.Errorf("basis: got %q, want it to say %q", basis, tc.basis)
			}
			if tot := c.Accounting.Affected; tot == nil || tot.DeviceNs != 1000 || tot.DeviceTicks != 80 {
				t.Errorf("totals %+v, want device 1000 ns and 80 ticks", tot)
			}
		})
	}
}

// The totals and the gate: 30% missing (300 of 700 + 300) fails a 1%
// gate with or without accepting the cut; a cut alone fails it unless
// accepted; a reader's own figure is kept; notes touch nothing.
func TestTotalsAndGate(t *testing.T) {
	c, _ := sizedCase(t, func(c *capture.Capture) {
		gap(c, capture.UnrecordedDeviceWork, "", 1, capture.Count{Name: "total_ns", Count: 3000 / 7}) // ≈ 30% of 1000+428
		gap(c, capture.TruncatedInput, "", 1)
		n := gap(c, capture.GraphLaunch, "", 5) // a note: never sized
		_ = n
		own := gap(c, capture.InconsistentTrace, "", 1)
		own.Affected = &capture.Affected{Known: true, Touched: capture.Touched{MissingNs: 1}, Basis: "the reader's own figure"}
	})
	tot := c.Accounting.Affected
	if tot.MissingNs != 428+1 || len(tot.Unknown) != 1 || tot.Unknown[0] != capture.TruncatedInput {
		t.Fatalf("totals %+v, want 429 ns missing and truncated_input unknown", tot)
	}
	if s := tot.Share(); s < 0.29 || s > 0.31 {
		t.Errorf("share %.3f, want ≈ 0.30", s)
	}
	if g := c.Accounting.Find(capture.GraphLaunch); g.Affected != nil {
		t.Errorf("graph_launch (a note): got affected %+v, want none", g.Affected)
	}
	if g := c.Accounting.Find(capture.InconsistentTrace); g.Affected.Basis != "the reader's own figure" {
		t.Errorf("inconsistent_trace: got basis %q, want the reader's own figure kept", g.Affected.Basis)
	}
	accept := map[capture.Kind]bool{capture.TruncatedInput: true}
	if why := c.Accounting.Gate(tot.DeviceNs, tot.DeviceTicks, 0.01, accept); len(why) != 1 {
		t.Errorf("30%% missing, cut accepted: %v, want one reason (the share)", why)
	}
	if why := c.Accounting.Gate(tot.DeviceNs, tot.DeviceTicks, 0.01, nil); len(why) != 2 {
		t.Errorf("30%% missing, cut not accepted: %v, want two reasons", why)
	}
	if why := c.Accounting.Gate(tot.DeviceNs, tot.DeviceTicks, 0.5, accept); len(why) != 0 {
		t.Errorf("under a 50%% gate with the cut accepted: %v, want a pass", why)
	}
	// A cut alone.
	cut, _ := sizedCase(t, func(c *capture.Capture) { gap(c, capture.TruncatedInput, "", 1) })
	ct := cut.Accounting.Affected
	if why := cut.Accounting.Gate(ct.DeviceNs, ct.DeviceTicks, 0.01, accept); len(why) != 0 {
		t.Errorf("a cut accepted: %v, want a pass", why)
	}
	if why := cut.Accounting.Gate(ct.DeviceNs, ct.DeviceTicks, 0.01, nil); len(why) != 1 {
		t.Errorf("a cut not accepted: %v, want one reason", why)
	}
}
