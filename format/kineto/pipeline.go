package kineto

// Scanning and linking on two goroutines. On one core a read is all one
// loop: parse an event, handle it (link, log, count). On two, a large
// plain file reads as fast as its slower half: the reading goroutine
// parses the events of traceEvents into batches, and a second goroutine
// handles them in file order, while the first parses on. The handler owns
// r.ev and every table handle touches; the parser writes r.pe (its own
// event), the scanner and the key guesses. Nothing the parser reads is
// written by the handler (parseEvent looks at its own event only), so
// the two meet only at the batches. The pipe drains before anything after
// traceEvents is read, and on any stop.
//
// A tally block's read-back (r.tb) joins the two halves per event, so such
// files are read in one loop.

import "sync/atomic"

// batchLen is how many events a batch holds; pipeDepth how many batches
// are in flight.
const (
	batchLen  = 256
	pipeDepth = 4
)

// pipeMinBytes is the smallest input read on two goroutines: below it the
// handing over costs more than it saves (and directories of small ranks
// already read one input per core).
const pipeMinBytes = 16 << 20

// span is a string of a queued event, in its batch's strs.
type span struct{ off, n int32 }

// queued is one element of traceEvents, parsed: an event whose strings
// are in the batch (its own slices nil), or an element that is not an
// object.
type queued struct {
	e                 event
	name, cat, arg    span
	notObject         bool
	notObjectAtOffset int64
}

type batch struct {
	q    []queued
	strs []byte
}

func (b *batch) keep(s []byte) span {
	sp := span{off: int32(len(b.strs)), n: int32(len(s))}
	b.strs = append(b.strs, s...)
	return sp
}

func (b *batch) str(sp span) []byte {
	return b.strs[sp.off : sp.off+sp.n : sp.off+sp.n]
}

type pipe struct {
	r     *reader
	cur   *batch
	full  chan *batch
	free  chan *batch
	done  chan struct{}
	fatal atomic.Pointer[fatalError] // the handler's fatalError, if it hit one
}

// pipes counts the pipes started (tests).
var pipes atomic.Int64

// startPipe starts the handling goroutine; the parser then writes r.pe.
func (r *reader) startPipe() *pipe {
	pipes.Add(1)
	p := &pipe{r: r, full: make(chan *batch, pipeDepth), free: make(chan *batch, pipeDepth+1), done: make(chan struct{})}
	for range pipeDepth + 1 {
		p.free <- &batch{q: make([]queued, 0, r.batchLen)}
	}
	p.cur = <-p.free
	r.pe = &r.pev
	go p.handle()
	return p
}

// add queues the event the parser just read.
func (p *pipe) add(e *event) {
	b := p.cur
	q := queued{e: *e}
	q.e.name, q.e.catRaw, q.e.argName = nil, nil, nil
	q.name, q.cat, q.arg = b.keep(e.name), b.keep(e.catRaw), b.keep(e.argName)
	b.q = append(b.q, q)
	if len(b.q) == cap(b.q) || len(b.strs) > 1<<30 {
		p.flush()
	}
}

// notObject queues an element of traceEvents that is not an object.
func (p *pipe) notObject(at int64) {
	b := p.cur
	b.q = append(b.q, queued{notObject: true, notObjectAtOffset: at})
	if len(b.q) == cap(b.q) {
		p.flush()
	}
}

func (p *pipe) flush() {
	if f := p.fatal.Load(); f != nil {
		panic(*f)
	}
	p.full <- p.cur
	p.cur = <-p.free
}

// stop hands over the last batch, waits until every event is handled and
// gives the parser r.ev back. It runs at the end of traceEvents, also when
// the scan stops there (a deferred call during the stop's panic): the
// events read before the stop are handled, as in one loop. A fatal error
// of the handler is raised here, on the reading goroutine.
func (p *pipe) stop() {
	if len(p.cur.q) > 0 {
		p.full <- p.cur
	}
	close(p.full)
	<-p.done
	p.r.pe = &p.r.ev
	if f := p.fatal.Load(); f != nil {
		panic(*f)
	}
}

// handle is the handling goroutine: each queued event, in order, through
// reader.handle on r.ev.
func (p *pipe) handle() {
	defer close(p.done)
	failed := false
	for b := range p.full {
		if !failed {
			failed = p.handleBatch(b)
		}
		b.q, b.strs = b.q[:0], b.strs[:0]
		p.free <- b
	}
}

// handleBatch handles b's events; true when one hit a fatalError (kept in
// p.fatal: the parser raises it), after which nothing more is handled.
func (p *pipe) handleBatch(b *batch) (failed bool) {
	r := p.r
	defer func() {
		if x := recover(); x != nil {
			f, ok := x.(fatalError)
			if !ok {
				panic(x) // a bug: crash with it, as in one loop
			}
			p.fatal.Store(&f)
			failed = true
		}
	}()
	for i := range b.q {
		q := &b.q[i]
		if q.notObject {
			r.skipAt(rsNotObject, q.notObjectAtOffset)
			continue
		}
		r.ev = q.e
		r.ev.name, r.ev.catRaw, r.ev.argName = b.str(q.name), b.str(q.cat), b.str(q.arg)
		r.handle()
	}
	return false
}
