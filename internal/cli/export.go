package cli

import (
	"flag"
	"io"
	"strings"

	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/internal/exitcode"
)

// exportFormats are export.Names: the --to values. They are listed here
// because tally leaves the export package (and Parquet and pprof with it)
// to tally-full; internal/exportcmd's tests check that the lists agree.
var exportFormats = []string{"csv", "jsonl", "kineto", "parquet", "pprof"}

// ExportRequest is a parsed tally export command line.
type ExportRequest struct {
	// Check, when set, is --check OUT: check an export already written,
	// and nothing else.
	Check string
	// Inputs are the files and directories to read.
	Inputs []string
	// To is --to, Out is -o.
	To, Out   string
	Read      inputs.Options
	PerKernel bool
	PerOp     bool
	Strict    bool
}

// Exporter runs a parsed tally export and returns its exit status. It is
// internal/exportcmd.Run in tally-full (and in this package's tests); in
// tally it is nil, and tally export is handed to tally-full.
var Exporter func(r ExportRequest, stdout, stderr io.Writer) int

func cmdExport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("export", "Usage: tally export --to FORMAT [flags] FILE|DIR... -o OUT\n       tally export --check OUT\n\nReads each FILE (format detected from its content) and writes its dispatches as FORMAT,\nwith every input's accounting (gaps, skipped input, clock) beside or inside the output.\nA directory is expanded as in tally report (its traces are inputs, other files are listed\nas skipped); inputs are read in parallel where the format allows it.\nSee docs/export.md for the columns, schemas and example queries.\n\nFormats: "+strings.Join(exportFormats, ", ")+"\n  csv, jsonl  one row per dispatch (or per kernel with --per-kernel); OUT.gaps.csv/.jsonl beside it\n  parquet     a dataset directory: dispatches/rank=R/, kernels, programs, breakdown, gaps, inputs\n  pprof       a profile for 'go tool pprof -symbolize=none' (device time and dispatch counts)\n  kineto      Kineto-compatible JSON for HTA and TraceLens: OUT.json[.gz]; several inputs: directory OUT/, one file each\n\nFlags:\n", stderr)
	var rf readerFlags
	rf.register(fs)
	to := choice(fs, "to", "", "output `FORMAT`: "+strings.Join(exportFormats, ", "), exportFormats, nil)
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
	} else if len(pos) == 0 || *to == "" {
		return usageError(fs, "give --to FORMAT, one or more input files or directories and -o OUT")
	} else if err := outputsClash([]string{*out, *out + ".gaps." + *to}, pos); err != nil {
		// csv and jsonl write their gaps file beside OUT.
		return usageError(fs, "%v", err)
	}
	if Exporter == nil {
		return handover(append([]string{"export"}, args...), errExportElsewhere, stderr)
	}
	return Exporter(ExportRequest{Check: *check, Inputs: pos, To: *to, Out: *out, Read: rf.options(), PerKernel: *perKernel, PerOp: *perOp, Strict: *strict}, stdout, stderr)
}
