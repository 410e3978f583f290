package inputs

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/units"
)

// unusedSummary is the unused_option note's sentence, after the flags:
// named there too, for the outputs that show a gap's summary alone.
const unusedSummary = "options given that no input's reader uses (each item names the readers that do): they changed nothing in what was read. Check that the inputs are the ones meant, or leave the option out"

// noteUnused states, as one unused_option note in a, every reader option
// given in ro that no input of ins was read by a reader that uses it
// (format.Format.Uses): `--manifests DIR` with a Kineto trace names no
// kernel, and must not look as if it did. The time breakdown uses two of
// them beside the readers: --spill-limit bounds its spill (every input it
// was made for), --unrecorded-wait classifies the waits of dispatches with
// a launch call.
func noteUnused(a *capture.Accounting, ro *format.Options, ins []analysis.Input) {
	given := ro.Given()
	if len(given) == 0 {
		return
	}
	var flags []string
	var items []capture.Item
	for _, o := range given {
		if !usedBy(o.Option, ins) {
			flags = append(flags, o.Option.Flag())
			items = append(items, capture.Item{What: unusedWhat(o, ins)})
		}
	}
	if len(items) == 0 {
		return
	}
	g := a.Gap(format.UnusedOption, "")
	g.Summary = strings.Join(flags, ", ") + ": " + unusedSummary
	for _, it := range items {
		g.Add(it)
	}
	a.SortGaps()
}

// usedBy reports whether an input of ins was read by a reader that uses
// opt, or had it used by its time breakdown.
func usedBy(opt format.Option, ins []analysis.Input) bool {
	for i := range ins {
		in := &ins[i]
		if in.Err != nil || in.Capture == nil {
			continue
		}
		if format.Uses(in.Capture.Source.Format, opt) {
			return true
		}
		switch bd := in.Breakdown; {
		case bd == nil:
		case opt == format.OptSpillLimit:
			return true
		case opt == format.OptUnrecordedWait && launched(bd):
			return true
		}
	}
	return false
}

// launched reports whether the breakdown saw a dispatch with a launch
// call: only their waits are held against --unrecorded-wait.
func launched(bd *analysis.Breakdown) bool {
	for _, p := range bd.Programs {
		if p.Launched > 0 {
			return true
		}
	}
	return false
}

// unusedWhat is the note's item for o: the option, its value, the readers
// that use it, and what read the inputs instead.
func unusedWhat(o format.Given, ins []analysis.Input) string {
	users := strings.Join(format.Users(o.Option), ", ")
	if users == "" {
		users = "none is registered"
	}
	what := fmt.Sprintf("%s %s: no input was read by a reader that uses it (%s)", o.Option.Flag(), o.Value, users)
	if o.Option == format.OptUnrecordedWait && breakdownMade(ins) {
		what += " or records launch calls, whose waits the time breakdown holds against it"
	}
	return what + "; " + readBy(ins)
}

func breakdownMade(ins []analysis.Input) bool {
	for _, in := range ins {
		if in.Breakdown != nil {
			return true
		}
	}
	return false
}

// readBy says which readers read the inputs: "1 input read by kineto",
// "3 inputs read by rocprof, 1 by kineto; 1 input could not be read".
func readBy(ins []analysis.Input) string {
	n := map[string]int64{}
	var failed int64
	for _, in := range ins {
		if in.Err != nil || in.Capture == nil {
			failed++
			continue
		}
		n[in.Capture.Source.Format]++
	}
	names := make([]string, 0, len(n))
	for name := range n {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(n[b], n[a]), cmp.Compare(a, b)) })
	var parts []string
	for i, name := range names {
		if i == 0 {
			parts = append(parts, units.Plural(n[name], "input", "inputs")+" read by "+name)
		} else {
			parts = append(parts, fmt.Sprintf("%d by %s", n[name], name))
		}
	}
	s := strings.Join(parts, ", ")
	if failed > 0 {
		if s != "" {
			s += "; "
		}
		s += units.Plural(failed, "input", "inputs") + " could not be read"
	}
	if s == "" {
		s = "no input"
	}
	return s
}
