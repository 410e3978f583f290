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

// ReadPath reads path — a file, "-" (standard input), or a directory a
// directory reader claims (or the one named formatName) — streaming
// dispatches to sink, under opts.Watch. It is the one way tally reads a
// path; every input of every command comes through it.
func ReadPath(path, formatName string, opts *Options, sink capture.Sink) (*capture.Capture, error) {
	opts = orDefault(opts)
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return readFile(path, formatName, opts, sink)
	}
	defer opts.watch(path, nil)()
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
	return checked(Format{Name: f.Name}, path, "directory", opts, sink,
		func(o *Options, s capture.Sink) (*capture.Capture, error) { return f.ReadDir(path, o, s) },
		func(*capture.Source) {})
}
