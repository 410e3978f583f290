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
	// Affected sums what the gaps touch over the tables' device time; nil
	// until the tables are built (analysis sizes the gaps then).
	Affected *AffectedTotals `json:"-"`
	// CutUnit is set, with a no_end_marker note, when the input's format
	// has no end marker: a cut between two of these units ("line", "row")
	// reads like a complete input, so a complete capture is complete only
	// up to its last one. Empty when the end is checked.
	CutUnit string `json:"cut_unit,omitempty"`
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
	// Class says whether the skipped units could have held device work.
	Class SkipClass `json:"class"`
	// Gap is the kind of the gap that accounts for units of class
	// DeviceWorkLost (and GapProgram its program scope), so a report can
	// point from the input line to the gap; empty for NotDeviceWork.
	Gap        Kind   `json:"gap,omitempty"`
	GapProgram string `json:"gap_program,omitempty"`
}

// SkipClass classifies skipped input where it is recorded: a unit that
// held no device work (a host event, metadata, a blank line) is harmless;
// one that held device work — or may have, because it could not be read —
// is lost, and a lost unit is always a gap. There is no unclassified skip:
// a reader must say which it is (InputCount.Ignore or InputCount.Lose), and
// CheckValid refuses a lost unit that no gap accounts for.
type SkipClass string

const (
	// NotDeviceWork: host events, metadata, display or summary rows, blank
	// lines, comments — input that never described a dispatch.
	NotDeviceWork SkipClass = "not_device_work"
	// DeviceWorkLost: a dispatch record (or a unit that may hold one: a
	// line that does not parse, a cut record) that is not in the tables.
	DeviceWorkLost SkipClass = "device_work_lost"
	// CountedOnce: a unit that repeats one already read (an input file
	// named twice, a copy of another's bytes): its device work is in the
	// tables once, from the unit it repeats. It is no more harmless than
	// "not device work" says, and no lost work either.
	CountedOnce SkipClass = "counted_once"
)

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

// Ignore records n units skipped for reason that held no device work (host
// events, metadata, blank lines); first says where the first one was. Zero
// n is ignored so callers can pass their counters unconditionally.
func (in *InputCount) Ignore(reason string, n int64, first string) {
	in.skip(Skip{Reason: reason, Class: NotDeviceWork}, n, first)
}

// CountedOnce records n units skipped for reason because they repeat a
// unit already read, whose device work is in the tables: first names the
// repeat, and reason the unit it repeats.
func (in *InputCount) CountedOnce(reason string, n int64, first string) {
	in.skip(Skip{Reason: reason, Class: CountedOnce}, n, first)
}

// Lose records n units skipped for reason that held device work, or may
// have (they did not parse, or were cut), and names the gap that accounts
// for them. The reader counts the occurrences on g as it always does (with
// items and positions); CheckValid fails when g ends up without a count,
// so lost device work can never leave only a line in the input counts.
func (in *InputCount) Lose(g *Gap, reason string, n int64, first string) {
	if g == nil {
		panic("capture: InputCount.Lose needs the gap that accounts for the lost units")
	}
	in.skip(Skip{Reason: reason, Class: DeviceWorkLost, Gap: g.Kind, GapProgram: g.Program}, n, first)
}

// ScopeGap sets the program scope of gap g, one of a's gaps, and moves the
// skips it accounts for with it: a regrouping (--program-by) renames or
// merges the program a gap named, and a lost unit's skip must still point
// at the gap that accounts for it (CheckValid), in the report as in the
// check.
func (a *Accounting) ScopeGap(g *Gap, program string) {
	if g.Program == program {
		return
	}
	for _, in := range a.Input {
		moved := false
		for _, s := range in.Skipped {
			if s.Class == DeviceWorkLost && s.Gap == g.Kind && s.GapProgram == g.Program {
				s.GapProgram, moved = program, true
			}
		}
		if moved {
			// Two programs' skips now in one scope are one line, as skip
			// would have counted them.
			skipped := in.Skipped
			in.Skipped = nil
			for _, s := range skipped {
				in.skip(*s, s.Count, s.First)
			}
		}
	}
	g.Program = program
}

func (in *InputCount) skip(s Skip, n int64, first string) {
	if n == 0 {
		return
	}
	for _, have := range in.Skipped {
		if have.Reason == s.Reason && have.Class == s.Class && have.Gap == s.Gap && have.GapProgram == s.GapProgram {
			have.Count = SatAdd(have.Count, n)
			if have.First == "" {
				have.First = first
			}
			return
		}
	}
	s.Count, s.First = n, first
	in.Skipped = append(in.Skipped, &s)
}

// LostTotal sums the skipped units that held device work.
func (in *InputCount) LostTotal() int64 {
	var n int64
	for _, s := range in.Skipped {
		if s.Class == DeviceWorkLost {
			n = SatAdd(n, s.Count)
		}
	}
	return n
}

// SkippedTotal sums the skipped units.
func (in *InputCount) SkippedTotal() int64 {
	var n int64
	for _, s := range in.Skipped {
		n = SatAdd(n, s.Count)
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

// FindSkip returns the first skip of unit for reason, or nil.
func (a *Accounting) FindSkip(unit, reason string) *Skip {
	for _, in := range a.Input {
		if in.Unit != unit {
			continue
		}
		for _, s := range in.Skipped {
			if s.Reason == reason {
				return s
			}
		}
	}
	return nil
}

// CountOf sums the counts of every gap of kind (over all program scopes),
// saturating: a wrapped sum would read as no gap.
func (a *Accounting) CountOf(kind Kind) int64 {
	var n int64
	for _, g := range a.Gaps {
		if g.Kind == kind {
			n = SatAdd(n, g.Count)
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
		for _, s := range in.Skipped {
			if err := a.checkSkip(in.Unit, s); err != nil {
				return err
			}
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
		if err := checkSized(g); err != nil {
			return fmt.Errorf("accounting: %w", err)
		}
	}
	return nil
}

// checkSkip holds the skip classification rule: every skip is classified,
// and device work lost is accounted for by a counted gap that makes the
// capture incomplete.
func (a *Accounting) checkSkip(unit string, s *Skip) error {
	switch s.Class {
	case NotDeviceWork, CountedOnce:
		return nil
	case DeviceWorkLost:
		for _, g := range a.Gaps {
			if g.Kind == s.Gap && g.Program == s.GapProgram && g.Count > 0 && !g.Note {
				return nil
			}
		}
		return fmt.Errorf("accounting: %d %s skipped (%s) held device work, but no counted %s gap accounts for them", s.Count, unit, s.Reason, s.Gap)
	}
	return fmt.Errorf("accounting: %d %s skipped (%s) without a class: say whether they held device work (Ignore or Lose)", s.Count, unit, s.Reason)
}

// SortGaps orders gaps so that the ones that make a capture incomplete come
// first, then notes, each group in order of first appearance.
func (a *Accounting) SortGaps() {
	sort.SliceStable(a.Gaps, func(i, j int) bool { return !a.Gaps[i].Note && a.Gaps[j].Note })
}
