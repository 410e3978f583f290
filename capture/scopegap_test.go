package capture

import "testing"

// ScopeGap moves a gap to another program scope with the lost units it
// accounts for, and leaves the skips of other gaps where they were.
func TestScopeGap(t *testing.T) {
	var a Accounting
	g := &Gap{Kind: InvalidEvent, Program: "p"}
	other := &Gap{Kind: InvalidEvent, Program: "q"}
	g.AddN(1)
	other.AddN(1)
	a.Gaps = []*Gap{g, other}
	in := a.InputFor("events")
	in.Read, in.Used = 3, 1
	in.Lose(g, "bad ticks", 1, "event 1")
	in.Lose(other, "bad ticks", 1, "event 2")
	if err := a.CheckValid(); err != nil {
		t.Fatalf("before: got %v, want a valid accounting", err)
	}
	a.ScopeGap(g, "")
	if err := a.CheckValid(); err != nil {
		t.Fatalf("after ScopeGap: got %v, want a valid accounting", err)
	}
	if g.Program != "" || in.Skipped[0].GapProgram != "" || in.Skipped[1].GapProgram != "q" {
		t.Errorf("got gap program %q, skips' gap programs %q and %q; want \"\", \"\" and q", g.Program, in.Skipped[0].GapProgram, in.Skipped[1].GapProgram)
	}
	// Renaming the gap's program alone is what regrouping did: the check
	// then finds no gap for the lost unit.
	g.Program = "renamed"
	if err := a.CheckValid(); err == nil {
		t.Error("a gap renamed without its skips: got a valid accounting, want the lost unit without a gap")
	}
}

// Two programs' lost units moved into one scope are one skip line, their
// counts summed, the first position kept.
func TestScopeGapMergesSkips(t *testing.T) {
	var a Accounting
	g1 := &Gap{Kind: InvalidEvent, Program: "p"}
	g2 := &Gap{Kind: InvalidEvent, Program: "q"}
	g1.AddN(2)
	g2.AddN(3)
	a.Gaps = []*Gap{g1, g2}
	in := a.InputFor("events")
	in.Read = 5
	in.Lose(g1, "bad ticks", 2, "event 1")
	in.Lose(g2, "bad ticks", 3, "event 4")
	a.ScopeGap(g1, "")
	a.ScopeGap(g2, "")
	if len(in.Skipped) != 1 || in.Skipped[0].Count != 5 || in.Skipped[0].First != "event 1" {
		var got []Skip
		for _, s := range in.Skipped {
			got = append(got, *s)
		}
		t.Fatalf("got skips %+v, want one of 5 first at event 1", got)
	}
	if err := a.CheckValid(); err != nil {
		t.Fatalf("got %v, want a valid accounting", err)
	}
}
