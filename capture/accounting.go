package capture

import (
	"fmt"
	"sort"
)

// Accounting is what a capture says about its own completeness: how much
// input was read, used and skipped (by reason), and the gaps — everything
// that happened in the run but is not in the tables.
type Accounting struct {
	// Input counts the input per unit ("lines", "bytes", "records",
	// "events"). For each unit, Read == Used + sum of Skipped.
	Input []*InputCount `json:"input"`
	// Gaps, in the order they were first met.
	Gaps []*Gap `json:"gaps"`
}

// InputCount accounts for every unit of input of one kind.
type InputCount struct {
	Unit    string  `json:"unit"`
	Read    int64   `json:"read"`
	Used    int64   `json:"used"`
	Skipped []*Skip `json:"skipped"`
}

// Skip counts input that was read and not used, for one reason.
type Skip struct {
	Reason string `json:"reason"`
	Count  int64  `json:"count"`
	// First is where the first such unit was, e.g. "line 12" or "byte 2887".
	First string `json:"first,omitempty"`
}

// Complete reports whether the capture has no gap that makes it incomplete.
// Notes (Gap.Note) do not count.
func (a *Accounting) Complete() bool {
	for _, g := range a.Gaps {
		if !g.Note && g.Count > 0 {
			return false
		}
	}
	return true
}

// InputFor returns the count for unit, creating it on first use.
func (a *Accounting) InputFor(unit string) *InputCount {
	for _, in := range a.Input {
		if in.Unit == unit {
			return in
		}
	}
	in := &InputCount{Unit: unit}
	a.Input = append(a.Input, in)
	return in
}

// Skip records n units skipped for reason; first says where the first one was.
// Zero n is ignored so callers can pass their counters unconditionally.
func (in *InputCount) Skip(reason string, n int64, first string) {
	if n == 0 {
		return
	}
	for _, s := range in.Skipped {
		if s.Reason == reason {
			s.Count += n
			if s.First == "" {
				s.First = first
			}
			return
		}
	}
	in.Skipped = append(in.Skipped, &Skip{Reason: reason, Count: n, First: first})
}

// SkippedTotal sums the skipped units.
func (in *InputCount) SkippedTotal() int64 {
	var n int64
	for _, s := range in.Skipped {
		n += s.Count
	}
	return n
}

// Gap returns the gap of this kind (and program scope, "" for the whole
// capture), creating it with summary on first use.
func (a *Accounting) Gap(kind Kind, program string) *Gap {
	program, _ = CutName(program) // as AddProgram cut it
	for _, g := range a.Gaps {
		if g.Kind == kind && g.Program == program {
			return g
		}
	}
	g := &Gap{Kind: kind, Program: program, Note: kind.IsNote()}
	a.Gaps = append(a.Gaps, g)
	return g
}

// Find returns the first gap of kind, or nil.
func (a *Accounting) Find(kind Kind) *Gap {
	for _, g := range a.Gaps {
		if g.Kind == kind {
			return g
		}
	}
	return nil
}

// CountOf sums the counts of every gap of kind (over all program scopes).
func (a *Accounting) CountOf(kind Kind) int64 {
	var n int64
	for _, g := range a.Gaps {
		if g.Kind == kind {
			n += g.Count
		}
	}
	return n
}

// CheckValid verifies the accounting's own invariants: every input unit is
// used or skipped, and no gap claims fewer occurrences than it lists.
func (a *Accounting) CheckValid() error {
	for _, in := range a.Input {
		if in.Read != in.Used+in.SkippedTotal() {
			return fmt.Errorf("accounting: %d %s read but %d used + %d skipped", in.Read, in.Unit, in.Used, in.SkippedTotal())
		}
	}
	for _, g := range a.Gaps {
		if g.Kind == "" {
			return fmt.Errorf("accounting: gap without a kind")
		}
		if g.Count < int64(len(g.Items)) {
			return fmt.Errorf("accounting: gap %s counts %d but lists %d items", g.Kind, g.Count, len(g.Items))
		}
		if g.Count < 0 {
			return fmt.Errorf("accounting: gap %s has negative count", g.Kind)
		}
	}
	return nil
}

// SortGaps orders gaps so that the ones that make a capture incomplete come
// first, then notes, each group in order of first appearance.
func (a *Accounting) SortGaps() {
	sort.SliceStable(a.Gaps, func(i, j int) bool { return !a.Gaps[i].Note && a.Gaps[j].Note })
}
