package report

import (
	"errors"
	"reflect"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// Many inputs are gated as one: what each input's gaps touch is summed
// over the device time of all of them, and each kind of unknown size is
// named once, sorted, unless accepted.
func TestFailuresOfMany(t *testing.T) {
	a, b := input("a.trace"), input("b.trace")
	g := a.Capture.Accounting.Gap(capture.UnrecordedDeviceWork, "")
	g.AddN(1)
	g.Figures = []capture.Count{{Name: "total_ns", Count: 5}}
	for _, k := range []capture.Kind{capture.TruncatedInput, capture.ClockDecrease} {
		a.Capture.Accounting.Gap(k, "").AddN(1)
		b.Capture.Accounting.Gap(k, "").AddN(1)
	}
	for _, in := range []analysis.Input{a, b} {
		analysis.Size(in.Capture, in.Tables)
	}
	run := analysis.NewRun([]analysis.Input{a, b}, nil, true)
	for _, c := range []struct {
		gate Gate
		want []string
	}{
		// 5 ns missing over 2×10 ns in the tables and the 5 missing.
		{Gate{MaxAffected: 0.1}, []string{"gaps touch 20.0% of device time, more than 10.0%",
			"clock_decrease: how much it touches is unknown (accept it with --accept clock_decrease)",
			"truncated_input: how much it touches is unknown (accept it with --accept truncated_input)"}},
		{Gate{MaxAffected: 0.2, Accept: map[capture.Kind]bool{capture.TruncatedInput: true}},
			[]string{"clock_decrease: how much it touches is unknown (accept it with --accept clock_decrease)"}},
		{NoGate, nil},
	} {
		if got := c.gate.failuresOfMany(run); !reflect.DeepEqual(got, c.want) {
			t.Errorf("gate %+v: got %q, want %q", c.gate, got, c.want)
		}
	}
}

// The whole's own gaps (a failed input) are gated too, and --accept leaves
// them out as it does the inputs' gaps.
func TestFailuresOfManyWholeGaps(t *testing.T) {
	run := analysis.NewRun([]analysis.Input{input("a.trace"), {Path: "b.trace", Err: errors.New("cannot open")}}, nil, true)
	for _, c := range []struct {
		gate Gate
		want []string
	}{
		{Gate{MaxAffected: 0.2}, []string{"failed_input: how much it touches is unknown (accept it with --accept failed_input)"}},
		{Gate{MaxAffected: 0.2, Accept: map[capture.Kind]bool{capture.FailedInput: true}}, nil},
	} {
		if got := c.gate.failuresOfMany(run); !reflect.DeepEqual(got, c.want) {
			t.Errorf("gate %+v: got %q, want %q", c.gate, got, c.want)
		}
	}
}
