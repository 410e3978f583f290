package export

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/inputs"
)

// Input is one read input: its capture, its kernel tables and what the
// export did with its dispatches.
type Input struct {
	// Index is the input's position on the command line (0-based).
	Index int
	Path  string
	// Capture is nil until the input has been read.
	Capture *capture.Capture
	Tables  *analysis.Tables
	// Written counts what the export wrote for this input (see Written).
	Written Written
	// ranks splits the kernel statistics by rank for the kernels and
	// programs tables (see byRank).
	ranks byRank
}

// Written is the export's own accounting for one input: every dispatch
// record the reader streamed is written, and these count how.
type Written struct {
	// Records is how many records were written (rows, events, samples'
	// contributions); Dispatches how many dispatches they stand for.
	Records    int64 `json:"records"`
	Dispatches int64 `json:"dispatches"`
	// Aggregated counts records that stand for several dispatches known
	// only by sums (capture.Aggregate); AggregatedDispatches the
	// dispatches in them. Their start and end times are null.
	Aggregated           int64 `json:"aggregated_records"`
	AggregatedDispatches int64 `json:"aggregated_dispatches"`
	// NotNS counts timed records of programs whose clock is not in ns
	// (IREE device ticks without a fit). A reader states a program's clock
	// only once the whole input is read, after its dispatches streamed, so
	// their *_ns values are that clock's ticks: counted here and named in
	// the gaps, per program (docs/export.md, "Units").
	NotNS int64 `json:"times_not_ns"`
	// NotNSPrograms names those programs.
	NotNSPrograms []string `json:"times_not_ns_programs,omitempty"`
	// Untimed counts single-dispatch records without a device interval.
	Untimed int64 `json:"untimed"`

	timed map[capture.ProgramID]int64 // timed records by program
}

// count adds one record to the export's accounting.
func (w *Written) count(c *capture.Capture, d *capture.Dispatch) {
	w.Records++
	w.Dispatches += d.Count()
	if d.Aggregate != nil {
		w.Aggregated++
		w.AggregatedDispatches += d.Aggregate.Count
	} else if !d.Device.Valid {
		w.Untimed++
	}
	if d.Device.Valid || d.Launch.Valid || (d.Aggregate != nil && (d.Aggregate.DeviceValid || d.Aggregate.LaunchValid)) {
		if w.timed == nil {
			w.timed = map[capture.ProgramID]int64{}
		}
		w.timed[d.Program]++
	}
}

// finish counts the timed records of programs whose final clock is not ns.
func (w *Written) finish(c *capture.Capture) {
	for p := range c.Programs {
		if n := w.timed[capture.ProgramID(p)]; n > 0 && c.ProgramClock(capture.ProgramID(p)).Unit != "ns" {
			w.NotNS += n
			w.NotNSPrograms = append(w.NotNSPrograms, c.Programs[p].Name)
		}
	}
}

// readInputs reads every input, workers at a time (0: one per core; 1 for
// writers that stream into one shared file), each with its own reader,
// aggregator and accounting (inputs.ReadAll). sinkFor returns the sink that
// receives an input's dispatches; done runs after the input was read. Both
// run on the goroutine that reads the input, so with workers ≠ 1 they must
// touch only that input's state. Inputs come back in the order of paths.
// An input that cannot be read fails the export, naming every such input:
// no output is written under the final name.
func readInputs(paths []string, opt Options, workers int, sinkFor func(in *Input) capture.Sink, done func(in *Input) error) ([]*Input, error) {
	ins := make([]*Input, len(paths))
	for i, p := range paths {
		ins[i] = &Input{Index: opt.firstIndex + i, Path: p}
	}
	errs := make([]error, len(paths))
	inputs.ReadAll(paths, inputs.Options{Format: opt.Format, Reader: opt.Reader, Workers: workers,
		Done: func(i int, r *inputs.Result) {
			if r.Err != nil {
				errs[i] = r.Err
				return
			}
			in := ins[i]
			in.Capture, in.Tables = r.Capture, r.Tables
			in.Written.finish(in.Capture)
			if done != nil {
				errs[i] = done(in)
			}
		}},
		func(i int, _ string) capture.Sink { return sinkFor(ins[i]) })
	var failed []error
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	switch {
	case len(failed) == 1:
		return nil, failed[0]
	case len(failed) > 1:
		return nil, fmt.Errorf("%d of %d inputs could not be exported (nothing was written):\n%w", len(failed), len(paths), errors.Join(failed...))
	}
	return ins, nil
}

// Rank is the rank a dispatch of this input belongs to: its queue's rank,
// else the input's (capture.Source.Rank), else the input's index on the
// command line as a decimal number (docs/export.md, "Ranks").
func (in *Input) Rank(c *capture.Capture, q capture.QueueID) string {
	if r := c.QueueRank(q); r != "" {
		return r
	}
	return strconv.Itoa(in.Index)
}

// InputRank is the input's own rank: Source.Rank or its index.
func (in *Input) InputRank(c *capture.Capture) string {
	if c != nil && c.Source.Rank != "" {
		return c.Source.Rank
	}
	return strconv.Itoa(in.Index)
}

// RankFrom says where InputRank came from: "source" or "input-index".
func (in *Input) RankFrom() string {
	if in.Capture != nil && in.Capture.Source.Rank != "" {
		return "source"
	}
	return "input-index"
}
