package inputs

import (
	"os"
	"runtime"
	"sync"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// Options selects the readers and how many run at once.
type Options struct {
	// Format forces a reader by name; empty detects it per input.
	Format string
	Reader format.Options
	// Workers is how many inputs are read at once; 0 means one per core
	// (GOMAXPROCS).
	Workers int
	// Done, when not nil, is called with each input's result as soon as it
	// is read, from the goroutine that read it (so a writer can close that
	// input's files while the others are still read). Calls for different
	// inputs may run at once.
	Done func(i int, r *Result)
	// Watch, when not nil, is called with each opened input file while it
	// is read (a progress bar, see report.Options.Watch) — only when inputs
	// are read one at a time: bars of parallel reads would draw over each
	// other.
	Watch func(in *format.Input) (stop func())
	// Progress, when non-nil, watches the reads of the whole set (one
	// progress bar for all inputs); Watch is then not used.
	Progress Progress
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

// Result is one input read: its capture and tables, or why it failed.
type Result struct {
	Path    string
	Capture *capture.Capture
	Tables  *analysis.Tables
	// Err is the input's own failure; the other inputs are unaffected.
	Err error
}

// ReadAll reads every path (files, or directories a directory reader
// claims), each with its own reader, aggregator and accounting, Workers at
// a time. Results come in the order of paths. When sinkFor is not nil it
// gives each input an extra sink (a timeline) that receives its dispatches
// too; it is called before the input is read, from the reading goroutine.
func ReadAll(paths []string, opt Options, sinkFor func(i int, path string) capture.Sink) []Result {
	res := make([]Result, len(paths))
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(paths))
	if opt.Progress != nil {
		opt.Progress.Begin(paths)
		defer opt.Progress.End()
	}
	next := make(chan int)
	var wg sync.WaitGroup
	if workers > 1 {
		opt.Watch = nil
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res[i] = readOne(i, paths[i], opt, sinkFor)
				if opt.Done != nil {
					opt.Done(i, &res[i])
				}
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	return res
}

func readOne(i int, path string, opt Options, sinkFor func(int, string) capture.Sink) Result {
	agg := analysis.NewAggregator()
	var sink capture.Sink = agg
	if sinkFor != nil {
		if extra := sinkFor(i, path); extra != nil {
			sink = capture.Tee{agg, extra}
		}
	}
	ro := opt.Reader // each reader gets its own copy of the options
	ro.Manifests = append([]string(nil), opt.Reader.Manifests...)
	c, err := readPath(path, opt, &ro, sink)
	r := Result{Path: path, Err: err}
	if err == nil && c != nil {
		r.Capture, r.Tables = c, agg.Tables(c)
	}
	return r
}

// readPath reads a file or a directory input, under the set's progress
// watch (opt.Progress) or else the progress bar of opt.Watch for a file.
func readPath(path string, opt Options, ro *format.Options, sink capture.Sink) (*capture.Capture, error) {
	if opt.Watch == nil && opt.Progress == nil {
		return format.ReadPath(path, opt.Format, ro, sink)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if opt.Progress != nil {
			defer opt.Progress.Watch(path, nil)()
		}
		return format.ReadPath(path, opt.Format, ro, sink)
	}
	in, err := format.Open(path)
	if err != nil {
		if opt.Progress != nil {
			defer opt.Progress.Watch(path, nil)() // counted as done all the same
		}
		return nil, err
	}
	defer in.Close()
	if opt.Progress != nil {
		defer opt.Progress.Watch(path, in)()
	} else {
		defer opt.Watch(in)()
	}
	return format.ReadInput(in, opt.Format, ro, sink)
}
