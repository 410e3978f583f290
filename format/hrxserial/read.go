package hrxserial

import (
	"errors"
	"io"
	"runtime"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
	"github.com/tallyprof/tally/format"
)

const (
	blockSize   = 256 << 10
	maxLineSize = 1 << 20 // longer lines are classified by their first MiB and skipped
	maxWorkers  = 4
)

// ReadStream reads a raw or kept trace from r, streaming dispatches to sink.
// name is used in messages (a path). Names come from cat, which may be empty.
func ReadStream(r io.Reader, name string, cat *catalog.Catalog, sink capture.Sink) (*capture.Capture, error) {
	return readStream(r, name, cat, sink, readOptions{fast: true})
}

// readOptions are the knobs tests turn: fast false applies every line the
// general way (the tokens' continuations unused), blockSize and workers
// other than 0 replace the defaults so that blocks cut lines anywhere.
type readOptions struct {
	fast      bool
	blockSize int
	workers   int
}

// readStream reads r in blocks: scan workers find each block's lines (and
// read it themselves when r can be read at an offset, so that two cores
// share the copy out of the page cache), and this goroutine applies the
// lines in input order, one block after the other. Everything that depends
// on what came before — line numbers, the command, sync and run state, the
// end record, duplicates, the sink — happens here, in order; a worker only
// says where lines end and which continue a command begun in its block.
func readStream(r io.Reader, name string, cat *catalog.Catalog, sink capture.Sink, o readOptions) (*capture.Capture, error) {
	if sink == nil {
		sink = capture.Discard
	}
	if cat == nil {
		cat = catalog.New()
	}
	st := newState(name, cat, sink)
	p := newPipeline(r, o)
	defer p.close()

	var carry []byte  // a line continued from the previous block
	longLine := false // inside a line longer than maxLineSize: skip to its end
	var readErr error
	for b := range p.order {
		<-b.ready
		data := b.buf[:b.n]
		st.bytes += int64(b.n)
		if b.first >= 0 {
			// The block's first line ends a line begun before it (or is
			// a whole one when the previous block ended with '\n').
			line := data[:b.first]
			switch {
			case longLine:
				longLine = false // the tail of a long line, already counted
			case len(carry) > 0:
				carry = append(carry, line...)
				if err := st.line(carry); err != nil {
					return nil, err
				}
				carry = carry[:0]
			default:
				if err := st.line(line); err != nil {
					return nil, err
				}
			}
			if err := st.replay(data, b.first+1, b.toks, b.parsed, o.fast); err != nil {
				return nil, err
			}
			data = data[b.last+1:]
		}
		if len(data) > 0 && !longLine {
			carry = append(carry, data...)
			if len(carry) >= maxLineSize {
				if err := st.line(carry[:maxLineSize]); err != nil {
					return nil, err
				}
				st.longLines++
				longLine, carry = true, carry[:0]
			}
		}
		readErr = b.err
		st.cmd.own()
		p.free <- b // b is a worker's again: read nothing of it after this
		if readErr != nil {
			break
		}
	}
	gzipCut := readErr == io.ErrUnexpectedEOF
	if gzipCut {
		readErr = io.EOF // what was inflated before the cut is read
	}
	if readErr != io.EOF {
		e := format.ByteError(name, st.bytes, "check the file and the disk", "reading: %v", readErr)
		e.Err = readErr
		return nil, e
	}
	if len(carry) > 0 && !longLine {
		st.partialLine(carry)
	}
	if gzipCut {
		st.gzipCut()
	}
	return st.finish(), nil
}

// replay applies the lines of data from at on, one per token, each as
// line would. A line the scan parsed (ps) is applied from that, unless it
// follows the end record (which counts the lines after it). A
// continuation is applied from its token alone — its stamp, its place in
// the command — when the open command is the one begun at the token's
// reference line: that line's detail is then the command's, so the line is
// the one continueCommand would take. Any other line, or a continuation
// the state does not expect, goes the general way.
func (s *state) replay(data []byte, at int, toks []tok, ps []parsed, fast bool) error {
	base := s.lineNo + 1 // the line number of toks[0]
	for i := 0; i < len(toks); i++ {
		tk := &toks[i]
		if fast && !s.end.Seen {
			switch {
			case tk.form == contWhole && i+len(wholeSeq) < len(toks):
				s.startLine(data, &ps[tk.ref], tk.t, tk.timed)
				c := toks[i+1 : i+1+len(wholeSeq)]
				s.whole(c)
				i += len(c)
				at = int(c[len(c)-1].end) + 1
				continue
			case tk.form == contStart, tk.form == contWhole:
				s.startLine(data, &ps[tk.ref], tk.t, tk.timed)
				at = int(tk.end) + 1
				continue
			case tk.form == contEvent:
				s.eventLine(data, &ps[tk.ref], tk.t, tk.timed)
				at = int(tk.end) + 1
				continue
			case tk.ref >= 0 && s.cmd.active && s.cmd.line == base+int64(tk.ref) && s.expected() == tk.form:
				s.lineNo++
				if s.advance(tk.t, tk.timed) {
					s.counted(tk.t, tk.timed)
					at = int(tk.end) + 1
					continue
				}
				s.lineNo--
			}
		}
		if err := s.line(data[at:tk.end]); err != nil {
			return err
		}
		at = int(tk.end) + 1
	}
	return nil
}

// startLine applies a command's first line as line does (no trace line of
// another form can continue the open command: continueCommand would not
// take it).
func (s *state) startLine(data []byte, pr *parsed, t uint64, timed bool) {
	s.lineNo++
	s.syncLine(evSyncBegin, phasePre, t, timed && s.header.badClock == "")
	tail := data[pr.detAt+pr.detLen : pr.detAt+pr.detLen+1] // "\n"
	if pr.detLen > 0 {
		tail = data[pr.detAt-1 : pr.detAt+pr.detLen+1]
	}
	s.startCommand(pr.det(data), &pr.d, tail)
	s.counted(t, timed)
}

// whole applies the five lines that continue the traced command startLine
// just began, as advance and counted would one by one: after startLine the
// pre-dispatch sync is open, so each of them is the one the command expects
// and the syncs allow.
func (s *state) whole(c []tok) {
	c = c[:len(wholeSeq)]
	ok := s.header.badClock == ""
	cmd := &s.cmd
	line := s.lineNo
	s.sync.open = false // sync-end phase=command-pre-dispatch
	cmd.tBegin, cmd.okBegin = c[1].t, c[1].timed && ok
	cmd.tEnd, cmd.okEnd = c[2].t, c[2].timed && ok
	// sync-begin phase=command-post-dispatch, ended by the last line
	s.sync.phase = append(s.sync.phase[:0], phasePost...)
	s.sync.line, s.sync.t, s.sync.timed = line+4, c[3].t, c[3].timed && ok
	cmd.stage = stPostBegin
	for i := range c {
		s.lineNo++
		if i == len(c)-1 {
			s.completeCommand(c[i].t, c[i].timed && ok)
		}
		s.counted(c[i].t, c[i].timed)
	}
}

// eventLine applies a trace line of another phase than a command's as
// line does.
func (s *state) eventLine(data []byte, pr *parsed, t uint64, timed bool) {
	s.lineNo++
	if !pr.ok || !s.otherEvent(pr.ev, pr.ph, pr.phaseName(data), &pr.d, pr.detLen == 0, t, timed && s.header.badClock == "") {
		s.malformedAt()
		return
	}
	s.counted(t, timed)
}

// block is one block of the input on its way from a worker to the parser.
type block struct {
	buf         []byte
	n           int
	err         error // io.EOF after the last block
	first, last int   // offsets of the first and the last '\n' in buf[:n]; -1 when none
	toks        []tok // the lines between them
	parsed      []parsed
	off         int64
	ready       chan struct{} // the worker is done with it
}

// pipeline hands blocks out in input order: the dispatching goroutine
// queues each on order (for the parser) and on jobs (for a worker), and the
// parser waits for a block's ready before it reads it and puts it back on
// free.
type pipeline struct {
	r     io.Reader
	ra    io.ReaderAt // non-nil: workers read their blocks at offsets
	size  int64
	fast  bool
	order chan *block
	jobs  chan *block
	free  chan *block
	stop  chan struct{}
}

func newPipeline(r io.Reader, o readOptions) *pipeline {
	bs := o.blockSize
	if bs == 0 {
		bs = blockSize
	}
	p := &pipeline{r: r, fast: o.fast}
	if ra, ok := r.(interface {
		io.ReaderAt
		Size() int64
	}); ok {
		// A file or bytes in memory, read from the start (ReadStream's
		// callers hand over fresh readers: Input.Reader's SectionReader).
		p.ra, p.size = ra, ra.Size()
		if p.size < int64(bs) {
			bs = int(p.size) + 1 // small inputs (tests, fuzzing) need small buffers
		}
	} else if l, ok := r.(interface{ Len() int }); ok && l.Len() < bs {
		bs = l.Len() + 1
	}
	workers := o.workers
	if workers == 0 {
		workers = min(runtime.GOMAXPROCS(0), maxWorkers)
	}
	bufs := 2*workers + 2
	if p.ra != nil {
		// No more workers or buffers than the input has blocks: a small
		// file (the common case of a test or a short run) is one block, and
		// idle workers and unused buffers cost it more than its scan.
		blocks := int(min(max((p.size+int64(bs)-1)/int64(bs), 1), int64(bufs)))
		workers, bufs = min(workers, blocks), blocks
	}
	p.order = make(chan *block, bufs)
	p.jobs = make(chan *block, bufs)
	p.free = make(chan *block, bufs)
	p.stop = make(chan struct{})
	bufMem, tokMem, parsedMem := blockMemory(bufs, bs, p.ra != nil)
	for i := range bufs {
		p.free <- &block{buf: bufMem[i], toks: tokMem[i], parsed: parsedMem[i], ready: make(chan struct{}, 1)}
	}
	go p.dispatch()
	for i := 0; i < workers; i++ {
		go p.work()
	}
	return p
}

// close stops the goroutines of a parser that returns before the end.
func (p *pipeline) close() { close(p.stop) }

// dispatch queues the blocks in order until the last (or the first error,
// for a stream, which it reads itself: a stream has no offsets).
func (p *pipeline) dispatch() {
	defer close(p.order)
	defer close(p.jobs)
	for off := int64(0); ; {
		var b *block
		select {
		case b = <-p.free:
		case <-p.stop:
			return
		}
		b.off = off
		last := false
		if p.ra == nil {
			b.n, b.err = readFull(p.r, b.buf)
			last = b.err != nil
		} else {
			last = off+int64(len(b.buf)) >= p.size
		}
		off += int64(len(b.buf))
		// Neither send blocks: both channels hold every buffer.
		p.order <- b
		p.jobs <- b
		if last {
			return
		}
	}
}

// readFull reads r until buf is full or an error. Not io.ReadFull: it
// turns a short last block into io.ErrUnexpectedEOF, which is the
// inflater's own word for a gzip stream that ended early (a cut .gz) and
// must stay told apart from a clean end.
func readFull(r io.Reader, buf []byte) (n int, err error) {
	for n < len(buf) && err == nil {
		var k int
		k, err = r.Read(buf[n:])
		n += k
	}
	return n, err
}

// work reads (when the input has offsets) and scans blocks.
func (p *pipeline) work() {
	sc := newScanner(p.fast)
	for b := range p.jobs {
		if p.ra != nil {
			b.n, b.err = p.readAt(b)
		}
		b.first, b.last, b.toks, b.parsed = sc.scan(b.buf[:b.n], b.toks[:0], b.parsed[:0])
		b.ready <- struct{}{}
	}
}

// readAt reads b's part of the input; io.EOF marks the last block (or a
// file that became shorter than its size).
func (p *pipeline) readAt(b *block) (int, error) {
	want := int(min(int64(len(b.buf)), p.size-b.off))
	n, err := p.ra.ReadAt(b.buf[:want], b.off)
	if err == nil || (err == io.EOF && n == want) {
		err = nil
		if b.off+int64(want) >= p.size {
			err = io.EOF
		}
	}
	return n, err
}

// errVersion is returned for a kept trace of an unknown version.
var errVersion = errors.New("unknown kept-trace version")
