// Package export is `tally export` as a library call: it reads one or more
// inputs with the readers their content calls for and writes their dispatches
// in a format other tools read — pprof, Kineto-compatible JSON, CSV, JSON
// Lines, or a Parquet dataset — always with the inputs' accounting beside or
// inside the output, so no exported table looks more complete than its input.
//
// Run goes in three steps, each once: check and open the output (a writer
// per format), read the inputs (inputs.Expand, then Read, each input's
// dispatches streaming into the writer), write and commit the output.
package export

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tallyprof/tally/analysis"
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
	// PerOp writes one row per (input, host op) instead of one per
	// dispatch (csv and jsonl), or adds ops.parquet (parquet): the op
	// table of `tally report --by op`.
	PerOp bool

	// Workers is how many inputs are read at once where the writer allows
	// it (parquet, pprof, kineto into a directory, --per-kernel); 0 means
	// one per core.
	Workers int
}

// Result says what an export wrote and what its inputs lacked.
type Result struct {
	// Run is what was read: every input's capture and tables (an input
	// that cannot be read fails the export), and the files in the given
	// directories that no reader recognises — not read, listed in the
	// output's accounting.
	Run *analysis.Run
	// Written is what the export wrote of each input, by index.
	Written []Written
	// Complete is false when any input has a gap (see capture.Accounting).
	Complete bool
	// Empty is true when an input holds no dispatch event at all.
	Empty bool
}

// Run reads the inputs args name and writes the export, in three steps:
// the output is checked and opened (temporary files beside it), the inputs
// are read — each argument a file or a directory, expanded as tally report
// expands them (inputs.Expand: a run directory a reader claims is one
// input; any other directory is walked, and the files no reader recognises
// are listed as skipped) — streaming their dispatches into the output, and
// the output is written and committed. Nothing is written under the final
// name unless every input was read.
func Run(args []string, opt Options) (*Result, error) {
	if err := opt.check(args); err != nil {
		return nil, err
	}
	e := inputs.Expand(args, opt.Format)
	e.PassOver(opt.Out) // an earlier export into a directory read here
	if len(e.Paths) == 0 {
		return nil, fmt.Errorf("no input found in %s: no file there is one a reader recognises (give --format NAME to read them as one)", strings.Join(args, " "))
	}
	w, err := open(opt, len(e.Paths))
	if err != nil {
		return nil, err
	}
	defer w.abort()
	run, ins, err := readInputs(e, opt, w)
	if err != nil {
		return nil, err
	}
	if a, ok := w.(analyzer); ok {
		a.analyze(run)
	}
	if err := w.write(ins, run); err != nil {
		return nil, err
	}
	// A gap of the whole run (a collective missing on a rank) makes the
	// export incomplete too.
	res := &Result{Run: run, Complete: run.Whole.Accounting.Complete()}
	for _, in := range ins {
		res.Written = append(res.Written, in.Written)
		if !in.Capture.Accounting.Complete() {
			res.Complete = false
		}
		if in.Capture.Accounting.CountOf(capture.EmptyCapture) > 0 {
			res.Empty = true
		}
	}
	return res, nil
}

// check refuses options no output can honour, before anything is read.
func (opt *Options) check(args []string) error {
	switch {
	case len(args) == 0:
		return fmt.Errorf("give at least one input")
	case opt.Out == "":
		return fmt.Errorf("give the output with -o")
	case opt.Out == "-" && opt.To != PProf && opt.To != Kineto:
		return fmt.Errorf("-o - (standard output) is for pprof and kineto only: %s writes more than one file", opt.To)
	case opt.PerKernel && opt.To != CSV && opt.To != JSONL:
		return fmt.Errorf("--per-kernel applies to csv and jsonl (parquet always has a kernels table)")
	case opt.PerOp && opt.To != CSV && opt.To != JSONL && opt.To != Parquet:
		return fmt.Errorf("--per-op applies to csv, jsonl and parquet")
	case opt.PerOp && opt.PerKernel:
		return fmt.Errorf("give --per-kernel or --per-op, not both")
	case !slices.Contains(Names, opt.To):
		return fmt.Errorf("unknown --to %q: give one of %s", opt.To, strings.Join(Names, ", "))
	}
	return nil
}

// writer is one output format. It is opened — the output checked, its
// temporaries created — before the inputs are read; sink and done see each
// input while it is read (on its reading goroutine: with workers ≠ 1 they
// touch only that input's state); write writes what follows the reading
// and commits the output; abort removes what was not committed.
type writer interface {
	// workers is how many inputs may be read at once (1 for writers that
	// stream into one shared file in input order; 0 means opt.Workers).
	workers() int
	sink(in *input) capture.Sink
	// done is called for every input once read, failed or not; its error
	// is the input's (in.Err, or the writer's own for that input).
	done(in *input) error
	// failed is the error of the inputs that could not be exported.
	failed(errs []error, n int) error
	write(ins []*input, run *analysis.Run) error
	abort()
}

// open checks and opens the output of opt.To for n inputs.
func open(opt Options, n int) (writer, error) {
	switch opt.To {
	case CSV, JSONL:
		return openTabular(opt)
	case Parquet:
		return openParquet(opt, n)
	case PProf:
		return openPProf(opt, n), nil
	}
	if n > 1 {
		return openKinetoDir(opt, n)
	}
	return openKineto(opt)
}

// readErr is the writer behaviour most formats share: no own state to
// close when an input was read, and the inputs that failed named together.
type readErr struct{}

func (readErr) workers() int                     { return 0 }
func (readErr) done(in *input) error             { return in.Err }
func (readErr) failed(errs []error, n int) error { return failedInputs(errs, n) }
