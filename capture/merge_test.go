package capture

import (
	"math"
	"reflect"
	"testing"
)

func TestAddRuns(t *testing.T) {
	p := Program{Name: "p", Instances: 2, InstanceStates: []Count{{"complete", 2}}}
	p.AddRuns(Program{Name: "p", Instances: 3, InstanceStates: []Count{{"complete", 1}, {"failed", 2}}})
	if p.Instances != 5 || len(p.InstanceStates) != 2 || p.InstanceStates[0] != (Count{"complete", 3}) || p.InstanceStates[1] != (Count{"failed", 2}) {
		t.Errorf("got %+v, want 5 runs: complete 3, failed 2", p)
	}
	// Absurd counts pin at the maximum; a wrapped, negative count would
	// read as no runs.
	big := Program{Name: "p", Instances: math.MaxInt64, InstanceStates: []Count{{"complete", math.MaxInt64}}}
	big.AddRuns(Program{Name: "p", Instances: 2, InstanceStates: []Count{{"complete", 2}}})
	if big.Instances != math.MaxInt64 || big.InstanceStates[0].Count != math.MaxInt64 {
		t.Errorf("got %d runs, %d complete, want both saturated at %d", big.Instances, big.InstanceStates[0].Count, int64(math.MaxInt64))
	}
}

func TestClockSameAs(t *testing.T) {
	a := Clock{Domain: "monotonic", Unit: "ns", Timed: true, Description: "one"}
	if b := a; !a.SameAs(Clock{Domain: "monotonic", Unit: "ns", Timed: true, Description: "other"}) || b.Description != "one" {
		t.Error("got different, want the same clock whatever its description")
	}
	for _, d := range []Clock{{Domain: "x", Unit: "ns", Timed: true}, {Domain: "monotonic", Unit: "ticks", Timed: true}, {Domain: "monotonic", Unit: "ns"}} {
		if a.SameAs(d) {
			t.Errorf("%+v: got the same clock as %+v, want different", d, a)
		}
	}
}

func TestGapAddAffected(t *testing.T) {
	var g Gap
	g.AddAffected(&AffectedTotals{Touched: Touched{MissingNs: 5, LostDispatches: 1}}, "sum")
	g.AddAffected(&AffectedTotals{Touched: Touched{MissingNs: 7, UnattributedTicks: 3}, Unknown: []Kind{TruncatedInput}}, "sum")
	g.AddAffected(&AffectedTotals{Unknown: []Kind{TruncatedInput, DeviceFault}}, "sum")
	af := g.Affected
	if af.MissingNs != 12 || af.UnattributedTicks != 3 || af.LostDispatches != 1 || af.Known {
		t.Errorf("got %+v, want 12 ns missing, 3 ticks unattributed, 1 lost, unknown", af)
	}
	if want := "sum; unknown size: truncated_input, device_fault"; af.Basis != want {
		t.Errorf("got basis %q, want %q", af.Basis, want)
	}
	var h Gap
	h.AddAffected(&AffectedTotals{Touched: Touched{MissingNs: 1}}, "sum")
	if !h.Affected.Known || h.Affected.Basis != "sum" {
		t.Errorf("got %+v, want known, basis \"sum\"", h.Affected)
	}
	h.AddAffected(nil, "sum")
	if h.Affected.Known {
		t.Error("an input not sized: got known, want unknown")
	}
}

// Summing totals adds every figure of the family (saturating, as a count
// from the input may be huge) and names each kind of unknown size once,
// in the order first seen.
func TestAffectedTotalsAdd(t *testing.T) {
	sum := AffectedTotals{DeviceNs: 10, DeviceTicks: 1, Touched: Touched{MissingNs: 1, LostDispatches: math.MaxInt64 - 1},
		Unknown: []Kind{TruncatedInput}}
	sum.Add(&AffectedTotals{DeviceNs: 20, DeviceTicks: 2, Touched: Touched{MissingNs: 2, UnattributedNs: 3, MissingTicks: 4, UnattributedTicks: 5, LostDispatches: 6},
		Unknown: []Kind{DeviceFault, TruncatedInput}})
	want := AffectedTotals{DeviceNs: 30, DeviceTicks: 3, Touched: Touched{MissingNs: 3, UnattributedNs: 3, MissingTicks: 4, UnattributedTicks: 5, LostDispatches: math.MaxInt64},
		Unknown: []Kind{TruncatedInput, DeviceFault}}
	if !reflect.DeepEqual(sum, want) {
		t.Errorf("got %+v, want %+v", sum, want)
	}
}
