package ireeprof

// Spec §10: is a session without dispatch events a loss, and can tally tell?

import (
	"fmt"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// verdict is spec §10's inference for a session without dispatch events.
type verdict int

const (
	vHas           verdict = iota // the session holds dispatch events
	vRequestedNone                // requested, work happened, none recorded
	vCannotTell                   // the session or file is incomplete
	vNoWork                       // requested, but nothing shows work ran
	vNotRequested                 // no sign dispatch events were requested
)

func (r *reader) verdict(s *session) (verdict, string) {
	if s.dispatchEvents > 0 {
		return vHas, fmt.Sprintf("%d dispatch events", s.dispatchEvents)
	}
	var why []string
	if !s.ended {
		why = append(why, "the session did not end")
	} else if s.status != 0 {
		why = append(why, "the session ended with status "+statusName(s.status))
	}
	if r.hdr.hasFileLength && r.hdr.fileLength == 0 {
		why = append(why, "the bundle was never finalised")
	}
	if r.stop.kind != stopEnd || (r.hdr.finalised() && r.hdr.fileLength > uint64(r.size)) {
		why = append(why, "the file is cut")
	}
	var trunc int64
	for t := range s.ct {
		trunc += s.ct[t].truncated
	}
	if trunc > 0 {
		why = append(why, fmt.Sprintf("%s flagged truncated", units.Plural(trunc, "chunk was", "chunks were")))
	}
	if len(why) > 0 {
		return vCannotTell, "no dispatch events, and tally cannot tell whether any were recorded: " + strings.Join(why, ", ")
	}
	work := s.workQueueOps + s.workCommandOps + s.executables
	if s.clockChunks == 0 {
		return vNotRequested, "no dispatch events and no clock-correlation chunk: dispatch events were probably not requested (HRX_PROFILE_MODE=queue or unset records none)"
	}
	if work == 0 {
		return vNoWork, fmt.Sprintf("no dispatch events; %s but no sign that work ran (no executables, dispatch operations or queue device dispatch/execute events)",
			units.Plural(s.clockChunks, "clock-correlation chunk", "clock-correlation chunks"))
	}
	return vRequestedNone, fmt.Sprintf("dispatch events requested, none recorded: %s, %s, %s and %s, but no dispatch-events chunk; the session ended OK",
		units.Plural(s.clockChunks, "clock-correlation chunk", "clock-correlation chunks"),
		units.Plural(s.executables, "executable", "executables"),
		units.Plural(s.workCommandOps, "dispatch command operation", "dispatch command operations"),
		units.Plural(s.workQueueOps, "queue device event of type dispatch or execute", "queue device events of type dispatch or execute"))
}

// presenceGaps says when dispatch events are absent: for the whole capture
// (empty_capture) or for one session of a capture that has some elsewhere.
func (r *reader) presenceGaps() {
	var total int64
	for _, s := range r.sessions {
		total += s.dispatchEvents + s.hostDispatches + s.hostInvalid
	}
	if total == 0 {
		r.noDispatches()
		return
	}
	for _, s := range r.sessions {
		if v, why := r.verdict(s); v == vRequestedNone {
			g := r.gap(MissingDispatchEvents, "")
			g.Summary = "a session shows that dispatch events were requested and that device work ran, yet holds no dispatch event, so that work is missing from the tables: " +
				"check for a submission path that does not retain profile metadata (e.g. hrx_graph before ROCm/hrx-system PR #677) or an exit without clean shutdown."
			g.Add(itemAt(fmt.Sprintf("%s: %s", s.label(), why), s.beginOff))
		}
	}
}

// noDispatches reports a capture without a single dispatch event.
func (r *reader) noDispatches() {
	g := r.gap(capture.EmptyCapture, "")
	best := vHas
	var cannot string
	for _, s := range r.sessions {
		v, why := r.verdict(s)
		g.Add(itemAt(fmt.Sprintf("%s: %s", s.label(), why), s.beginOff))
		if best == vHas || v < best {
			best = v
		}
		if v == vCannotTell && cannot == "" {
			cannot = why[strings.Index(why, ": ")+2:]
		}
	}
	switch {
	case len(r.sessions) == 0:
		g.Add(capture.Item{What: "the bundle holds no session"})
		g.Summary = "the capture holds no dispatch events: the bundle holds no session at all, so profiling never began or the file was cut before it; check that HRX_PROFILE_FILE was set when the device was created, and keep the whole file."
	case best == vRequestedNone:
		g.Summary = "the capture holds no dispatch events, although dispatch events were requested (clock samples) and device work ran: check for a submission path that did not retain profile metadata (e.g. hrx_graph before ROCm/hrx-system PR #677 recorded none) and that the program shut down cleanly."
	case best == vCannotTell:
		g.Summary = "the capture holds no dispatch events, and tally cannot tell whether any were recorded (" + cannot + "): events still in the producer's buffers are lost, so make the program end profiling cleanly (HRX writes events only when profiling ends) and keep the whole file."
	case best == vNoWork:
		g.Summary = "the capture holds no dispatch events and shows no work that would have made any: check that the program ran its workload while profiling was on."
	default:
		g.Summary = "the capture holds no dispatch events and shows no sign they were requested (no clock-correlation samples): record with HRX_PROFILE_MODE=dispatch (or all)."
	}
}
