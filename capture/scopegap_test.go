package capture

import "testing"

// twoLost is an accounting with an invalid_event gap in programs p and q,
// each accounting for lost events (np and nq of them).
func twoLost(np, nq int64) (a *Accounting, gp, gq *Gap, in *InputCount) {
	a = &Accounting{}
	gp, gq = &Gap{Kind: InvalidEvent, Program: "p"}, &Gap{Kind: InvalidEvent, Program: "q"}
	gp.AddN(np)
	gq.AddN(nq)
	a.Gaps = []*Gap{gp, gq}
	in = a.InputFor("events")
	in.Read = np + nq
	in.Lose(gp, "bad ticks", np, "event 1")
	in.Lose(gq, "bad ticks", nq, "event 4")
	return a, gp, gq, in
}

// ScopeGap moves a gap to another program scope with the lost units it
// accounts for, and leaves the skips of other gaps where they were.
func TestScopeGap(t *testing.T) {
	a, g, _, in := twoLost(1, 1)
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
	a, gp, gq, in := twoLost(2, 3)
	a.ScopeGap(gp, "")
	a.ScopeGap(gq, "")
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
