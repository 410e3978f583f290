// Package diff is `tally diff` as a library call: what a change did, per
// program and per kernel, with benchstat's statistics. Each side is one or
// more captures of the same workload; every run of a program in them
// (Dispatch.Instance) is one sample. Programs are matched by name and
// kernels by name within their program, never across programs; what one
// side lacks is listed as added or removed, never dropped.
//
// Run reads each side as every command reads its inputs (inputs.Expand,
// then Read, each input's dispatches also streaming to the side's
// collector), then Compare pairs programs and kernels across the sides.
package diff

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/internal/exitcode"
)

// Options selects the reader and its settings for every input.
type Options struct {
	// Format forces a reader by name; empty detects it per file.
	Format string
	Reader format.Options
	// Watch, when non-nil, is called with each opened input while it is
	// read (a progress bar; see inputs.Options.Watch: inputs read in
	// parallel draw none).
	Watch func(in *format.Input) (stop func())
	// Workers is how many inputs of a side are read at once; 0 means one
	// per core.
	Workers int
}

// Run reads side A's inputs and side B's and compares them. Each side's
// arguments are files or directories (ranks, runs), expanded as tally
// report expands them (inputs.Expand) and read in parallel, each input with
// its own accounting.
func Run(a, b []string, opt Options) (*Result, error) {
	if len(a) == 0 || len(b) == 0 {
		return nil, fmt.Errorf("give at least one trace file on each side")
	}
	sa, err := readSide("A", a, opt)
	if err != nil {
		return nil, err
	}
	sb, err := readSide("B", b, opt)
	if err != nil {
		return nil, err
	}
	return Compare(sa, sb), nil
}

// readSide expands a side's arguments and reads every input. An input that
// cannot be read fails the side, naming every such input: a side missing a
// rank would compare other samples than the ones asked for.
func readSide(label string, args []string, opt Options) (*Side, error) {
	e := inputs.Expand(args, opt.Format)
	if len(e.Paths) == 0 {
		return nil, fmt.Errorf("side %s: no input found in %s: no file there is one a reader recognises (give --format NAME to read them as one)", label, strings.Join(args, " "))
	}
	s := NewSide(label)
	s.Skipped = e.Skipped
	cols := make([]collector, len(e.Paths))
	run := e.Read(inputs.Options{Format: opt.Format, Reader: opt.Reader, Workers: opt.Workers, Watch: opt.Watch,
		Sink: func(i int, _ string) capture.Sink { return &cols[i] }})
	s.RunGaps = run.OwnGaps()
	var errs []error
	for i, in := range run.Inputs {
		if in.Err != nil {
			errs = append(errs, in.Err)
			continue
		}
		s.add(in.Capture, &cols[i])
	}
	if len(errs) > 0 {
		if len(errs) == 1 {
			return nil, errs[0]
		}
		return nil, fmt.Errorf("side %s: %d of %d inputs could not be read:\n%w", label, len(errs), len(run.Inputs), errors.Join(errs...))
	}
	return s, nil
}

// Add reads one capture into the side: read streams its dispatches to the
// sink it is given and returns the capture. It lets callers (and tests)
// bring captures from anywhere, so it runs the model checks that
// format.ReadInput runs on every file.
func (s *Side) Add(read func(capture.Sink) (*capture.Capture, error)) error {
	var col collector
	agg := analysis.NewAggregator() // sizes the capture's gaps (the side's header states them)
	chk := &capture.Checked{Next: capture.Tee{&col, agg}}
	c, err := read(chk)
	if err != nil {
		return err
	}
	chk.Finish(c)
	if chk.Err != nil {
		return fmt.Errorf("%s: %d dispatches break the model, the first: %w", c.Source.Path, chk.Bad, chk.Err)
	}
	if err := c.CheckValid(); err != nil {
		return fmt.Errorf("%s: %w", c.Source.Path, err)
	}
	agg.Tables(c)
	s.add(c, &col)
	return nil
}

// Compare compares two filled sides.
func Compare(a, b *Side) *Result { return compareSides(a, b) }

// Complete reports whether every input of the side is complete.
func (s *Side) Complete() bool {
	for _, c := range s.Captures {
		if !c.Accounting.Complete() {
			return false
		}
	}
	for _, g := range s.RunGaps {
		if !g.Note {
			return false
		}
	}
	return true
}

// Slower lists what got slower by more than pct percent, as a change
// called (Metric.Changed: the test and the interval agree): programs by
// total time per run, kernels by time per dispatch (time per run when only
// aggregated sums are known).
func (r *Result) Slower(pct float64) []string {
	var out []string
	over := func(m *Metric) bool {
		return m.Changed() && m.HasDelta && m.Delta*100 > pct
	}
	for i := range r.Programs {
		p := &r.Programs[i]
		if over(&p.Total) {
			out = append(out, fmt.Sprintf("program %s: time per run %s", p.Name, pct2(p.Total.Delta)))
		}
		for j := range p.Kernels {
			k := &p.Kernels[j]
			if t := k.TimeMetric(); over(t) {
				what := "time per dispatch"
				if t == &k.PerRun {
					what = "time per run"
				}
				out = append(out, fmt.Sprintf("program %s, kernel %s: %s %s", p.Name, k.Name, what, pct2(t.Delta)))
			}
		}
	}
	return out
}

// ExitCode is the status `tally diff` ends with. failPct < 0 disables
// --fail-if-slower.
func (r *Result) ExitCode(strict bool, failPct float64) int {
	for _, s := range []*Side{r.A, r.B} {
		for _, c := range s.Captures {
			if c.Accounting.CountOf(capture.EmptyCapture) > 0 {
				return exitcode.Error
			}
		}
	}
	if strict && (!r.A.Complete() || !r.B.Complete() || len(r.A.MissingRanks)+len(r.B.MissingRanks) > 0) {
		return exitcode.Failed
	}
	if failPct >= 0 && len(r.Slower(failPct)) > 0 {
		return exitcode.Failed
	}
	return exitcode.OK
}

func pct(f float64) string  { return fmt.Sprintf("%+.2f%%", 100*f) }
func pct2(f float64) string { return fmt.Sprintf("%+.1f%%", 100*f) }
