package probe

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tallyprof/tally/internal/probefile"
)

// Family is a data family a session records.
type Family uint32

const (
	// DispatchEvents records every dispatch (kernel, queue, begin, end) in
	// the session's file. It needs Options.Path.
	DispatchEvents = Family(probefile.FamilyDispatchEvents)
	// Summaries prints a summary per program ("family": prefill, decode, …)
	// every Options.Window launches of any program, and writes it to the
	// file when there is one.
	Summaries = Family(probefile.FamilySummaries)
)

// Options configure a session. The zero value of every field but Families
// and Path has a working default.
type Options struct {
	// Families is what the session records: DispatchEvents, Summaries, or
	// both. Zero is allowed for a session that only writes layer dumps.
	Families Family
	// Path is the capture file; required with DispatchEvents, optional with
	// Summaries. It is created (truncated) at Open.
	Path string
	// Window is the number of launches, of any program, per summary
	// (default 100).
	Window int
	// RingSize bounds the dispatches a queue holds between drains (default
	// 16384); a dispatch ending while its ring is full is dropped and counted.
	// Each queue keeps two such buffers: one filling while the writer writes
	// the other.
	RingSize int
	// Threshold is the ring fill that wakes the writer (default RingSize/2).
	// It bounds what an unclean exit loses per queue while the writer keeps up.
	Threshold int
	// MaxInFlight bounds the dispatches begun and not ended per queue
	// (default 1024); a Begin beyond it is dropped and counted.
	MaxInFlight int
	// FlushEvery drains on a timer as well, so a slow run also reaches the
	// file (default 1 s; negative: only by threshold, Flush, Close, signal).
	FlushEvery time.Duration
	// Log receives summary lines and, unless Quiet, Close's warnings and the
	// first layer-dump failure of each kind (default os.Stderr).
	Log io.Writer
	// Quiet keeps Close's warnings off Log; they are still returned.
	Quiet bool
}

// Errors Close returns (wrapped with counts; test with errors.Is).
var (
	ErrNoDispatches = errors.New("the session asked for dispatch events and recorded none")
	ErrDropped      = errors.New("dispatches dropped")
	ErrNotSummaried = errors.New("no summary written")
	ErrLayers       = errors.New("layer dumps not written")
	ErrMisuse       = errors.New("Begin or End misused (a kernel of another session, or a handle ended twice)")
	ErrWrite        = errors.New("capture file write failed")
)

// Result is what a closed session recorded.
type Result struct {
	// Dispatches recorded (in the file when DispatchEvents).
	Dispatches int64
	// Dropped dispatches: ended while their ring was full, or begun while
	// MaxInFlight were already in flight.
	Dropped int64
	// InFlight dispatches were begun and never ended when the session closed;
	// the file lists them.
	InFlight int64
	// Launches counts every Begin.
	Launches int64
	// Summaries written (windows), and the launches after the last one that
	// no summary covers.
	Summaries    int64
	Unsummarised int64
	// Unwritten counts dispatches lost because the file could not be written.
	Unwritten int64
	// Misused counts End calls on handles not in flight (ended twice) and
	// Begin calls with a nil kernel or another session's.
	Misused int64
	// LayersNotWritten lists every layer dump that failed, in call order.
	LayersNotWritten []LayerFailure
	// Signal is the signal that closed the session, when HandleSignals did.
	Signal os.Signal
}

// Session is one recording. Its methods are safe for concurrent use.
type Session struct {
	opts   Options
	events bool // DispatchEvents
	summ   bool // Summaries
	start  time.Time
	window uint64

	f  *os.File
	bw *bufio.Writer

	mu       sync.Mutex // guards the tables below and defs
	programs map[string]*Program
	kernels  []*Kernel
	queues   []*Queue
	defs     []byte // definition records not yet written

	launches atomic.Uint64
	closed   atomic.Bool
	wake     chan struct{}
	stop     chan struct{}
	stopped  chan struct{}

	drainMu sync.Mutex // serialises drains; guards the writer state below
	w       writerState

	layers layerState

	logMu  sync.Mutex // Log is written by the writer, WriteLayer and Close
	logErr error

	closeOnce sync.Once
	signal    os.Signal
	result    Result
	err       error
}

// Open starts a session. It fails, rather than record nothing, when the
// families need a file that cannot be created and written.
func Open(opts Options) (*Session, error) {
	if opts.Families&^(DispatchEvents|Summaries) != 0 {
		return nil, fmt.Errorf("probe: unknown families %#x", uint32(opts.Families))
	}
	if opts.Families&DispatchEvents != 0 && opts.Path == "" {
		return nil, errors.New("probe: DispatchEvents needs Options.Path: dispatch events are recorded in a file")
	}
	if opts.Window <= 0 {
		opts.Window = 100
	}
	if opts.RingSize <= 0 {
		opts.RingSize = 16384
	}
	if opts.Threshold <= 0 || opts.Threshold > opts.RingSize {
		opts.Threshold = max(1, opts.RingSize/2)
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = 1024
	}
	if opts.FlushEvery == 0 {
		opts.FlushEvery = time.Second
	}
	if opts.Log == nil {
		opts.Log = os.Stderr
	}
	s := &Session{
		opts:     opts,
		events:   opts.Families&DispatchEvents != 0,
		summ:     opts.Families&Summaries != 0,
		start:    time.Now(),
		window:   uint64(opts.Window),
		programs: map[string]*Program{},
		wake:     make(chan struct{}, 1),
		stop:     make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	s.w.nextBoundary = s.window
	if opts.Path != "" {
		f, err := os.OpenFile(opts.Path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, fmt.Errorf("probe: cannot create the capture file: %w", err)
		}
		window := uint32(0)
		if s.summ {
			window = uint32(opts.Window)
		}
		hdr := probefile.AppendHeader(nil, uint32(opts.Families), window, s.start.UnixNano())
		if _, err := f.Write(hdr); err != nil {
			f.Close()
			return nil, fmt.Errorf("probe: cannot write the capture file %s: %w", opts.Path, err)
		}
		s.f = f
		s.bw = bufio.NewWriterSize(f, 256<<10)
	}
	go s.run()
	return s, nil
}

// now is the session clock: monotonic ns since Open.
func (s *Session) now() int64 { return int64(time.Since(s.start)) }

// Program returns the program (a family of dispatches compared with each
// other: "prefill", "decode") of this name, defining it on first use.
func (s *Session) Program(name string) *Program {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.programs[name]; p != nil {
		return p
	}
	p := &Program{s: s, id: uint32(len(s.programs)), name: name, kernels: map[string]*Kernel{}}
	s.programs[name] = p
	s.defs = probefile.AppendRecord(s.defs, probefile.TypeProgram, 8+len(name))
	s.defs = appendU32(s.defs, p.id)
	s.defs = probefile.AppendString(s.defs, name)
	return p
}

// Program is a named family of dispatches.
type Program struct {
	s       *Session
	id      uint32
	name    string
	kernels map[string]*Kernel // under s.mu
}

// Name is the program's name.
func (p *Program) Name() string { return p.name }

// Kernel returns the kernel of this program with this name, defining it on
// first use. Kernels are scoped to their program.
func (p *Program) Kernel(name string) *Kernel {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if k := p.kernels[name]; k != nil {
		return k
	}
	k := &Kernel{id: uint32(len(s.kernels)), program: p, name: name}
	p.kernels[name] = k
	s.kernels = append(s.kernels, k)
	s.defs = probefile.AppendRecord(s.defs, probefile.TypeKernel, 12+len(name))
	s.defs = appendU32(s.defs, k.id)
	s.defs = appendU32(s.defs, p.id)
	s.defs = probefile.AppendString(s.defs, name)
	return k
}

// Kernel is a named kernel of one program.
type Kernel struct {
	id      uint32
	program *Program
	name    string
}

// Name is the kernel's name.
func (k *Kernel) Name() string { return k.name }

// Queue returns a new queue (a device queue, a stream) with a name and the
// device it belongs to (may be ""). Each call makes a distinct queue.
func (s *Session) Queue(name, device string) *Queue {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := newQueue(s, uint32(len(s.queues)), name, device)
	s.queues = append(s.queues, q)
	s.defs = probefile.AppendRecord(s.defs, probefile.TypeQueue, 12+len(name)+len(device))
	s.defs = appendU32(s.defs, q.id)
	s.defs = probefile.AppendString(s.defs, name)
	s.defs = probefile.AppendString(s.defs, device)
	return q
}

// Flush drains every ring into the file now and writes a checkpoint of what
// is in flight; it returns the first write error of the session.
func (s *Session) Flush() error {
	s.drainMu.Lock()
	defer s.drainMu.Unlock()
	if s.closed.Load() {
		return s.w.err
	}
	s.drain(false)
	return s.w.err
}

// wakeWriter asks the writer for a drain without ever blocking.
func (s *Session) wakeWriter() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// run is the background writer.
func (s *Session) run() {
	defer close(s.stopped)
	var tick <-chan time.Time
	if s.opts.FlushEvery > 0 {
		t := time.NewTicker(s.opts.FlushEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-s.stop:
			return
		case <-s.wake:
		case <-tick:
		}
		s.drainMu.Lock()
		if !s.closed.Load() {
			s.drain(false)
		}
		s.drainMu.Unlock()
	}
}
