package inputs

import (
	"runtime"
	"sync"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// Options selects the readers, how many run at once, and what else sees
// each input's dispatches.
type Options struct {
	// Format forces a reader by name; empty detects it per input.
	Format string
	// Reader holds the readers' settings; its Watch is Read's to set (from
	// Watch and Progress below).
	Reader format.Options
	// Workers is how many inputs are read at once; 0 means one per core
	// (GOMAXPROCS).
	Workers int
	// Sink, when not nil, gives input i an extra sink (a timeline, an
	// export's writer) that receives its dispatches too. It is called
	// before the input is read, from the goroutine that reads it.
	Sink func(i int, path string) capture.Sink
	// Done, when not nil, is called with each input as soon as it is read,
	// from the goroutine that read it (so a writer can close that input's
	// files while the others are still read). Calls for different inputs
	// may run at once.
	Done func(in *analysis.Input)
	// Watch, when not nil, is called with each opened input file while it
	// is read (a progress bar) — only when inputs are read one at a time:
	// bars of parallel reads would draw over each other.
	Watch func(in *format.Input) (stop func())
	// Progress, when non-nil, watches the reads of the whole set (one
	// progress bar for all inputs). Of a single input (not Many), Watch
	// is used instead when set.
	Progress Progress
	// Breakdown, when not nil, has each input's time breakdown made
	// (analysis.Input.Breakdown, and the merged one) with these options:
	// the commands that show it pay for it, the others do not. An unset
	// UnrecordedWait takes Reader.UnrecordedWait, and the breakdown's spill
	// is bounded by Reader.SpillLimit as the readers' are (counted apart).
	Breakdown *analysis.BreakdownOptions
	// Ops, when not nil, attributes dispatches to host ops (the readers'
	// format.Options.Ops) and builds each input's op table (Tables.Ops).
	Ops *analysis.OpOptions
}

// Progress watches the reads of a set of inputs: Begin is called with
// every path before any is read, Watch as each input's read starts (from
// its reading goroutine; in is nil for a directory a directory reader
// reads, and for a file that could not be opened), the func it returns
// when that read ends, and End after the last.
type Progress interface {
	Begin(paths []string)
	Watch(path string, in *format.Input) (stop func())
	End()
}

// Read reads every input e names (files, standard input, or directories a
// directory reader claims), each with its own reader, aggregator and
// accounting, Workers at a time, and merges them into a run. Inputs come
// in the order of e.Paths; one that cannot be read holds its error and
// hides none of the others.
func (e *Expansion) Read(opt Options) *analysis.Run {
	paths := e.Paths
	ins := make([]analysis.Input, len(paths))
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(paths))
	progress := opt.Progress
	if !e.many && opt.Watch != nil {
		progress = nil
	}
	var watch func(string, *format.Input) func()
	switch {
	case progress != nil:
		watch = progress.Watch
		progress.Begin(paths)
		defer progress.End()
	case opt.Watch != nil && workers == 1:
		watch = func(_ string, in *format.Input) func() {
			if in == nil {
				return func() {}
			}
			return opt.Watch(in)
		}
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ins[i] = readOne(i, paths[i], e.formatOf(paths[i], opt.Format), opt, watch, len(paths) > 1)
				if len(paths) == 1 && ins[i].Capture != nil {
					// The one input is the run: the note is its own, so
					// that every output of it states it (and Done sees it).
					noteUnused(&ins[i].Capture.Accounting, &opt.Reader, ins[i:i+1])
				}
				if opt.Done != nil {
					opt.Done(&ins[i])
				}
				yield()
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	run := analysis.NewRun(ins, e.Skipped, e.many)
	if len(paths) != 1 {
		// A note of the whole (analysis.Run.OwnGaps): of no one input.
		noteUnused(&run.Whole.Accounting, &opt.Reader, run.Inputs)
	}
	return run
}

// yield ends a worker's time slice after each input. Workers read input
// after input without blocking (the next index is handed over directly),
// so to the scheduler a worker is one goroutine running for the whole
// read: every 10 ms it is preempted, and when that finds it in a read
// system call its processor is taken away and handed to a new thread
// that finds nothing to do, and the runtime's monitor then polls every
// 20 µs for a while. A 64-rank directory on one core made 1,200 such
// wake-ups and 2,800 context switches a run; with a yield per input, 170
// and 360. A variable so that a test can count the calls.
var yield = runtime.Gosched

// formatOf is the reader to read path with: the one forced, or the one
// the walk was certain of, or "" (detect it).
func (e *Expansion) formatOf(path, forced string) string {
	if forced != "" {
		return forced
	}
	return e.certain[path]
}

// readOne reads input i through format.ReadPath with reader formatName
// ("": detected), its dispatches going to its own aggregator and to the
// caller's sink; with many inputs, also to an analysis.Earliest (the
// signatures by which the run tells two inputs holding one recording).
func readOne(i int, path, formatName string, opt Options, watch func(string, *format.Input) func(), many bool) analysis.Input {
	agg := analysis.NewAggregator()
	tee := capture.Tee{agg}
	var earliest *analysis.Earliest
	if many {
		// So that the run can tell two inputs holding one recording.
		earliest = &analysis.Earliest{}
		tee = append(tee, earliest)
	}
	var bd *analysis.BreakdownSink
	if opt.Breakdown != nil {
		bd = analysis.NewBreakdownSink(breakdownOptions(*opt.Breakdown, &opt.Reader))
		tee = append(tee, bd)
	}
	var ops *analysis.OpAggregator
	if opt.Ops != nil {
		ops = analysis.NewOpAggregator()
		tee = append(tee, ops)
	}
	if opt.Sink != nil {
		if extra := opt.Sink(i, path); extra != nil {
			tee = append(tee, extra)
		}
	}
	var sink capture.Sink = tee
	if len(tee) == 1 {
		sink = agg
	}
	ro := opt.Reader // each reader gets its own copy of the options
	ro.Ops = ro.Ops || opt.Ops != nil
	ro.Manifests = append([]string(nil), opt.Reader.Manifests...)
	ro.Watch = watch
	c, err := format.ReadPath(path, formatName, &ro, sink)
	in := analysis.Input{Index: i, Path: path, Err: err}
	if err == nil && c != nil {
		in.Capture, in.Tables = c, agg.Tables(c)
		in.Earliest = earliest.Signatures(c)
		if ops != nil {
			in.Tables.Ops = ops.Table(c, *opt.Ops)
		}
		if bd != nil {
			in.Breakdown = bd.Finish(c)
		}
	} else if bd != nil {
		bd.Finish(&capture.Capture{}) // releases its spill file
	}
	return in
}

// breakdownOptions fills what the breakdown shares with the readers.
func breakdownOptions(o analysis.BreakdownOptions, ro *format.Options) analysis.BreakdownOptions {
	if o.UnrecordedWait <= 0 && ro.UnrecordedWait > 0 {
		o.UnrecordedWait = ro.UnrecordedWait.Nanoseconds()
	}
	if o.SpillLimit == 0 {
		o.SpillLimit = ro.SpillLimit
	}
	o.SpillHint = format.SpillHint
	return o
}
