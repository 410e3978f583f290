package analysis

import "github.com/tallyprof/tally/capture"

// Input is one input of a command: its place among the inputs, its path,
// and its capture and tables — or the error that kept it from being read.
// inputs.Read makes them; every command's output consumes them.
type Input struct {
	// Index is the input's position among the inputs (0-based).
	Index int
	Path  string
	// Capture and Tables are nil when Err is set.
	Capture *capture.Capture
	Tables  *Tables
	// Breakdown is the input's time breakdown, when the command asked for
	// one (inputs.Options.Breakdown); nil otherwise, and when Err is set.
	Breakdown *Breakdown
	// Err is the input's own failure; the other inputs are unaffected.
	Err error
	// Earliest are the signatures of the input's earliest dispatches
	// (Earliest.Signatures), by which the run tells two inputs holding one
	// recording; nil when the reader of the input kept none.
	Earliest []uint64
}

// Rank is the input's rank as its capture states it (Source.Rank), or "".
func (in *Input) Rank() string {
	if in.Capture == nil {
		return ""
	}
	return in.Capture.Source.Rank
}

// Label names the input in a report: its rank when known, and its path.
func (in *Input) Label() string {
	if r := in.Rank(); r != "" {
		return "rank " + r + " · " + in.Path
	}
	return in.Path
}

// Skipped is a file found in a given directory and not read, and why.
type Skipped struct {
	Path   string
	Reason string
	// Repeats is the input this file repeats (the same file named again,
	// or a copy of its bytes), whose dispatches are in the tables: the
	// file was read once, as that input. Empty for a file passed over.
	Repeats string
}

// Run is what a command read: its inputs, each with its own capture,
// tables and accounting, the files passed over, and the merged view — one
// table per program (programs matched by name and unit, kernels by name
// within a program) and the accounting of the whole. One input is the
// trivial case; whether the command reports one input or a run of many is
// decided once, from what the arguments named (Many).
type Run struct {
	Inputs  []Input
	Skipped []Skipped
	// Whole is the merged capture: its programs and kernels are the merged
	// tables', its accounting holds the gaps of the whole (failed inputs,
	// incomplete inputs, skipped files). Each input's own gaps stay in its
	// capture.
	Whole  *capture.Capture
	Tables *Tables
	// Breakdown is the merged time breakdown (every input's device rows and
	// their sum), when the inputs were read with one; nil otherwise.
	Breakdown *Breakdown

	many bool
}

// NewRun merges the inputs (NewRun sets each one's Index to its position)
// into a run. many says the arguments named a run of inputs — several, or a
// directory of them — rather than one input; a run of other than one input
// is always many.
func NewRun(ins []Input, skipped []Skipped, many bool) *Run {
	for i := range ins {
		ins[i].Index = i
	}
	run := &Run{Inputs: ins, Skipped: skipped, many: many || len(ins) != 1}
	run.merge()
	run.mergeBreakdown()
	return run
}

// Many reports whether the run is reported as a run of inputs (a section
// per input, then the merged tables) rather than as its one input.
func (run *Run) Many() bool { return run.many }

// Err is why a run of one input (not Many) has nothing to report: its
// input could not be read. A run of many never fails as a whole: an input
// that cannot be read is a failed_input gap of the whole.
func (run *Run) Err() error {
	if run.many {
		return nil
	}
	return run.Inputs[0].Err
}

// Failed counts the inputs that could not be read.
func (run *Run) Failed() int {
	n := 0
	for _, in := range run.Inputs {
		if in.Err != nil {
			n++
		}
	}
	return n
}

// Complete reports whether every input was read and is complete.
func (run *Run) Complete() bool { return run.Whole.Accounting.Complete() }

// OwnGaps are the gaps of the whole run that no input's own accounting
// holds — one recording read twice (repeated_input), two inputs of one
// rank (repeated_rank), the collectives' (once collectives.Analyze put them
// in) — with a count: what an output that states each input's accounting
// must state besides. The whole's other gaps restate the inputs' (failed,
// incomplete and empty inputs, end markers) or the files passed over.
func (run *Run) OwnGaps() []*capture.Gap {
	var own []*capture.Gap
	for _, g := range run.Whole.Accounting.Gaps {
		switch g.Kind {
		case capture.FailedInput, capture.IncompleteInput, capture.EmptyCapture, capture.SkippedFile, capture.NoEndMarker:
			continue
		}
		if g.Count > 0 {
			own = append(own, g)
		}
	}
	return own
}
