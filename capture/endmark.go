package capture

import "strings"

// NoEndMarker adds the no_end_marker note: the input's format has no end
// marker, so a cut between two units ("line", "row") cannot be detected,
// and a verdict of complete holds only up to the last unit read. summary
// says why for this input (kept from the first call); it returns the note
// for items.
func (a *Accounting) NoEndMarker(unit, summary string) *Gap {
	g := a.Gap(NoEndMarker, "")
	if g.Summary == "" {
		g.Summary = summary
	}
	switch {
	case a.CutUnit == "":
		a.CutUnit = unit
	case !containsWord(strings.Split(a.CutUnit, " or "), unit):
		a.CutUnit += " or " + unit // many inputs: "line or row"
	}
	return g
}

func containsWord(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}
