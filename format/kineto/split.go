package kineto

// traceEvents on every core (issue 24). A large plain file is a file: its
// events can be parsed at any offset. The rest of the file from the first
// element of traceEvents is cut into chunks of a few MiB; workers parse
// the events that start in each chunk into a batch, each with its own
// scanner, event and key guesses, and the reading goroutine hands the
// batches to handle in file order, as one loop would: linking, the
// dispatch log, repeats, statistics and every first offset see the events
// in the same order.
//
// A chunk's start is a guess: the first '{' that begins a line at or after
// its nominal offset (Kineto writes an event per line or more). A raw
// newline cannot be in a JSON string, but tally reads strings leniently,
// and a nested object may begin a line, so the guess is checked: chunk k's
// batch is used only when the events before it, read by chunk k-1 or in
// one loop, end exactly at its start, between two elements of the array.
// Otherwise, and for whatever a worker does not read cleanly (an element
// that is not an object, a syntax error, a cut, an event running far past
// its chunk), the reading goroutine reads on in one loop from where the
// events it used end, up to the next chunk's start: every error, cut and
// offset is the one loop's.

import (
	"bytes"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/hugemem"
)

const (
	splitMinBytes = 16 << 20 // smallest rest of a file that is split
	splitChunk    = 2 << 20  // nominal chunk
	// A worker reads its chunk in blocks of splitBlock (they stay in the
	// core's cache between the copy and the parse), looks for the chunk's
	// start in the first, and leaves an event running more than
	// splitOverhang chunks past the chunk to the one loop.
	splitBlock      = 256 << 10
	splitOverhang   = 4
	maxSplitWorkers = 4
)

// Chunks whose batch was used, and chunks with a start whose batch was not
// (the guess was wrong), over all reads: tests look at them.
var splitUsed, splitMissed atomic.Int64

// splitMode says when a read splits traceEvents.
type splitMode uint8

const (
	splitAuto   splitMode = iota // a plain file of splitMinBytes or more, on more than one core
	splitNever                   // one loop
	splitAlways                  // any plain input (tests)
)

// splitForTests, when above 0, makes Read split every plain input into
// chunks of that many bytes (SplitForTests).
var splitForTests atomic.Int64

// SplitForTests makes every later Read of a plain input split traceEvents
// into chunks of chunk bytes, whatever its size and the cores (0: as
// usual). It is for other packages' tests (format/all's adversaries), so
// that they read through the parallel path; set it before reads start.
func SplitForTests(chunk int) { splitForTests.Store(int64(chunk)) }

// splitSource is a plain input: its bytes at any offset.
type splitSource interface {
	io.ReaderAt
	Size() int64
}

// splitter runs one split read of traceEvents.
type splitter struct {
	ra    io.ReaderAt
	size  int64
	base  int64 // the first element's offset: chunk 0 starts there
	chunk int64
	n     int // chunks
	depth int // the scanner's depth between two elements

	// At most len(slots) chunks are parsed and not yet handled: a worker
	// takes a token before it takes a chunk, the reading goroutine gives
	// it back once it is done with the chunk, and chunk k's batch waits
	// in slots[k%len(slots)].
	slots  []chan *batch
	tokens chan struct{}
	free   chan *batch
	next   atomic.Int64
	done   chan struct{}
	wg     sync.WaitGroup

	// Where the reading goroutine stands: before the element at pos, or
	// (after) after the element that ends at pos.
	pos   int64
	after bool
}

// batch is a chunk's parsed events.
type batch struct {
	start int64 // the chunk's first event ('{'), -1 when none was found
	// next and after are where the worker stopped: before the element at
	// next, or after the element ending at next (the array's ']', a stop
	// between two elements).
	next  int64
	after bool

	q     []queued
	strs  []byte     // the events' strings
	longs []longCut  // strings cut, with the event they are in
	colls []collRead // collective kernels' args
}

// queued is one parsed event, without pointers (the collector does not
// scan a batch): its strings follow the previous event's in the batch's
// strs.
type queued struct {
	e                 parsed
	end               int64 // offset after its '}'
	nName, nCat, nArg uint32
	asString          uint16 // its times written as strings (stats.asString)
	subns             uint16 // its times rounded (stats.subns)
}

type longCut struct {
	idx       int // the event's index in the batch
	off, full int64
	head      string
}

type collRead struct {
	c    capture.Collective
	pgID int64
}

func (b *batch) keep(s []byte) uint32 {
	b.strs = append(b.strs, s...)
	return uint32(len(s))
}

// splitTo returns the chunk size traceEvents is split into, or 0 when it is
// read in one loop. The scanner is at the array's first element.
func (r *reader) splitTo() int64 {
	if r.src == nil || r.tb != nil || r.ops != nil {
		// A tally block's read-back and host ops read args into shared
		// tables while parsing.
		return 0
	}
	rest := r.src.Size() - r.s.offset()
	switch r.split {
	case splitAlways:
		return max(r.chunk, 1)
	case splitAuto:
		if rest >= splitMinBytes && runtime.GOMAXPROCS(0) > 1 {
			return max(r.chunk, 1)
		}
	}
	return 0
}

// splitEvents reads traceEvents from its first element (at the scanner)
// with workers parsing chunks of chunk bytes.
func (r *reader) splitEvents(chunk int64) {
	s := r.s
	sp := &splitter{ra: r.src, size: r.src.Size(), base: s.offset(), chunk: chunk, depth: s.depth}
	sp.pos = sp.base
	sp.n = int((sp.size - sp.base + chunk - 1) / chunk)
	workers := r.workers
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), maxSplitWorkers)
	}
	workers = max(1, min(workers, sp.n))
	window := 2 * workers
	sp.slots = make([]chan *batch, window)
	for i := range sp.slots {
		sp.slots[i] = make(chan *batch, 1)
	}
	sp.tokens = make(chan struct{}, window)
	for range window {
		sp.tokens <- struct{}{}
	}
	sp.free = make(chan *batch, window)
	sp.done = make(chan struct{})
	sp.wg.Add(workers)
	for range workers {
		go sp.work(r.noGuess)
	}
	defer sp.stop()
	for k := range sp.n {
		b := <-sp.slots[k%window]
		if b.start >= 0 {
			if !r.seqEvents(sp, b.start) {
				return
			}
			if !sp.after && sp.pos == b.start {
				r.handleBatch(b)
				sp.pos, sp.after = b.next, b.after
				splitUsed.Add(1)
			} else {
				splitMissed.Add(1)
			}
		}
		sp.free <- b
		sp.tokens <- struct{}{}
	}
	r.seqEvents(sp, math.MaxInt64)
}

// stop ends the workers and waits for them: nothing reads the input once
// the read returns.
func (sp *splitter) stop() {
	close(sp.done)
	sp.wg.Wait()
}

// seqEvents reads elements in one loop from where the split read stands
// until one starts at or past limit (true), or the array ends (false).
func (r *reader) seqEvents(sp *splitter, limit int64) (more bool) {
	if !sp.after && sp.pos >= limit {
		return true
	}
	s := r.s
	if s.offset() != sp.pos {
		s.seek(io.NewSectionReader(sp.ra, sp.pos, sp.size-sp.pos), sp.pos)
	}
	if sp.after && !s.arrayNext() {
		return false
	}
	for {
		c := s.nonWS()
		at := s.offset()
		if at >= limit {
			sp.pos, sp.after = at, false
			return true
		}
		if c == '{' {
			r.parseEvent()
			r.handle()
		} else {
			s.skipValue()
			r.skipAt(rsNotObject, at)
		}
		r.events++
		r.lastGood = s.offset()
		if !s.arrayNext() {
			return false
		}
	}
}

// handleBatch handles a chunk's events, in order, as one loop would after
// parsing each.
func (r *reader) handleBatch(b *batch) {
	// r.ev's buffers, lent to the batch while it is handled: the one loop
	// parses into them again.
	own := r.ev
	l, c, at := 0, 0, uint32(0)
	str := func(n uint32) []byte {
		at += n
		return b.strs[at-n : at : at]
	}
	for i := range b.q {
		q := &b.q[i]
		for ; l < len(b.longs) && b.longs[l].idx == i; l++ {
			lc := &b.longs[l]
			r.names.LongName(lc.full, lc.head, "byte "+itoa(lc.off))
		}
		r.ev.parsed = q.e
		r.ev.name, r.ev.catRaw, r.ev.argName = str(q.nName), str(q.nCat), str(q.nArg)
		r.stats.asString += int64(q.asString)
		r.stats.subns += int64(q.subns)
		if q.e.coll {
			r.coll.c, r.coll.pgID = b.colls[c].c, b.colls[c].pgID
			c++
		}
		r.handle()
		r.events++
		r.lastGood = q.end
	}
	r.ev.name, r.ev.catRaw, r.ev.argName = own.name[:0], own.catRaw[:0], own.argName[:0]
}

// chunkWorker is a worker's parsing state: a reader of which only the
// parsing half is used.
type chunkWorker struct {
	r   reader
	s   scanner
	buf []byte
	cur *batch
}

func (sp *splitter) work(noGuess bool) {
	defer sp.wg.Done()
	w := &chunkWorker{}
	w.r.s = &w.s
	w.r.noGuess = noGuess
	w.s.onLong = func(off, full int64, head []byte) {
		b := w.cur
		b.longs = append(b.longs, longCut{idx: len(b.q), off: off, full: full, head: string(head)})
	}
	for {
		select {
		case <-sp.tokens:
		case <-sp.done:
			return
		}
		k := int(sp.next.Add(1) - 1)
		if k >= sp.n {
			return
		}
		var b *batch
		select {
		case b = <-sp.free:
		default:
			// Room for the events of a chunk of Kineto's, about 300
			// bytes each: for 2 MiB chunks 1 MB of records, advised for
			// huge pages (slab.go says why).
			b = &batch{q: hugemem.Make[queued](int(sp.chunk/256 + 1))[:0], strs: make([]byte, 0, sp.chunk/8+1)}
		}
		w.parse(sp, k, b)
		sp.slots[k%len(sp.slots)] <- b
	}
}

// parse parses the events starting in chunk k into b.
func (w *chunkWorker) parse(sp *splitter, k int, b *batch) {
	b.q, b.strs, b.longs, b.colls = b.q[:0], b.strs[:0], b.longs[:0], b.colls[:0]
	b.start, b.next, b.after = -1, -1, false
	lo := sp.base + int64(k)*sp.chunk
	hi := min(lo+sp.chunk, sp.size)
	from := lo
	if k > 0 {
		from-- // a newline just before lo: an event may begin at lo
	}
	limit := min(hi+splitOverhang*sp.chunk, sp.size)
	if w.buf == nil {
		w.buf = make([]byte, splitBlock)
	}
	buf := w.buf[:min(int64(len(w.buf)), limit-from)]
	n, err := sp.ra.ReadAt(buf, from)
	if n < len(buf) && err == nil {
		err = io.ErrUnexpectedEOF
	}
	if err != nil && err != io.EOF {
		return // the one loop meets the error itself
	}
	p := 0
	if k > 0 {
		if p = lineStart(buf[:n]); p < 0 || from+int64(p) >= hi {
			return // no start: the one loop reads the chunk
		}
	}
	b.start = from + int64(p)
	s := &w.s
	*s = scanner{
		r:   io.NewSectionReader(sp.ra, from+int64(n), limit-(from+int64(n))),
		buf: w.buf, pos: p, end: n, off: from,
		depth: sp.depth, keyCopy: s.keyCopy[:0], stack: s.stack[:0], long: s.long[:0], onLong: s.onLong,
	}
	w.cur = b
	w.events(b, hi)
	w.buf = s.buf // grown, for a token longer than a block
}

// events parses elements from the chunk's start until one starts at or
// past hi, is not an object, or does not parse.
func (w *chunkWorker) events(b *batch, hi int64) {
	r := &w.r
	s := r.s
	defer func() {
		if x := recover(); x != nil {
			if _, ok := x.(*stopError); !ok {
				panic(x)
			}
			// b.next and b.after say where the one loop reads on.
		}
	}()
	b.next = b.start
	for {
		c := s.nonWS()
		at := s.offset()
		b.next = at
		if at >= hi || c != '{' {
			return
		}
		asString, subns := r.stats.asString, r.stats.subns
		r.parseEvent()
		asString, subns = r.stats.asString-asString, r.stats.subns-subns
		if asString > math.MaxUint16 || subns > math.MaxUint16 {
			return // a key repeated beyond count: the one loop reads it
		}
		e := &r.ev
		b.q = append(b.q, queued{
			e: e.parsed, end: s.offset(),
			nName: b.keep(e.name), nCat: b.keep(e.catRaw), nArg: b.keep(e.argName),
			asString: uint16(asString), subns: uint16(subns),
		})
		if e.coll {
			b.colls = append(b.colls, collRead{c: r.coll.c, pgID: r.coll.pgID})
		}
		b.next, b.after = s.offset(), true
		if s.nonWS() != ',' {
			b.next = s.offset() // ']', or what the one loop will call an error
			return
		}
		s.pos++
		b.next, b.after = s.offset(), false
	}
}

// lineStart returns the index of the first '{' in b that begins a line,
// only blanks between it and the newline before it; -1 when there is none.
func lineStart(b []byte) int {
	i := 0
	for {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		i = skipWS(b, i+j+1)
		if i >= len(b) {
			return -1
		}
		if b[i] == '{' {
			return i
		}
	}
}
