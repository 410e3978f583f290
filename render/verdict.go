package render

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// CompleteVerdict is the verdict line of a complete capture. A capture whose
// input has no end marker (a no_end_marker note: Accounting.CutUnit) is
// complete only up to its last line or row — a cut at a boundary reads like
// a whole file — so the bare COMPLETE sentence is never said of it.
func CompleteVerdict(c *capture.Capture) string {
	unit := c.Accounting.CutUnit
	if unit == "" {
		return "COMPLETE: every input unit is accounted for and no gap was found"
	}
	upTo, what := "the last "+unit, "this input has no end marker"
	if c.Source.Format == "many" { // the merged view of many inputs
		var n int64
		if g := c.Accounting.Find(capture.NoEndMarker); g != nil {
			n = g.Count
		}
		upTo, what = "each input's last "+unit, units.Plural(n, "input has", "inputs have")+" no end marker"
	}
	return fmt.Sprintf("COMPLETE up to %s: %s, so a cut at a %s boundary cannot be detected; everything before it is accounted for", upTo, what, unit)
}
