package format

import (
	"fmt"
	"os"
	"sync"

	"github.com/tallyprof/tally/capture"
)

// DirFormat is a reader whose input is a directory (a run directory with
// per-rank, per-dispatch files) rather than one file. It registers a
// Format too (for `tally formats` and --format) and a DirFormat for the
// directory itself.
type DirFormat struct {
	Name string
	// SniffDir looks at a directory's layout and says whether it is this
	// format's.
	SniffDir func(path string) Confidence
	// ReadDir reads the whole directory, streaming dispatches to sink.
	ReadDir func(path string, opts *Options, sink capture.Sink) (*capture.Capture, error)
}

var (
	dirMu      sync.RWMutex
	dirFormats []DirFormat
)

// RegisterDir adds a directory reader.
func RegisterDir(f DirFormat) {
	dirMu.Lock()
	defer dirMu.Unlock()
	dirFormats = append(dirFormats, f)
}

// DetectDir picks the directory reader most confident about path.
func DetectDir(path string) (DirFormat, Confidence) {
	dirMu.RLock()
	defer dirMu.RUnlock()
	var best DirFormat
	conf := No
	for _, f := range dirFormats {
		if c := f.SniffDir(path); c > conf {
			best, conf = f, c
		}
	}
	return best, conf
}

// ReadPath reads path: a directory with the directory reader that claims it
// (or the one named formatName), anything else with ReadFile.
func ReadPath(path, formatName string, opts *Options, sink capture.Sink) (*capture.Capture, error) {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return ReadFile(path, formatName, opts, sink)
	}
	if opts == nil {
		opts = &Options{}
	}
	if sink == nil {
		sink = capture.Discard
	}
	f, conf := DetectDir(path)
	if formatName != "" {
		if _, ok := Lookup(formatName); !ok {
			return nil, fmt.Errorf("unknown --format %q: known formats are %s", formatName, Names())
		}
		conf = No
		dirMu.RLock()
		for _, g := range dirFormats {
			if g.Name == formatName {
				f, conf = g, Certain
			}
		}
		dirMu.RUnlock()
		if conf == No {
			return nil, FileError(path, nil, "give a file of that format, or leave --format out", "is a directory, and the %s reader reads files", formatName)
		}
	}
	if conf < Likely {
		return nil, FileError(path, nil, "give a trace file, or a run directory a reader knows (see 'tally formats')", "is a directory that no directory reader recognises")
	}
	// The same model check and grouping as ReadInput: a reader bug is
	// never a table.
	checked := &capture.Checked{Next: sink, Ceiling: int64(opts.MaxDuration)}
	ropts, regroup, err := readerGrouping(Format{Name: f.Name}, opts, checked)
	if err != nil {
		return nil, err
	}
	var first capture.Sink = checked
	if regroup != nil {
		first = regroup
	}
	c, err := f.ReadDir(path, ropts, first)
	if c != nil {
		c.Source.Path = path
		c.Source.Format = f.Name
		if regroup != nil {
			regroup.finish(c)
		}
	}
	checked.Finish(c)
	if c != nil {
		c.Accounting.SortGaps()
	}
	if err != nil {
		return c, err
	}
	bug := func(err error) error {
		return fmt.Errorf("%s: %w: the %s reader broke tally's model: %v. This is a bug in tally: please report it with the input directory", path, ErrModel, f.Name, err)
	}
	switch {
	case c == nil:
		return nil, bug(fmt.Errorf("the reader returned neither a capture nor an error"))
	case checked.Err != nil:
		return nil, bug(fmt.Errorf("%w (%d dispatches broke the model)", checked.Err, checked.Bad))
	}
	if err := c.CheckValid(); err != nil {
		return nil, bug(err)
	}
	return c, nil
}
