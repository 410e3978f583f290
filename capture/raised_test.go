package capture

import (
	"strings"
	"testing"
	"time"
)

// A ceiling raised above the default lets a two-hour dispatch into the
// tables, and a raised_ceiling note says so: one per dispatch longer than
// the default, none for one within it, none when the ceiling is the
// default (the dispatch is then an invalid_event). On a clock of ticks the
// default is ten times as many ticks.
func TestRaisedCeilingNote(t *testing.T) {
	const twoHours = int64(2 * time.Hour)
	for _, tc := range []struct {
		name               string
		unit               string
		ceiling, dur       int64
		passed, noted, bad int64
	}{
		{"raised, longer than an hour", "ns", int64(3 * time.Hour), twoHours, 1, 1, 0},
		{"raised, within an hour", "ns", int64(3 * time.Hour), int64(30 * time.Minute), 1, 0, 0},
		{"default", "ns", 0, twoHours, 0, 0, 1},
		{"lowered", "ns", int64(time.Minute), int64(30 * time.Minute), 0, 0, 1},
		{"raised, ticks within ten hours' worth", "ticks", int64(3 * time.Hour), twoHours, 1, 0, 0},
		{"raised, ticks past them", "ticks", int64(3 * time.Hour), 10 * twoHours, 1, 1, 0}, // 20 hours at 1 GHz, 2 at 10 GHz
	} {
		c, d := validCapture()
		c.Clock = Clock{Unit: tc.unit, Timed: true}
		var got Collect
		s := &Checked{Next: &got, Ceiling: tc.ceiling}
		long := *d
		long.Device = Interval{Begin: 1, End: 1 + tc.dur, Valid: true}
		s.Dispatch(c, &long)
		s.Finish(c)
		g := c.Accounting.Find(RaisedCeiling)
		noted := int64(0)
		if g != nil {
			noted = g.Count
			if !g.Note || len(g.Items) != 1 || !strings.Contains(g.Items[0].What, "in the tables") {
				t.Errorf("%s: got %+v, want a note with the dispatch as its item", tc.name, g)
			}
		}
		if int64(len(got.Dispatches)) != tc.passed || noted != tc.noted || c.Accounting.CountOf(InvalidEvent) != tc.bad {
			t.Errorf("%s: got %d passed, %d noted, %d invalid; want %d, %d, %d", tc.name, len(got.Dispatches), noted, c.Accounting.CountOf(InvalidEvent), tc.passed, tc.noted, tc.bad)
		}
		if !c.Accounting.Complete() && tc.bad == 0 {
			t.Errorf("%s: got incomplete, want the note not to make the capture incomplete", tc.name)
		}
		if err := c.CheckValid(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
