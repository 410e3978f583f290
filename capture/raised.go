package capture

import "fmt"

// RaisedCeiling (a note) counts the dispatches in the tables that are
// longer than the default ceiling for one dispatch (MaxDuration, one hour
// on a ns clock): they are measurements only because the user raised the
// ceiling (--max-duration). A report of them says so, so that a report
// read later does not pass a two-hour kernel off as what any read of the
// trace would show.
const RaisedCeiling Kind = "raised_ceiling"

func init() { RegisterNote(RaisedCeiling) }

// raised notes d, which passed the raised ceiling ceil (in its clock's
// unit), when it is longer than the default.
func (s *Checked) raised(c *Capture, d *Dispatch, ceil int64) {
	def := inClockOf(c, d, MaxDuration)
	for _, iv := range []struct {
		name string
		i    Interval
	}{{"device", d.Device}, {"launch", d.Launch}} {
		if iv.i.Valid && iv.i.End-iv.i.Begin > def {
			g := pendingFor(&s.raisedLong, d.Program)
			g.add(dispatchItem(c, d, fmt.Sprintf("%s interval lasts %d, longer than the default ceiling of %d and within the raised %d: in the tables", iv.name, iv.i.End-iv.i.Begin, def, ceil)))
			return
		}
	}
}
