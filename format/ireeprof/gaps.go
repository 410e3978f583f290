package ireeprof

import (
	"github.com/tallyprof/tally/capture"
)

// Gap kinds this package defines beside the shared ones of capture/gap.go.
// They are part of the JSON schema: never rename one (docs/formats/ireeprof.md).
const (
	// UnendedSession: a session began and never ended in a bundle whose
	// header was finalised by another session's end.
	UnendedSession capture.Kind = "unended_session"
	// UnknownQueue: dispatch events on a (device, queue, stream) that no
	// queue record of their session describes.
	UnknownQueue capture.Kind = "unknown_queue"
	// RecordsOutsideSession: chunks (or ends) with no open session of
	// their session id.
	RecordsOutsideSession capture.Kind = "records_outside_session"
	// MalformedRecord: a record or typed record that breaks the length
	// rules; it is skipped with the rest of its chunk.
	MalformedRecord capture.Kind = "malformed_record"
	// UnknownRecord: a record type or content type tally does not know.
	UnknownRecord capture.Kind = "unknown_record"
	// AmbiguousSession: records written while several sessions with their
	// session id were open; the file cannot say which one they belong to.
	AmbiguousSession capture.Kind = "ambiguous_session"
	// MissingDispatchEvents: a session shows device work and that dispatch
	// events were requested, but holds none, while the capture has
	// dispatches elsewhere (when it has none at all: empty_capture).
	MissingDispatchEvents capture.Kind = "missing_dispatch_events"
	// NoClockFit (note): a device's ticks could not be fitted to ns; its
	// programs report ticks.
	NoClockFit capture.Kind = "no_clock_fit"
	// ClockExtrapolated (note): dispatches outside the tick range of their
	// session's clock samples.
	ClockExtrapolated capture.Kind = "clock_extrapolated"
	// LossesUnknown (JSONL): the JSONL does not carry the bundle's loss
	// records, so completeness cannot be checked.
	LossesUnknown capture.Kind = "losses_unknown"
	// ToolError (JSONL): iree-profile printed an error: its output stops there.
	ToolError capture.Kind = "tool_error"
)

// This package's kinds that describe without making the capture incomplete.
func init() {
	capture.RegisterNote(NoClockFit, ClockExtrapolated)
	capture.RegisterKind(UnendedSession, capture.UnknownSize("a session that never ended: what it recorded after its last chunk is unknown"))
	capture.RegisterKind(UnknownQueue, capture.Rule{Measure: capture.TouchesNone, Why: "in the tables, on a queue no record describes"})
	capture.RegisterKind(RecordsOutsideSession, capture.UnknownSize("chunks outside any session: what device work they held is unknown"))
	capture.RegisterKind(MalformedRecord, capture.UnknownSize("records that break the length rules: what device work they held is unknown"))
	capture.RegisterKind(UnknownRecord, capture.UnknownSize("records of types tally does not know: what they held is unknown"))
	capture.RegisterKind(AmbiguousSession, capture.UnknownSize("records that may belong to another session: how much is assigned wrongly is unknown"))
	capture.RegisterKind(MissingDispatchEvents, capture.UnknownSize("a session that ran device work and holds no dispatch event: how much ran is unknown"))
	capture.RegisterKind(LossesUnknown, capture.UnknownSize("the JSONL does not carry the bundle's loss records: what the bundle lost is unknown"))
	capture.RegisterKind(ToolError, capture.UnknownSize("iree-profile stopped with an error: what it did not print is unknown"))
}

// summaries are the fixed one-sentence summaries; kinds whose sentence
// depends on the file get theirs in finish.
var summaries = map[capture.Kind]string{
	capture.InvalidEvent: "these dispatch events have no usable times (a zero or reversed start/end tick: their completion was never timestamped), " +
		"so they are neither counted as dispatches nor timed as short ones; many of them mean the device had not finished that work when profiling ended.",
	capture.UnresolvedName: "these kernels have no name in their session's executable-functions (or executable-exports) records and are shown as " +
		"device<d>/executable<e>#<f>: record with executable metadata (HRX_PROFILE_MODE=dispatch writes it) or check the producer's function records.",
	MalformedRecord: "records that break the bundle's length rules were skipped with the rest of their chunk: the file is damaged, " +
		"and any dispatches in the skipped bytes are missing.",
	UnknownRecord: "records of a record type or content type tally does not know were skipped: if a newer IREE wrote them, " +
		"the data in them (possibly dispatches) is missing; check for a newer tally.",
	RecordsOutsideSession: "records that belong to no open session (a chunk before its SESSION_BEGIN or after its SESSION_END) were skipped: " +
		"the file's session structure is broken and their contents are missing from the tables.",
	UnknownQueue: "dispatch events on a device queue that no queue record of their session describes: they are kept and named " +
		"from the chunk header, but the queue metadata the producer should have written is missing.",
	AmbiguousSession: "several sessions with the same session id (one per GPU) were open at once, and the file does not say which one " +
		"these records belong to: tally gave each to the most recently begun one, so dispatches and clock samples may sit in the wrong GPU's session.",
	UnendedSession: "a session began and never ended, so the events still in the producer's buffers when it stopped are missing and " +
		"their number is unknown: make the program end profiling cleanly (HRX writes events only when profiling ends).",
	capture.DroppedRecords: "the producer dropped records and flagged their chunks truncated: the counts and times of the affected " +
		"content types are low; give the producer larger buffers, or flush more often.",
	capture.FailedSession: "a session ended with a non-OK status, so its recording failed and may lack events " +
		"(RESOURCE_EXHAUSTED: an event ring filled and the submitting call failed): rerun with less work per profile.",
	NoClockFit: "device ticks could not be converted to ns for these devices, so their programs report device ticks: " +
		"durations are exact in ticks but unavailable in ns.",
	capture.DuplicateEvent: "rows that repeat one already read (the same event id on the same stream, with the same times and dispatch) were counted once; " +
		"the repeats are not in the tables: iree-profile prints each event once, so the bundle holds a record twice or the output was concatenated — run tally on the .ireeprof bundle.",
	ClockExtrapolated: "these dispatches lie outside the tick range of their session's clock samples, so their host times are " +
		"extrapolated from the fit (durations are unaffected).",
}

// gap returns the gap of kind (scoped to program, "" = capture), creating it
// with its fixed summary.
func (r *reader) gap(k capture.Kind, program string) *capture.Gap {
	return gapOf(r.c, k, program)
}

func gapOf(c *capture.Capture, k capture.Kind, program string) *capture.Gap {
	g := c.Accounting.Gap(k, program)
	if g.Summary == "" {
		g.Summary = summaries[k]
	}
	return g
}

func itemAt(what string, off int64) capture.Item { return capture.Item{What: what, Where: at(off)} }

// addItem counts one occurrence and builds its item only while the gap still
// lists items, so a million invalid events do not format a million strings.
func addItem(g *capture.Gap, item func() capture.Item) {
	if len(g.Items) < capture.MaxItems {
		g.Add(item())
		return
	}
	g.Count++
	g.ItemsOmitted++
}

// lose counts one skipped unit that held device work, accounted for by g
// (which the caller counts), building the "first" position only once.
func lose(in *capture.InputCount, g *capture.Gap, reason string, first func() string) {
	for _, s := range in.Skipped {
		if s.Reason == reason && s.Class == capture.DeviceWorkLost && s.Gap == g.Kind && s.GapProgram == g.Program {
			s.Count = capture.SatAdd(s.Count, 1)
			return
		}
	}
	in.Lose(g, reason, 1, first())
}

// ignore counts one skipped unit that held no device work.
func ignore(in *capture.InputCount, reason string, first func() string) {
	for _, s := range in.Skipped {
		if s.Reason == reason && s.Class == capture.NotDeviceWork {
			s.Count = capture.SatAdd(s.Count, 1)
			return
		}
	}
	in.Ignore(reason, 1, first())
}
