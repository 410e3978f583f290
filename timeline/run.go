package timeline

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/collectives"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/inputs"
)

// Options selects the readers and the output format.
type Options struct {
	// Format forces a reader by name; empty detects it per input.
	Format string
	Reader format.Options
	// As is the output format.
	As Format
	// Workers is how many inputs are read at once. 0 or 1: one at a
	// time, in argument order, so the same command writes the same file —
	// a track whose name repeats in inputs that share a rank is numbered
	// "(2)", "(3)" in that order, and siblings are ordered so. More
	// workers read faster and write the same slices, but those numbers,
	// the sibling order and the packets follow the order the readers
	// reach their tracks in. Chrome JSON always reads one at a time.
	Workers int
	// Progress, when non-nil, watches the reads (one bar for all inputs).
	Progress inputs.Progress
	// Out is the output's path, when a file: an earlier timeline there,
	// inside a directory read, is not read back (inputs.PassOver).
	Out string
}

// Summary is what Run wrote.
type Summary struct {
	Stats Stats
	// Verdict is the file's (tally_verdict), with the kinds that made its
	// incomplete inputs so named: "incomplete: 1 input incomplete
	// (unfinished_dispatch, not_drawn_before_base)".
	Verdict string
	// Inputs counts the inputs found; Failed those that could not be read
	// at all.
	Inputs int
	Failed int
	// Errors are the failed inputs' read errors, in argument order (each
	// names its input): what the accounting track says, for the command
	// line to say too.
	Errors []error
	// Complete is true when the verdict is "complete".
	Complete bool
	// Empty lists the inputs that hold no dispatch event at all (their
	// empty_capture gap): "PATH: summary".
	Empty []string
}

// Run reads every input and writes one timeline of them all to out. An
// input that cannot be read is a gap of the whole (drawn on the run's
// accounting track), never hiding the others. The error is the output's
// (a failed write), never an input's.
func Run(paths []string, out io.Writer, opt Options) (*Summary, error) {
	w := New(out, opt.As)
	e := inputs.Expand(paths, opt.Format)
	e.PassOver(opt.Out)
	// Registered in argument order, so names and ids do not depend on which
	// reader finishes first.
	sinks := make([]*Sink, len(e.Paths))
	for i, p := range e.Paths {
		sinks[i] = w.Sink(p)
	}
	workers := max(opt.Workers, 1)
	if opt.As == Chrome {
		// Chrome's time base is the first time written: inputs are read
		// in argument order, so the same command writes the same file
		// (and a time before the base is the same input's, every run).
		workers = 1
	}
	col := collectives.NewCollector()
	run := e.Read(inputs.Options{Format: opt.Format, Reader: opt.Reader, Workers: workers, Progress: opt.Progress,
		Sink: func(i int, _ string) capture.Sink { return capture.Tee{sinks[i], col.Sink(i)} }})
	var empty []string
	var errs []error
	for i, in := range run.Inputs {
		if in.Err != nil {
			w.Failed(in.Path, in.Err)
			errs = append(errs, in.Err)
			continue
		}
		sinks[i].Finish(in.Capture)
		if g := in.Capture.Accounting.Find(capture.EmptyCapture); g != nil && g.Count > 0 {
			empty = append(empty, in.Path+": "+g.Summary)
		}
	}
	for _, s := range run.Skipped {
		w.Skipped(s.Path, s.Reason)
	}
	if run.Whole.Clock.Domain == "mixed" {
		var clocks []string
		for _, in := range run.Inputs {
			if in.Capture != nil && in.Capture.Clock.Timed {
				clocks = append(clocks, filepath.Base(in.Path)+": "+in.Capture.Clock.Domain+" ("+in.Capture.Clock.Unit+")")
			}
		}
		w.RunNote("mixed_clocks", "inputs on different clocks share this time axis, but times of different inputs are not comparable: "+strings.Join(clocks, ", "))
	}
	for _, g := range run.OwnGaps() {
		w.RunGap(g) // the collectives' are not there yet: Collectives, below, draws them
	}
	w.Collectives(collectives.Analyze(run, col), sinks)
	sum, err := w.summary(w.Close())
	if sum != nil {
		sum.Empty, sum.Errors = empty, errs
	}
	return sum, err
}

func (w *Writer) summary(err error) (*Summary, error) {
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	v := w.verdict(true)
	return &Summary{Stats: w.stats, Verdict: v, Inputs: len(w.inputs), Failed: len(w.failures), Complete: v == "complete"}, nil
}
