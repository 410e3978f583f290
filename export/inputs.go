package export

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/inputs"
)

// input is one input as the export writes it: the input read (its index
// and path from the start, its capture and tables once read) and what the
// export did with its dispatches.
type input struct {
	analysis.Input
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
	w.Dispatches = capture.SatAdd(w.Dispatches, d.Count())
	if d.Aggregate != nil {
		w.Aggregated++
		w.AggregatedDispatches = capture.SatAdd(w.AggregatedDispatches, d.Aggregate.Count)
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
			w.NotNS = capture.SatAdd(w.NotNS, n)
			w.NotNSPrograms = append(w.NotNSPrograms, c.Programs[p].Name)
		}
	}
}

// readInputs reads every input e names (inputs.Read), w.workers() at a time,
// each with its own reader, aggregator and accounting, its dispatches
// streaming to w.sink; w.done sees each as soon as it is read. Inputs come
// back in the order of e.Paths. An input that cannot be read fails the
// export, naming every such input (w.failed): no output is written under
// the final name.
func readInputs(e *inputs.Expansion, opt Options, w writer) (*analysis.Run, []*input, error) {
	ins := make([]*input, len(e.Paths))
	for i, p := range e.Paths {
		ins[i] = &input{Input: analysis.Input{Index: i, Path: p}}
	}
	workers := w.workers()
	if workers == 0 {
		workers = opt.Workers
	}
	errs := make([]error, len(ins))
	var ops *analysis.OpOptions
	if opt.PerOp {
		ops = &analysis.OpOptions{}
	}
	run := e.Read(inputs.Options{Format: opt.Format, Reader: opt.Reader, Workers: workers, Ops: ops, Breakdown: breakdownOptions(opt.To),
		Sink: func(i int, _ string) capture.Sink { return w.sink(ins[i]) },
		Done: func(r *analysis.Input) {
			in := ins[r.Index]
			in.Input = *r
			if r.Err == nil {
				in.Written.finish(in.Capture)
			}
			errs[r.Index] = w.done(in)
		}})
	var failed []error
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) > 0 {
		return nil, nil, w.failed(failed, len(ins))
	}
	return run, ins, nil
}

// failedInputs names the inputs that could not be exported: the one, or
// how many of n, each on its own line.
func failedInputs(errs []error, n int) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return fmt.Errorf("%d of %d inputs could not be exported (nothing was written):\n%w", len(errs), n, errors.Join(errs...))
}

// rankOf is the rank a dispatch of this input belongs to: its queue's
// rank, else the input's (capture.Source.Rank), else the input's index on
// the command line as a decimal number (docs/export.md, "Ranks").
func (in *input) rankOf(c *capture.Capture, q capture.QueueID) string {
	if r := c.QueueRank(q); r != "" {
		return r
	}
	return in.inputRank(c)
}

// inputRank is the input's own rank: Source.Rank or its index (c is the
// capture being read: Capture is set only once it is).
func (in *input) inputRank(c *capture.Capture) string {
	if c != nil && c.Source.Rank != "" {
		return c.Source.Rank
	}
	return strconv.Itoa(in.Index)
}

// rankFrom says where inputRank came from: "source" or "input-index".
func (in *input) rankFrom() string {
	if in.Capture != nil && in.Capture.Source.Rank != "" {
		return "source"
	}
	return "input-index"
}
