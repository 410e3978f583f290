package kept

import (
	"bytes"
	"fmt"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// End follows what a kept trace says about its own end while a reader
// reads it: whether line 1 is a header, whether the header announces an
// end record, and the end record itself.
type End struct {
	Header bool // line 1 is a kept-trace header
	Due    bool // the header says end=1: the last line must be the end record
	Seen   bool // an end record was read
	Ending Ending
	Err    error // the end record did not parse
	Line   int64 // its line
	// After counts the lines after the end record; FirstAfter is the first.
	After, FirstAfter int64
	// RawSummary, when set by the reader, replaces the no_end_marker
	// summary of a file without a header (raw output).
	RawSummary string
}

// HeaderLine reads the keys of a version 1 header. Keys are read up to
// cmd=, which tally record writes last and quoted: a command's own text is
// never taken for a key.
func (e *End) HeaderLine(b []byte) {
	e.Header = true
	for _, f := range bytes.Fields(b) {
		if bytes.HasPrefix(f, []byte("cmd=")) {
			break
		}
		if string(f) == EndDue {
			e.Due = true
		}
	}
}

// Next is called for every non-blank line after line 1; it returns true
// when the line is the end record (the reader then counts it as used).
func (e *End) Next(b []byte, line int64) bool {
	if IsEnd(b) && !e.Seen {
		e.Seen, e.Line = true, line
		e.Ending, e.Err = ParseEnd(b)
		return true
	}
	if e.Seen {
		if e.After == 0 {
			e.FirstAfter = line
		}
		e.After++
	}
	return false
}

// Account turns the file's end into gaps at the end of a read, and returns
// the interrupted_recording gap (nil when the command ended with status 0)
// for the reader to say where in the run the command stopped. where names a
// line; last is the number of the file's last line.
func (e *End) Account(a *capture.Accounting, where func(int64) string, last int64) *capture.Gap {
	switch {
	case !e.Header:
		why := e.RawSummary
		if why == "" {
			why = "raw standard error has no end marker: a file cut at a line boundary (the program killed between two lines, a partial copy) reads like a complete one. Record with 'tally record': its kept traces end with an end record that says how the command ended"
		}
		g := a.NoEndMarker("line", why)
		if last > 0 {
			g.Add(capture.Item{What: "the file ends after this line; nothing says whether the program had ended", Where: where(last)})
		}
		return nil
	case !e.Due && !e.Seen:
		g := a.NoEndMarker("line", "this kept trace was written by a tally record without end records (its header has no end=1): a file cut at a line boundary reads like a complete one, and how the command ended was not recorded. Record with this tally to have both")
		g.Add(capture.Item{What: "kept trace without an end record (older tally record); the file ends after this line", Where: where(last)})
		return nil
	case !e.Seen:
		g := a.Gap(capture.TruncatedInput, "")
		if g.Summary == "" {
			g.Summary = "the kept trace has no end record, which tally record writes as its last line when the command ends: the recording was cut (tally record killed, the disk full, the file copied while it was written), so what the command did after the last line is missing"
		}
		g.Add(capture.Item{What: "no end record after the last line (the header announces one: end=1)", Where: where(last)})
		return nil
	}
	if e.After > 0 {
		g := a.Gap(capture.InconsistentTrace, "")
		if g.Summary == "" {
			g.Summary = "lines after the kept trace's end record: two recordings were joined or the file was appended to, so runs and counts may mix"
		}
		g.Add(capture.Item{What: fmt.Sprintf("%s after the end record of line %d", units.Plural(e.After, "line", "lines"), e.Line), Where: where(e.FirstAfter)})
	}
	if e.Err == nil && e.Ending.Clean() && e.Ending.Unread == "" {
		return nil
	}
	g := a.Gap(capture.InterruptedRecording, "")
	g.Summary = "the recorded command did not end by itself with status 0: it was stopped by a signal, crashed or failed, so the trace holds what it did up to there and a run it was inside is incomplete. A command stopped from outside (SIGINT, SIGTERM, SIGKILL, SIGHUP, SIGQUIT) is not reported as a device fault"
	if e.Err == nil && e.Ending.Clean() {
		g.Summary = "the recording was stopped before the command's output ended: the command had exited with status 0, but a process it started held its output open, and tally record stopped reading on a signal; what that process wrote after is not in the trace"
	}
	what := "the command ended: " + e.Ending.String()
	if e.Err != nil {
		what = fmt.Sprintf("the end record does not parse (%v): how the command ended is not known", e.Err)
	}
	g.Add(capture.Item{What: what, Where: where(e.Line)})
	return g
}

// Stopped names the signal that stopped the recorded command from outside
// (Ending.Stopped), or is "" when the file has no readable end record or
// the command was not stopped.
func (e *End) Stopped() string {
	if !e.Seen || e.Err != nil {
		return ""
	}
	return e.Ending.Stopped()
}

// Describe is the inventory's word on the file's end record.
func (e *End) Describe() string {
	switch {
	case e.Seen && e.Err != nil:
		return fmt.Sprintf("line %d, does not parse: %v", e.Line, e.Err)
	case e.Seen:
		return fmt.Sprintf("line %d: %s", e.Line, e.Ending)
	case e.Due:
		return "missing (the header announces one): the recording was cut"
	case e.Header:
		return "none (written by a tally record without end records)"
	}
	return "none (raw output)"
}
