package hrxserial

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// finishEnd closes what the end of input left open — a sync, a command, a
// run — and states the file's end (format/kept): a cut kept trace, a raw
// file without an end marker, or how the recorded command ended.
func (s *state) finishEnd() {
	// A command stopped from outside (the kept trace's end record says
	// SIGINT, SIGTERM, …) left its open sync and dispatch behind: that is
	// an interrupted run, not a device fault.
	stopped := s.end.Stopped()
	where := "between program runs (none was open)"
	if s.inv != nil {
		where = fmt.Sprintf("inside run %d of %s, which began at line %d", s.inv.n+1, s.inv.prog.label, s.inv.line)
	}
	if s.sync.open {
		it := capture.Item{
			What: fmt.Sprintf("sync-begin phase=%s never ended: the trace stops while waiting for the device", s.sync.phase),
			// The kernel, when known, is added below: it is the command the sync waited on.
			Where: s.where(s.sync.line),
		}
		if s.inv != nil {
			it.Program = s.inv.prog.label
		}
		if s.cmd.active && s.cmd.traced && string(s.sync.phase) == "command-post-dispatch" {
			it.Kernel = s.c.Kernels[s.kernelFor(s.cmd.prog, s.cmd.list, s.cmd.d.kernelID)].Name
			it.What = fmt.Sprintf("sync-begin phase=%s never ended: the trace stops while waiting for this kernel to finish", s.sync.phase)
		}
		if s.sync.timed {
			it.Time = capture.TimeOf(int64(s.sync.t))
		}
		if stopped != "" {
			where += ", waiting"
			if e := s.end.Ending; s.sync.timed && e.HasAt && e.At >= s.sync.t {
				// How long it waited tells a hang from a Ctrl-C.
				where += " " + units.NS(float64(e.At-s.sync.t))
			}
			where += fmt.Sprintf(" at sync-begin phase=%s (line %d)", s.sync.phase, s.sync.line)
			if it.Kernel != "" {
				where += " for " + it.Kernel + " to finish"
			}
		} else {
			g := s.c.Accounting.Gap(capture.DeviceFault, "")
			g.Summary = faultSummary
			g.Add(it)
		}
	}
	if s.cmd.active {
		reason := "the trace ended"
		if stopped != "" {
			reason = "the command was stopped by " + stopped
		}
		s.abandon(reason)
	}
	if s.inv != nil {
		s.closeInvocation("incomplete")
	}
	if g := s.end.Account(&s.c.Accounting, s.where, s.lineNo); g != nil && len(g.Items) > 0 {
		it := &g.Items[len(g.Items)-1]
		if stopped != "" {
			it.What += "; it stopped " + where + ": not a device fault"
		} else {
			it.What += "; it ended " + where
		}
	}
}
