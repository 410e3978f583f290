package analysis

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// recording is an input of n dispatches, the i-th of kernel k<i%3> from
// start+i·1000 for 500+i ns (in the order given by order, when set), on
// clock; its Earliest signatures as inputs.Read keeps them.
func recording(path string, clock capture.Clock, start int64, n int, order func(int) int) Input {
	c := &capture.Capture{Clock: clock}
	p := c.AddProgram(capture.Program{Name: "p", Instances: 1})
	var ks []capture.KernelID
	for j := range 3 {
		ks = append(ks, c.AddKernel(capture.Kernel{Program: p, Name: fmt.Sprintf("k%d", j), Resolved: true}))
	}
	a, e := NewAggregator(), &Earliest{}
	for x := range n {
		i := x
		if order != nil {
			i = order(x)
		}
		d := &capture.Dispatch{Program: p, Kernel: ks[i%3], Queue: capture.NoQueue,
			Device: capture.Interval{Begin: start + int64(i)*1000, End: start + int64(i)*1000 + 500 + int64(i), Valid: true}}
		a.Dispatch(c, d)
		e.Dispatch(c, d)
	}
	return Input{Path: path, Capture: c, Tables: a.Tables(c), Earliest: e.Signatures(c)}
}

// An input whose earliest dispatches are another's — the same recording
// in another file, whole, cut or read in another order — is a
// repeated_input gap of the whole naming both; recordings at other times,
// on another clock, or too short to tell are not.
func TestRepeatedInput(t *testing.T) {
	wall := capture.Clock{Domain: "unix-epoch", Unit: "ns", Timed: true}
	reverse := func(n int) func(int) int { return func(x int) int { return n - 1 - x } }
	for _, tc := range []struct {
		name string
		ins  []Input
		want []string // items: "where: what" prefixes
	}{
		{"the same recording twice", []Input{recording("a", ns, 1e9, 200, nil), recording("b", ns, 1e9, 200, nil)},
			[]string{"b: 64 of its 64 earliest dispatches are a's"}},
		{"a cut copy, read in reverse", []Input{recording("a", ns, 1e9, 200, nil), recording("cut", ns, 1e9, 30, reverse(30))},
			[]string{"cut: 30 of its 30 earliest dispatches are a's"}},
		{"two copies of one", []Input{recording("a", ns, 1e9, 100, nil), recording("b", ns, 5e9, 100, nil), recording("a2", ns, 1e9, 100, nil), recording("a3", ns, 1e9, 100, nil)},
			[]string{"a2: 64 of its 64 earliest dispatches are a's", "a3: 64 of its 64 earliest dispatches are a's"}},
		{"other times", []Input{recording("a", ns, 1e9, 100, nil), recording("b", ns, 1e9+1, 100, nil)}, nil},
		{"another clock", []Input{recording("a", ns, 1e9, 100, nil), recording("b", wall, 1e9, 100, nil)}, nil},
		{"too few to tell", []Input{recording("a", ns, 1e9, 7, nil), recording("b", ns, 1e9, 7, nil)}, nil},
		{"shifted in time", []Input{recording("a", ns, 1e9, 64, nil), recording("b", ns, 1e9+40_000, 64, nil)}, nil},
		{"a third shared", []Input{recording("a", ns, 1e9, 64, nil), recording("b", ns, 1e9, 64, func(x int) int {
			if x < 21 {
				return x
			}
			return x + 1000
		})}, nil},
		{"three in four shared", []Input{recording("a", ns, 1e9, 64, nil), recording("b", ns, 1e9, 64, func(x int) int {
			if x < 48 {
				return x
			}
			return x + 1000
		})}, []string{"b: 48 of its 64 earliest dispatches are a's"}},
	} {
		run := NewRun(tc.ins, nil, true)
		g := run.Whole.Accounting.Find(capture.RepeatedInput)
		var got []string
		if g != nil {
			for _, it := range g.Items {
				got = append(got, it.Where+": "+it.What)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: repeated_input items %q, want %q", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], tc.want[i]) {
				t.Errorf("%s: item %q, want %q", tc.name, got[i], tc.want[i])
			}
		}
		if complete := run.Complete(); complete != (len(tc.want) == 0) {
			t.Errorf("%s: complete %v, want %v", tc.name, complete, len(tc.want) == 0)
		}
	}
}

// The kept dispatches are the earliest, whatever order they arrive in; a
// dispatch without a device time or known only in aggregate is not kept.
func TestEarliestKeepsTheEarliest(t *testing.T) {
	c := &capture.Capture{Clock: ns}
	p := c.AddProgram(capture.Program{Name: "p"})
	k := c.AddKernel(capture.Kernel{Program: p, Name: "k"})
	e := &Earliest{}
	for i := 199; i >= 0; i-- {
		e.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k, Device: capture.Interval{Begin: int64(i), End: int64(i) + 1, Valid: true}})
	}
	e.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k})
	e.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k, Device: capture.Interval{Begin: -5, End: -4, Valid: true}, Aggregate: &capture.Aggregate{Count: 3}})
	if len(e.h) != earliestN {
		t.Fatalf("kept %d, want %d", len(e.h), earliestN)
	}
	for _, s := range e.h {
		if s.begin < 0 || s.begin >= earliestN {
			t.Errorf("kept a dispatch at %d, want only the %d earliest (0–%d)", s.begin, earliestN, earliestN-1)
		}
	}
}
