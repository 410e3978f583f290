package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// Gate is what makes `tally report` fail for CI: --strict (any gap), and
// --fail-if-affected (gaps touching more than a share of device time, or a
// gap of unknown size, leaving out the kinds accepted by name).
type Gate struct {
	Strict bool
	// MaxAffected is the share of device time (0..1) the gaps may touch;
	// negative turns the check off.
	MaxAffected float64
	// Accept names gap kinds the affected check leaves out (--accept).
	Accept map[capture.Kind]bool
}

// NoGate is a gate that never fails.
var NoGate = Gate{MaxAffected: -1}

// Failures says why the accounting fails the affected check, or nil.
func (g Gate) Failures(a *capture.Accounting) []string {
	if g.MaxAffected < 0 {
		return nil
	}
	var ns, ticks int64
	if t := a.Affected; t != nil {
		ns, ticks = t.DeviceNs, t.DeviceTicks
	}
	return a.Gate(ns, ticks, g.MaxAffected, g.Accept)
}

// failuresOfMany checks many inputs as one: each input's own gaps (the
// whole's incomplete_input stands for them, so it is not counted again)
// and the whole's other gaps, over the device time of all inputs.
func (g Gate) failuresOfMany(run *analysis.Run) []string {
	if g.MaxAffected < 0 {
		return nil
	}
	accept := map[capture.Kind]bool{capture.IncompleteInput: true}
	for k := range g.Accept {
		accept[k] = true
	}
	whole := run.Whole.Accounting.Totals(0, 0, accept)
	for _, r := range run.Inputs {
		if r.Capture == nil || r.Capture.Accounting.Affected == nil {
			continue
		}
		a := &r.Capture.Accounting
		t := a.Totals(a.Affected.DeviceNs, a.Affected.DeviceTicks, g.Accept)
		whole.Add(&t)
	}
	var why []string
	if s := whole.Share(); s > g.MaxAffected {
		why = append(why, fmt.Sprintf("gaps touch %.1f%% of device time, more than %.1f%%", 100*s, 100*g.MaxAffected))
	}
	slices.Sort(whole.Unknown)
	for _, k := range whole.Unknown {
		why = append(why, fmt.Sprintf("%s: how much it touches is unknown (accept it with --accept %s)", k, k))
	}
	return why
}

// ParseAccept turns --accept values into a set, refusing names that are no
// gap kind a reader registers (a typo would silently accept nothing).
func ParseAccept(kinds []string) (map[capture.Kind]bool, error) {
	out := map[capture.Kind]bool{}
	for _, k := range kinds {
		for _, one := range strings.Split(k, ",") {
			one = strings.TrimSpace(one)
			if one == "" {
				continue
			}
			if _, ok := capture.RuleOf(capture.Kind(one)); !ok {
				return nil, fmt.Errorf("--accept %s: not a gap kind (notes need no accepting; see docs/report-json.md for the kinds)", one)
			}
			out[capture.Kind(one)] = true
		}
	}
	return out, nil
}
