// Package exportcmd runs tally export once internal/cli has parsed its
// flags. It is apart from internal/cli because it links the export package,
// and with it Parquet and pprof, which only tally-full carries: their
// package initialisation would otherwise cost every tally command tens of
// milliseconds of start-up.
package exportcmd

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/export"
	"github.com/tallyprof/tally/internal/cli"
	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/internal/units"
)

// Run is cli.Exporter: the export r asks for, its summary on stderr, and
// its exit status.
func Run(r cli.ExportRequest, stdout, stderr io.Writer) int {
	if r.Check != "" {
		return check(r.Check, stdout, stderr)
	}
	res, err := export.Run(r.Inputs, export.Options{To: r.To, Out: r.Out, Stdout: stdout, Format: r.Read.Format, Reader: r.Read.Reader, PerKernel: r.PerKernel, PerOp: r.PerOp})
	if err != nil {
		safetext.Fprintf(stderr, "tally export: %v\n", err)
		return exitcode.Error
	}
	for _, sk := range res.Run.Skipped {
		safetext.Fprintf(stderr, "tally export: skipped %s: %s\n", sk.Path, sk.Reason)
	}
	summary(stderr, r.To, r.Out, res)
	switch {
	case res.Empty:
		return exitcode.Error
	case r.Strict && !res.Complete:
		return exitcode.Failed
	}
	return exitcode.OK
}

// summary says on standard error what was written and, loudly, which
// inputs hold no dispatch event or have gaps: an export's exit status alone
// (2, 1) would leave the user to guess why.
func summary(stderr io.Writer, to, out string, res *export.Result) {
	var records, incomplete, upTo int64
	for i, in := range res.Run.Inputs {
		records += res.Written[i].Records
		acct := &in.Capture.Accounting
		if g := acct.Find(capture.EmptyCapture); g != nil && g.Count > 0 {
			safetext.Fprintf(stderr, "tally export: NO DISPATCH RECORDED in %s: %s\n", in.Path, g.Summary)
		}
		if !acct.Complete() {
			incomplete++
		} else if acct.CutUnit != "" {
			upTo++
		}
	}
	if out == "-" {
		out = "standard output"
	}
	verdict := "complete"
	if upTo > 0 {
		verdict = fmt.Sprintf("complete up to the last line or row of %s without an end marker (a cut there cannot be seen)", units.Plural(int64(upTo), "input", "inputs"))
	}
	if incomplete > 0 {
		which := fmt.Sprintf("%d of %d inputs have", incomplete, len(res.Run.Inputs))
		switch {
		case len(res.Run.Inputs) == 1:
			which = "the input has"
		case incomplete == 1:
			which = fmt.Sprintf("1 of %d inputs has", len(res.Run.Inputs))
		}
		verdict = fmt.Sprintf("INCOMPLETE: %s gaps (listed in the output's accounting)", which)
	} else if !res.Complete {
		verdict = "INCOMPLETE: the run has gaps of its own (" + runGapKinds(&res.Run.Whole.Accounting) + ": the accounting's rows of input -1)"
	}
	fmt.Fprintf(stderr, "tally export: %s written to %s: %s, %s; %s\n", to, out, units.Plural(int64(len(res.Run.Inputs)), "input", "inputs"), units.Plural(int64(records), "record", "records"), verdict)
}

// runGapKinds names the kinds of the run's own gaps, with their counts
// ("unmatched_collective 2, collective_ranks_missing 1"): the line listed
// every kind a run can have before, so an export whose collectives missed
// a rank said "one recording read twice, two inputs of one rank" too.
func runGapKinds(a *capture.Accounting) string {
	var parts []string
	for _, g := range a.Gaps {
		if !g.Note && g.Count > 0 && g.Kind != capture.IncompleteInput {
			parts = append(parts, fmt.Sprintf("%s %d", g.Kind, g.Count))
		}
	}
	return strings.Join(parts, ", ")
}

// check is tally export --check OUT.
func check(out string, stdout, stderr io.Writer) int {
	gaps, p, err := export.CheckOutput(out)
	if err != nil {
		safetext.Fprintf(stderr, "tally export: %v\n", err)
		if errors.Is(err, export.ErrNotOnePair) {
			return exitcode.Failed
		}
		return exitcode.Error
	}
	if _, err := fmt.Fprintf(stdout, "%s and %s are one export: export_id %s (written %s), %d rows\n", out, gaps, p.ExportID, p.Written.Format(time.RFC3339), p.Rows); err != nil {
		return exitcode.Error
	}
	return exitcode.OK
}
