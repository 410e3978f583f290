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
//
// ReadPath is the one read of a path: a file, standard input ("-") or a
// run directory (RegisterDir), opened once, under the caller's progress
// watch (Options.Watch), every capture and dispatch checked against the
// model on the way out, whatever the reader.
package format

import (
	"errors"
	"fmt"
	"io"
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
	// Engine, when set, is the library the reader reads with that a
	// program may leave out (engine.go); reading a file with it unlinked
	// is a *NoEngineError.
	Engine *Engine
	// ProgramBy lists the --program-by values the reader implements
	// itself (Options.ProgramBy then carries them); the others are done
	// for it (programby.go). Empty: the reader makes its own programs,
	// and Options.ProgramBy is "".
	ProgramBy []string
	// Uses lists the reader options the reader reads (uses.go): a run
	// none of whose inputs was read by a reader listing an option given
	// states it unused (the note UnusedOption). A reader that reads none
	// says so with an empty, non-nil list: nil is a registration not
	// filled in, which format/all's TestReadersDeclareUses refuses.
	Uses []Option
}

// Options carries the settings readers may use. Readers ignore the ones that
// do not apply to them; Format.Uses lists those a reader reads (uses.go).
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
	// Watch, when set, is called by ReadPath as the read of path starts
	// (a progress bar): in is the opened file, nil for a directory and
	// for a file that could not be opened; the func it returns is called
	// when the read ends. Readers do not use it.
	Watch func(path string, in *Input) (stop func())
	// SpillLimit bounds what a reader writes to TMPDIR of its own working
	// data, records beyond its memory budget (the Kineto dispatch log's
	// spill): bytes, 0 for no limit. Past it the read ends in a
	// *SpillLimitError. Copies of the input itself (spools) have their own
	// limit, TALLY_SPOOL_LIMIT (spool.go).
	SpillLimit int64
	// Ops asks the readers that record host operations (Kineto cpu_op and
	// user_annotation events, NVTX ranges, ROCTx markers) to attribute each
	// dispatch to the op that launched it (capture.Dispatch.Op). It costs
	// the Kineto reader the host events it otherwise skips unread.
	Ops bool
}

func orDefault(opts *Options) *Options {
	if opts == nil {
		return &Options{}
	}
	return opts
}

func (o *Options) watch(path string, in *Input) (stop func()) {
	if o.Watch == nil {
		return func() {}
	}
	return o.Watch(path, in)
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

// Detect picks the format whose sniffer is most confident about head: of
// equally confident ones, the first by name. Nothing beats Certain, so the
// first Certain ends the search (a Kineto head is not scanned line by
// line by the sniffers named after it).
func Detect(head []byte) (Format, Confidence) {
	var best Format
	conf := No
	for _, f := range Formats() {
		if c := f.Sniff(head); c > conf {
			best, conf = f, c
			if conf == Certain {
				break
			}
		}
	}
	return best, conf
}

// ErrUnknownFormat is returned (wrapped in an *Error) when no reader
// recognises the input.
var ErrUnknownFormat = errors.New("no reader recognises it")

// ReadFile reads path as a file (or "-", standard input): ReadPath for a
// path known not to be a directory.
func ReadFile(path, formatName string, opts *Options, sink capture.Sink) (*capture.Capture, error) {
	return readFile(path, formatName, orDefault(opts), sink)
}

func readFile(path, formatName string, opts *Options, sink capture.Sink) (*capture.Capture, error) {
	in, err := Open(path)
	if err != nil {
		defer opts.watch(path, nil)() // a failed input is done all the same
		return nil, err
	}
	defer in.Close()
	defer opts.watch(path, in)()
	return ReadInput(in, formatName, opts, sink)
}

// ReadInput reads an already opened input (ReadPath opens it).
func ReadInput(in *Input, formatName string, opts *Options, sink capture.Sink) (*capture.Capture, error) {
	opts = orDefault(opts)
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
		if err != nil && in.Gzip && errors.Is(err, io.ErrUnexpectedEOF) {
			// Cut before its first inflated byte: there is nothing to
			// sniff, and the file, not the disk, is at fault.
			return nil, &Error{Path: in.Path, Offset: 0, Err: err, Hint: "an incomplete copy or download: get the whole file",
				Msg: fmt.Sprintf("the gzip stream ends after %d compressed bytes, before its first decompressed byte (%v): the file was cut", in.Size, err)}
		}
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

// readChecked runs reader f on in, names the capture's source and checks
// the capture and every dispatch against the model.
func readChecked(f Format, in *Input, opts *Options, sink capture.Sink) (*capture.Capture, error) {
	if err := f.Unlinked(in.Path); err != nil {
		return nil, err // before the reader spools a stream it cannot read
	}
	return checked(f, in.Path, "file", opts, sink,
		func(o *Options, s capture.Sink) (*capture.Capture, error) { return f.Read(in, o, s) },
		func(src *capture.Source) { src.Bytes, src.Compressed = in.Size, in.Gzip })
}

// checked runs read — reader f's, of the file or directory at path —
// with the grouping --program-by asks for, names the capture's source
// (source adds what the input kind knows) and checks the capture and every
// dispatch against the model: a reader bug is never a table.
func checked(f Format, path, kind string, opts *Options, sink capture.Sink, read func(*Options, capture.Sink) (*capture.Capture, error), source func(*capture.Source)) (*capture.Capture, error) {
	chk := &capture.Checked{Next: sink, Ceiling: int64(opts.MaxDuration)}
	ropts, regroup, err := readerGrouping(f, opts, chk)
	if err != nil {
		// The value fits some readers and not this input's: say which input.
		return nil, FileError(path, err, "", "%v", err)
	}
	var first capture.Sink = chk
	if regroup != nil {
		first = regroup
	}
	c, err := read(ropts, first)
	if c != nil {
		c.Source.Path = path
		c.Source.Format = f.Name
		source(&c.Source)
		if regroup != nil {
			regroup.finish(c)
		}
	}
	chk.Finish(c)
	if c != nil {
		c.Accounting.SortGaps()
	}
	if err != nil {
		return c, err
	}
	bug := func(err error) error {
		return fmt.Errorf("%s: %w: the %s reader broke tally's model: %v. This is a bug in tally: please report it with the input %s", path, ErrModel, f.Name, err, kind)
	}
	switch {
	case c == nil:
		return nil, bug(fmt.Errorf("the reader returned neither a capture nor an error"))
	case chk.Err != nil:
		return nil, bug(fmt.Errorf("%w (%d dispatches broke the model)", chk.Err, chk.Bad))
	}
	if err := c.CheckValid(); err != nil {
		return nil, bug(err)
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
