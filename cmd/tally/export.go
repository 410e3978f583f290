package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/export"
	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/internal/units"
)

func cmdExport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("export", "Usage: tally export --to FORMAT [flags] FILE|DIR... -o OUT\n       tally export --check OUT\n\nReads each FILE (format detected from its content) and writes its dispatches as FORMAT,\nwith every input's accounting (gaps, skipped input, clock) beside or inside the output.\nA directory is expanded as in tally report (its traces are inputs, other files are listed\nas skipped); inputs are read in parallel where the format allows it.\nSee docs/export.md for the columns, schemas and example queries.\n\nFormats: "+strings.Join(export.Names, ", ")+"\n  csv, jsonl  one row per dispatch (or per kernel with --per-kernel); OUT.gaps.csv/.jsonl beside it\n  parquet     a dataset directory: dispatches/rank=R/, kernels, programs, breakdown, gaps, inputs\n  pprof       a profile for 'go tool pprof -symbolize=none' (device time and dispatch counts)\n  kineto      Kineto-compatible JSON for HTA and TraceLens: OUT.json[.gz]; several inputs: directory OUT/, one file each\n\nFlags:\n", stderr)
	var rf readerFlags
	rf.register(fs)
	to := choice(fs, "to", "", "output `FORMAT`: "+strings.Join(export.Names, ", "), export.Names, nil)
	out := fs.String("o", "", "output `PATH` (a directory for parquet; - for standard output with pprof and kineto)")
	perKernel := fs.Bool("per-kernel", false, "csv, jsonl: one row per (input, program, kernel) instead of per dispatch")
	perOp := fs.Bool("per-op", false, "the op table of tally report --by op (inner level, with FLOPs, bytes and the roofline; docs/ops.md): csv, jsonl: one row per (input, host op) instead of per dispatch; parquet: ops.parquet beside the other tables")
	strict := fs.Bool("strict", false, "exit 1 when an input is not complete (any gap); the export is written anyway")
	check := fs.String("check", "", "check that the csv/jsonl table `OUT` and its gaps file beside it are from one export (one export_id, the rows and bytes the gaps file states); exit 1 when not")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return exitcode.Error
	}
	if *check != "" {
		var others []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "check" {
				others = append(others, "--"+f.Name)
			}
		})
		switch {
		case len(others) > 0:
			return usageError(fs, "--check OUT checks an export already written: %s would be ignored", strings.Join(others, ", "))
		case len(pos) > 0:
			return usageError(fs, "--check OUT checks an export already written: it reads no input (%s)", strings.Join(pos, " "))
		}
		return exportCheck(*check, stdout, stderr)
	}
	if len(pos) == 0 || *to == "" {
		return usageError(fs, "give --to FORMAT, one or more input files or directories and -o OUT")
	}
	ro := rf.options()
	res, err := export.Run(pos, export.Options{To: *to, Out: *out, Stdout: stdout, Format: ro.Format, Reader: ro.Reader, PerKernel: *perKernel, PerOp: *perOp})
	if err != nil {
		fmt.Fprintf(stderr, "tally export: %v\n", err)
		return exitcode.Error
	}
	for _, sk := range res.Run.Skipped {
		safetext.Fprintf(stderr, "tally export: skipped %s: %s\n", sk.Path, sk.Reason)
	}
	exportSummary(stderr, *to, *out, res)
	switch {
	case res.Empty:
		return exitcode.Error
	case *strict && !res.Complete:
		return exitcode.Failed
	}
	return exitcode.OK
}

// exportSummary says on standard error what was written and, loudly, which
// inputs hold no dispatch event or have gaps: an export's exit status alone
// (2, 1) would leave the user to guess why.
func exportSummary(stderr io.Writer, to, out string, res *export.Result) {
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
		verdict = "INCOMPLETE: the run has gaps of the whole (collectives: the accounting's rows of input -1)"
	}
	fmt.Fprintf(stderr, "tally export: %s written to %s: %s, %s; %s\n", to, out, units.Plural(int64(len(res.Run.Inputs)), "input", "inputs"), units.Plural(int64(records), "record", "records"), verdict)
}

// exportCheck is tally export --check OUT.
func exportCheck(out string, stdout, stderr io.Writer) int {
	gaps, p, err := export.CheckOutput(out)
	if err != nil {
		fmt.Fprintf(stderr, "tally export: %v\n", err)
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
