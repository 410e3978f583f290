// Package format is the registry of tally's readers. Each reader registers a
// Format with a content sniffer, as Go's image package does, and Read picks
// the reader by what the file holds; a name given by the user overrides it.
//
// A reader claims a file only on positive evidence in its content: a magic
// number, a header, or a line of its own grammar. No reader takes "any
// text" or "any binary": a file nothing recognises — in its first 64 KiB,
// or, for a larger file, in any line a line reader claims (rescan.go) — is
// an error that says so, lists the formats and suggests --format NAME,
// never a reader's empty capture with advice for a format the file is not.
// --format NAME is the user's word, and counts as evidence.
package format

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
)

// Confidence is how sure a sniffer is that a head of input is its format.
type Confidence int

// There is no "any text" level: a sniffer that finds no evidence of its
// format says No, and an input no sniffer claims is refused with the list
// of formats (see the package doc).
const (
	No Confidence = iota
	// Companion: a file the reader reads beside its main input (rocprof's
	// hip_api_trace.csv beside kernel_trace.csv), not an input by itself.
	// Given alone, the reader says which file to give; found in a
	// directory, it is passed over with that reason.
	Companion
	// Likely: the head has a feature typical of the format.
	Likely
	// Certain: a magic number or an explicit header.
	Certain
)

// Format describes one reader.
type Format struct {
	// Name is what --format takes, e.g. "hrx-serial".
	Name string
	// Description is one line for --help.
	Description string
	// Sniff looks at the first bytes of the input (decompressed when the
	// input is gzip) and says whether they hold evidence of this format: a
	// magic, a header, a line of its grammar. Without such evidence it
	// says No, whatever else the bytes are (format/all's contract test
	// checks this for every reader). A line reader's sniffer, given one
	// line, says whether that line is evidence: the whole-file scan counts
	// only such lines.
	Sniff func(head []byte) Confidence
	// Read reads the whole input, streaming dispatches to sink. The
	// capture's Programs and Kernels may hold more than the reader added:
	// --program-by splits programs while the reader runs (regroup.go), so
	// a reader keeps its own counts and uses the ids AddProgram and
	// AddKernel return.
	Read func(in *Input, opts *Options, sink capture.Sink) (*capture.Capture, error)
	// Claims, when set, says whether one line of a program's output (as
	// printed, unstamped, without '\n') is one this reader uses, so that
	// `tally record` keeps it (see Claimers).
	Claims func(line []byte) bool
	// ProgramBy lists the --program-by values the reader implements
	// itself (Options.ProgramBy then carries them); the others are done
	// for it (programby.go). Empty: the reader makes its own programs,
	// and Options.ProgramBy is "".
	ProgramBy []string
}

// Options carries the settings readers may use. Readers ignore the ones that
// do not apply to them.
type Options struct {
	// Manifests are manifest.json files or directories searched for them
	// (hrx kernel catalog).
	Manifests []string
	// Catalog, when set, is used instead of loading Manifests.
	Catalog *catalog.Catalog
	// ProgramBy chooses how dispatches are grouped into programs (see
	// programby.go; "" is auto). A reader sees only a value it lists in
	// Format.ProgramBy, or "".
	ProgramBy string
	// UnrecordedWait is the idle wait of a stream with queued work above
	// which Kineto reports unrecorded_device_work (0: the default, 1 ms).
	UnrecordedWait time.Duration
	// NameMaps are user-supplied swimlane name maps, "PROGRAM=FILE": the
	// kernels of L2 program PROGRAM are named from FILE, a level-2
	// name_map.json, and the report says so (docs/formats/swimlane.md).
	NameMaps []string
	// MaxDuration is the longest single dispatch accepted as measured on a
	// ns clock (0: capture.MaxDuration, one hour); longer ones are
	// invalid_event gaps.
	MaxDuration time.Duration
}

var (
	mu      sync.RWMutex
	formats []Format
)

// Register adds a format. It panics on a duplicate name, as that is a
// programming error.
func Register(f Format) {
	mu.Lock()
	defer mu.Unlock()
	for _, g := range formats {
		if g.Name == f.Name {
			panic("format: duplicate registration of " + f.Name)
		}
	}
	formats = append(formats, f)
}

// Formats lists the registered formats by name.
func Formats() []Format {
	mu.RLock()
	defer mu.RUnlock()
	out := append([]Format(nil), formats...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds a format by name.
func Lookup(name string) (Format, bool) {
	for _, f := range Formats() {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// Names returns the registered format names, comma-separated.
func Names() string {
	var names []string
	for _, f := range Formats() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// sniffLen is how much of the (decompressed) input the sniffers see.
const sniffLen = 64 << 10

// Detect picks the format whose sniffer is most confident about head.
func Detect(head []byte) (Format, Confidence) {
	var best Format
	conf := No
	for _, f := range Formats() {
		if c := f.Sniff(head); c > conf {
			best, conf = f, c
		}
	}
	return best, conf
}

// ErrUnknownFormat is returned (wrapped in an *Error) when no reader
// recognises the input.
var ErrUnknownFormat = errors.New("no reader recognises it")

// ReadFile opens path, picks its reader (by name when formatName is set,
// else by content) and reads it, streaming dispatches to sink.
func ReadFile(path, formatName string, opts *Options, sink capture.Sink) (*capture.Capture, error) {
	in, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return ReadInput(in, formatName, opts, sink)
}

// ReadInput is ReadFile for an already opened input.
func ReadInput(in *Input, formatName string, opts *Options, sink capture.Sink) (*capture.Capture, error) {
	if opts == nil {
		opts = &Options{}
	}
	if sink == nil {
		sink = capture.Discard
	}
	var f Format
	if formatName != "" {
		var ok bool
		if f, ok = Lookup(formatName); !ok {
			return nil, fmt.Errorf("unknown --format %q: known formats are %s", formatName, Names())
		}
	}
	// After the name check: a mistyped --format is a usage error even for
	// an empty file, never a capture of format "typo".
	if in.Size == 0 {
		return emptyFile(in, formatName), nil
	}
	conf := Certain // a format named by the user is never second-guessed
	if formatName == "" {
		head, err := in.Head()
		if err != nil {
			return nil, FileError(in.Path, err, "check the file and the disk", "reading the first bytes: %v", err)
		}
		if f, conf = Detect(head); conf == No {
			return scanUnclaimed(in, head, opts, sink)
		}
	}
	counted := &countingSink{next: sink}
	c, err := readChecked(f, in, opts, counted)
	if err == nil && conf < Certain && counted.n == 0 {
		c, err = rescan(f, c, in, opts, sink)
	}
	return c, err
}

// readChecked runs reader f, names the capture's source and checks the
// capture and every dispatch against the model.
func readChecked(f Format, in *Input, opts *Options, sink capture.Sink) (*capture.Capture, error) {
	checked := &capture.Checked{Next: sink, Ceiling: int64(opts.MaxDuration)}
	ropts, regroup, err := readerGrouping(f, opts, checked)
	if err != nil {
		return nil, err
	}
	var first capture.Sink = checked
	if regroup != nil {
		first = regroup
	}
	c, err := f.Read(in, ropts, first)
	if c != nil {
		c.Source.Path = in.Path
		c.Source.Format = f.Name
		c.Source.Bytes = in.Size
		c.Source.Compressed = in.Gzip
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
	if c == nil {
		return nil, modelError(f, in, fmt.Errorf("the reader returned neither a capture nor an error"))
	}
	if checked.Err != nil {
		return nil, modelError(f, in, fmt.Errorf("%w (%d dispatches broke the model)", checked.Err, checked.Bad))
	}
	if err := c.CheckValid(); err != nil {
		return nil, modelError(f, in, err)
	}
	return c, nil
}

// readerGrouping parses opts.ProgramBy for reader f: the options the
// reader is given (ProgramBy as it implements it, or "") and the sink
// that does the rest of the grouping in front of next, nil when none is
// left to do.
func readerGrouping(f Format, opts *Options, next capture.Sink) (*Options, regrouper, error) {
	g, err := ParseProgramBy(opts.ProgramBy)
	if err != nil {
		return nil, nil, err
	}
	native, rest, err := g.native(f)
	if err != nil {
		return nil, nil, err
	}
	ropts := *opts
	ropts.ProgramBy = native
	return &ropts, newRegroup(rest, next), nil
}

// ErrModel marks a reader bug: a capture or dispatch that breaks the model's
// invariants (capture.CheckValid, capture.CheckDispatch).
var ErrModel = errors.New("internal error")

// modelError reports a reader that broke the model. It is tally's bug, not
// the input's, and must never become a silently wrong table.
func modelError(f Format, in *Input, err error) error {
	return fmt.Errorf("%s: %w: the %s reader broke tally's model: %v. This is a bug in tally: please report it with the input file", in.Path, ErrModel, f.Name, err)
}

// emptyFile is the capture of a zero-byte file, whatever its format: nothing
// was recorded, which must never read as "nothing happened".
func emptyFile(in *Input, formatName string) *capture.Capture {
	c := &capture.Capture{Source: capture.Source{Path: in.Path, Format: formatName}}
	if c.Source.Format == "" {
		c.Source.Format = "unknown"
	}
	g := c.Accounting.Gap(capture.EmptyCapture, "")
	g.Summary = "the file is empty (0 bytes): nothing was recorded. Check that the recorder wrote to this path and that the run reached its first dispatch."
	what := "empty file"
	if in.IsStream() {
		g.Summary = "the stream ended before its first byte: nothing was read. Check the command that feeds it (a failed decompressor or recorder writes nothing)."
		what = "empty stream"
	}
	g.Add(capture.Item{What: what, Where: in.Path})
	c.Accounting.InputFor("bytes")
	return c
}
