// Package export is `tally export` as a library call: it reads one or more
// inputs with the readers their content calls for and writes their dispatches
// in a format other tools read — pprof, Kineto-compatible JSON, CSV, JSON
// Lines, or a Parquet dataset — always with the inputs' accounting beside or
// inside the output, so no exported table looks more complete than its input.
package export

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/inputs"
)

// Formats tally export writes, by --to name.
const (
	PProf   = "pprof"
	Kineto  = "kineto"
	CSV     = "csv"
	JSONL   = "jsonl"
	Parquet = "parquet"
)

// Names lists the --to values.
var Names = []string{CSV, JSONL, Kineto, Parquet, PProf}

// Options selects the output and the readers.
type Options struct {
	// To is the output format (one of Names).
	To string
	// Out is the output path: a file, or a directory for parquet. "-" is
	// standard output (pprof and kineto only).
	Out string
	// Stdout receives the output when Out is "-".
	Stdout io.Writer
	// Format forces a reader by name; empty detects it per input.
	Format string
	Reader format.Options
	// PerKernel writes one row per (input, program, kernel) instead of one
	// per dispatch (csv and jsonl).
	PerKernel bool

	// Workers is how many inputs are read at once where the writer allows
	// it (parquet, pprof, kineto into a directory, --per-kernel); 0 means
	// one per core.
	Workers int

	// firstIndex is the position of paths[0] among the inputs (kineto
	// writes one input at a time into a directory).
	firstIndex int
	// skipped are the files the arguments' directories hold that no reader
	// recognises: written with the accounting (docs/export.md).
	skipped []inputs.Skipped
}

// Result says what an export wrote and what its inputs lacked.
type Result struct {
	Inputs []*Input
	// Complete is false when any input has a gap (see capture.Accounting).
	Complete bool
	// Empty is true when an input holds no dispatch event at all.
	Empty bool
	// Skipped are the files in the given directories that no reader
	// recognises: not read, listed in the output's accounting.
	Skipped []inputs.Skipped
}

// Run reads the inputs args name and writes the export. Each argument is a
// file or a directory, expanded as tally report expands them (inputs.Expand:
// a run directory a reader claims is one input; any other directory is
// walked, and the files no reader recognises are listed as skipped).
func Run(args []string, opt Options) (*Result, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("give at least one input")
	}
	if opt.Out == "" {
		return nil, fmt.Errorf("give the output with -o")
	}
	if opt.Out == "-" && opt.To != PProf && opt.To != Kineto {
		return nil, fmt.Errorf("-o - (standard output) is for pprof and kineto only: %s writes more than one file", opt.To)
	}
	if opt.PerKernel && opt.To != CSV && opt.To != JSONL {
		return nil, fmt.Errorf("--per-kernel applies to csv and jsonl (parquet always has a kernels table)")
	}
	if !slices.Contains(Names, opt.To) {
		return nil, fmt.Errorf("unknown --to %q: give one of %s", opt.To, strings.Join(Names, ", "))
	}
	e := inputs.Expand(args, opt.Format)
	if len(e.Paths) == 0 {
		return nil, fmt.Errorf("no input found in %s: no file there is one a reader recognises (give --format NAME to read them as one)", strings.Join(args, " "))
	}
	paths := e.Paths
	opt.skipped = e.Skipped
	var (
		ins []*Input
		err error
	)
	switch opt.To {
	case CSV, JSONL:
		ins, err = writeTabular(paths, opt)
	case Parquet:
		ins, err = writeParquet(paths, opt)
	case PProf:
		ins, err = writePProf(paths, opt)
	case Kineto:
		ins, err = writeKineto(paths, opt)
	default:
		return nil, fmt.Errorf("unknown --to %q: give one of %s", opt.To, strings.Join(Names, ", "))
	}
	if err != nil {
		return nil, err
	}
	res := &Result{Inputs: ins, Complete: true, Skipped: e.Skipped}
	for _, in := range ins {
		if !in.Capture.Accounting.Complete() {
			res.Complete = false
		}
		if in.Capture.Accounting.CountOf(capture.EmptyCapture) > 0 {
			res.Empty = true
		}
	}
	return res, nil
}
