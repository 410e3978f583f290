// Package report is `tally report` as a library call: read one input with the
// reader its content calls for, aggregate its dispatches per program and
// kernel, and write the tables with their accounting.
package report

import (
	"io"
	"os"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/render"
)

// Options selects the reader and its settings.
type Options struct {
	// Format forces a reader by name; empty detects it from the content.
	Format string
	Reader format.Options
	// Extra receives every dispatch too (e.g. a timeline), when non-nil.
	Extra capture.Sink
	// ExtraFor gives each input of a report of many (RunAll) its own
	// extra sink, when non-nil: inputs are read in parallel, so one sink
	// shared by all would be written from several goroutines.
	ExtraFor func(i int, path string) capture.Sink
	// Watch, when non-nil, is called with the opened input before it is
	// read (e.g. to draw a progress bar); the func it returns is called
	// when the read ends.
	Watch func(in *format.Input) (stop func())
	// Progress, when non-nil, watches the reads of a report of many
	// (RunAll): one bar for the whole set.
	Progress inputs.Progress
}

// Result is a read capture and its tables.
type Result struct {
	Capture *capture.Capture
	Tables  *analysis.Tables
}

// Run reads path and builds its tables.
func Run(path string, opt Options) (*Result, error) {
	agg := analysis.NewAggregator()
	var sink capture.Sink = agg
	if opt.Extra != nil {
		sink = capture.Tee{agg, opt.Extra}
	}
	c, err := Read(path, opt, sink)
	if err != nil {
		return nil, err
	}
	return &Result{Capture: c, Tables: agg.Tables(c)}, nil
}

// Read reads path with the options' reader, streaming its dispatches to
// sink, under opt.Watch when set.
func Read(path string, opt Options, sink capture.Sink) (*capture.Capture, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		// A run directory (swimlane): read by the directory reader that claims it.
		return format.ReadPath(path, opt.Format, &opt.Reader, sink)
	}
	in, err := format.Open(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	if opt.Watch != nil {
		defer opt.Watch(in)()
	}
	return format.ReadInput(in, opt.Format, &opt.Reader, sink)
}

// Write renders the result as text, or as JSON when asJSON.
func (r *Result) Write(w io.Writer, asJSON bool) error {
	return r.WriteText(w, asJSON, render.TextOptions{})
}

// WriteText is Write with text options (ignored for JSON, which always
// holds every row).
func (r *Result) WriteText(w io.Writer, asJSON bool, opt render.TextOptions) error {
	if asJSON {
		return render.JSON(w, r.Capture, r.Tables)
	}
	return render.Text(w, r.Capture, r.Tables, opt)
}

// ExitCode is the status `tally report` ends with for this result under
// the gate; the reasons the affected check failed come with it.
func (r *Result) ExitCode(g Gate) (int, []string) {
	if r.Capture.Accounting.CountOf(capture.EmptyCapture) > 0 {
		return exitcode.Error, nil
	}
	if g.Strict && !r.Capture.Accounting.Complete() {
		return exitcode.Failed, nil
	}
	if why := g.Failures(&r.Capture.Accounting); len(why) > 0 {
		return exitcode.Failed, why
	}
	return exitcode.OK, nil
}
