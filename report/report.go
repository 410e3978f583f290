// Package report is `tally report` as a library call. What to report comes
// from inputs.Read, as for every command: an analysis.Run of one input or
// of many. Write renders it — one input's tables and accounting, or a
// section per input and then the merged tables per program with the
// accounting of the whole — as text or JSON (render/htmlreport writes the
// page), and ExitCode says how `tally report` ends, under the CI gate.
package report

import (
	"io"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/collectives"
	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/render"
)

// Write renders the run as text, or as JSON when asJSON (text options are
// ignored for JSON, which always holds every row). A run of one input is
// that input's report; it must have been read (run.Err is nil).
func Write(w io.Writer, run *analysis.Run, asJSON bool, opt render.TextOptions) error {
	return WriteWith(w, run, asJSON, opt, Extras{})
}

// Extras are the analyses of a run beyond its kernel tables that a report
// shows when they were made.
type Extras struct {
	// Collectives is the run's collectives matched across its ranks
	// (collectives.Analyze, after the read); nil: none, or not analysed.
	Collectives *collectives.Result
}

// WriteWith is Write with the extra analyses: their sections follow the
// tables in the text report and are members of the JSON document.
func WriteWith(w io.Writer, run *analysis.Run, asJSON bool, opt render.TextOptions, x Extras) error {
	if run.Many() {
		if asJSON {
			return writeManyJSON(w, run, x)
		}
		if err := writeManyText(w, run, opt); err != nil {
			return err
		}
		return render.CollectivesText(w, x.Collectives)
	}
	in := &run.Inputs[0]
	if asJSON {
		doc := render.BuildJSON(in.Capture, in.Tables)
		doc.Collectives = render.BuildCollectives(x.Collectives, run)
		doc.Breakdown = render.BuildBreakdown(in.Capture, in.Breakdown)
		return render.WriteJSON(w, doc)
	}
	opt.Breakdown = in.Breakdown
	if err := render.Text(w, in.Capture, in.Tables, opt); err != nil {
		return err
	}
	return render.CollectivesText(w, x.Collectives)
}

// ExitCode is the status `tally report` ends with for the run under the
// gate, and the reasons the affected check failed: 2 when no input could
// be read or one holds no dispatch event, 1 under --strict when anything
// is missing or when the affected check fails, else 0.
func ExitCode(run *analysis.Run, g Gate) (int, []string) {
	var (
		empty, complete bool
		why             []string
	)
	if run.Many() {
		a := &run.Whole.Accounting
		// An input that holds no dispatch event is an error as it is
		// alone, and as tally timeline and tally export have it: the
		// whole's accounting names it only among incomplete_input's items.
		empty = a.CountOf(capture.EmptyCapture) > 0 || int64(len(run.Inputs)) == a.CountOf(capture.FailedInput)
		for _, in := range run.Inputs {
			empty = empty || in.Capture != nil && in.Capture.Accounting.CountOf(capture.EmptyCapture) > 0
		}
		complete, why = run.Complete(), g.failuresOfMany(run)
	} else {
		a := &run.Inputs[0].Capture.Accounting
		empty, complete, why = a.CountOf(capture.EmptyCapture) > 0, a.Complete(), g.Failures(a)
	}
	switch {
	case empty:
		return exitcode.Error, nil
	case g.Strict && !complete:
		return exitcode.Failed, nil
	case len(why) > 0:
		return exitcode.Failed, why
	}
	return exitcode.OK, nil
}
