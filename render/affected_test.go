package render

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// The gaps' unattributed figures summed past the tables' own device time (a
// dispatch both unnamed and without a launch call is under two gaps) read
// "18.000 µs (112.5%) of device time in the tables" in the verdict (the
// fourth sweep: a Kineto trace with an invalid-UTF-8 kernel name). The
// tables' time is the bound, said to be one, with the sum beside it; a sum
// within the tables reads as before.
func TestAffectedClauseSumPastTables(t *testing.T) {
	c := &capture.Capture{}
	c.Accounting.Affected = &capture.AffectedTotals{DeviceNs: 16000, Touched: capture.Touched{UnattributedNs: 18000}}
	got := AffectedClause(c)
	want := "up to 16.000 µs (100.0%) of device time in the tables, not fully attributed (the gaps' figures sum to 18.000 µs: a dispatch under several gaps is in each)"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if strings.Contains(got, "112.5%") {
		t.Errorf("got %q, want no share above 100%%", got)
	}
	c.Accounting.Affected.UnattributedNs = 12000
	if got, want := AffectedClause(c), "12.000 µs (75.0%) of device time in the tables, not fully attributed"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
