package kineto

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// reader is the state of one read: the scanner, the event being parsed,
// the interned tables and the linkage state. Everything it keeps grows
// with distinct names, queues, annotations and pending links, never with
// the number of events (see link.go and dlog.go for the bounds).
type reader struct {
	path   string
	mode   programMode
	waitNS int64 // unrecorded_device_work threshold (0: default)
	// ceiling is the longest dispatch the model check accepts (0:
	// capture.MaxDuration); longer ones are left out of the reader's own
	// figures, as they are out of the tables.
	ceiling int64
	s       *scanner
	ev      event
	// src is a plain input whose traceEvents may be split (split.go): its
	// mode, chunk size and workers (0: one per core, up to four).
	src     splitSource
	split   splitMode
	chunk   int64
	workers int
	keyBuf  []byte
	// Key guesses (guess.go): per key just read and phase class, and for
	// args per category class.
	evGuess  [numEventKeys][4]keyGuess
	argGuess [numClasses + 1][numArgKeys]keyGuess
	noGuess  bool

	top   topLevel
	stats eventStats
	clock clockStats
	logs  producerLog

	knames   []kname
	knameIdx map[string]uint32
	calls    []callInfo
	callIdx  map[string]uint32
	queues   []queueInfo
	queueIdx map[qkey]uint32
	threads  []threadKey
	// threadIdx interns host threads of launch calls (stream capture).
	threadIdx map[threadKey]uint32

	link    *linker
	ops     *hostOps // host-op attribution, when asked (ops.go)
	log     *dlog
	coll    collState // collective kernels' args (collective.go)
	repeats repeats   // device events written twice (repeat.go)

	anns       []annotation
	annNames   []string
	annNameIdx map[string]uint32

	meta  metaNames
	steps stepInfo
	// hostSteps are the host ProfilerStep#N ranges, for dispatches no GPU
	// annotation encloses (programs.go); one per step.
	hostSteps []hostStep
	byStep    int64 // dispatches attributed by a host step range
	window    windowInfo
	captures  captureBrackets
	syncs     hostSyncs

	// names counts the strings the scanner cut (capture.LongName).
	names capture.Accounting

	// Occurrences found while scanning, reported as gaps at the end.
	invalid     []capture.Item
	invalidN    int64
	invalidRuns int64 // INVALID runtime calls
	invalidRun  []capture.Item

	maxDevEnd  int64 // end of the latest device event (file time base)
	minCallCor uint64
	hasCallCor bool

	stop     *stopError
	events   int64 // complete trace events read
	lastGood int64 // input offset just after the last complete event

	// tb is set while a tally block is read back (tallyblock.go); tbIssue
	// says why a tally block is not used.
	tb      *tallyState
	tbIssue *tallyIssue
}

// reason is why an event was read and not used.
type reason uint8

const (
	rsHostOp reason = iota
	rsHostOther
	rsFlow
	rsCounters
	rsMeta
	rsUnknownCat
	rsUnknownPhase
	rsBadDevice
	rsNotObject
	rsRepeat
	numReasons
)

// reasonText are the stable skip reasons of the "events" input unit.
var reasonText = [numReasons]string{
	rsHostOp:       "host op (cpu_op, user_annotation, python_function): not device work",
	rsHostOther:    "host event (sync, overhead, memory instant): not device work",
	rsFlow:         "flow arrow (ph s/f): linkage uses args.correlation instead",
	rsCounters:     "counters (cuda_profiler_range, ph C): not timed device work",
	rsMeta:         "metadata repeat or display order",
	rsUnknownCat:   "unknown category",
	rsUnknownPhase: "phase Kineto does not write",
	rsBadDevice:    "device-side event without usable ts/dur",
	rsNotObject:    "not an event object",
	rsRepeat:       "repeats a device event already read (same stream, start, duration, name and correlation)",
}

// reasonGap classifies each reason (capture.InputCount.Ignore or Lose):
// the gap that accounts for the events skipped for it, or "" for events
// that held no device work.
var reasonGap = [numReasons]capture.Kind{
	rsUnknownCat:   capture.UnknownInput,
	rsUnknownPhase: capture.UnknownInput,
	rsBadDevice:    capture.InvalidEvent,
	rsNotObject:    capture.SkippedInput,
	rsRepeat:       capture.DuplicateEvent,
}

// use is what a used event served for.
type use uint8

const (
	useDispatch use = iota
	useCall
	useAnnotation
	useMeta
	useWindow
	numUses
)

var useText = [numUses]string{
	useDispatch:   "device events (dispatches)",
	useCall:       "runtime/driver calls (launch linkage)",
	useAnnotation: "gpu_user_annotation spans (programs)",
	useMeta:       "metadata naming devices, streams and threads",
	useWindow:     "capture window span and markers",
}

type eventStats struct {
	byPhase     [256]int64
	byCat       [numCats]int64
	unknownCats map[string]int64
	unknownMore int64 // unknown categories beyond the distinct-name cap
	skip        [numReasons]int64
	skipFirst   [numReasons]int64 // offset+1 of the first such event
	used        [numUses]int64
	devN        [numCats]int64
	devNS       [numCats]int64
	devTs0      int64 // device events with ts 0 (clamped)
	devDur0     int64 // device events with dur 0
	callsNoCorr int64
	subns       int64 // times with digits below 1 ns (rounded)
	cpuFuncs    int64 // events of pid "CPU functions" without a category (old PyTorch)
	asString    int64 // ts/dur written as strings
}

const maxUnknownCats = 1000

func newReader(r io.Reader, path string, mode programMode, bufSize, logRecords int, tmpDir string) *reader {
	rd := &reader{
		path:       path,
		mode:       mode,
		s:          newScanner(r, bufSize),
		knameIdx:   make(map[string]uint32),
		callIdx:    make(map[string]uint32),
		queueIdx:   make(map[qkey]uint32),
		threadIdx:  make(map[threadKey]uint32),
		annNameIdx: make(map[string]uint32),
		log:        newDlog(logRecords, tmpDir),
	}
	rd.s.onLong = func(off, full int64, head []byte) {
		rd.names.LongName(full, string(head), "byte "+itoa(off))
	}
	rd.stats.unknownCats = make(map[string]int64)
	rd.link = newLinker(&rd.calls)
	rd.log.onSpill = rd.link.spilled
	rd.meta.init()
	return rd
}

// fatalError aborts a read for a reason other than the input's content.
type fatalError struct{ err error }

// scan reads the whole input. A cut or malformed input ends the scan with
// r.stop set; only input that is not JSON at all, or an I/O failure of
// tally's own, returns an error.
func (r *reader) scan() (err error) {
	defer func() {
		if x := recover(); x != nil {
			switch v := x.(type) {
			case *stopError:
				r.stop = v
			case fatalError:
				err = v.err
			default:
				panic(x)
			}
		}
	}()
	s := r.s
	c, ok := s.nonWSOrEOF()
	if !ok {
		return nil // empty after decompression: an empty capture
	}
	if c == 0xEF && s.end-s.pos >= 3 && bytes.Equal(s.buf[s.pos:s.pos+3], format.BOM) {
		s.pos += 3 // a UTF-8 byte-order mark
		c = s.nonWS()
	}
	switch c {
	case '{':
		r.topObject()
	case '[':
		r.top.bareArray = true
		r.top.sawEvents = true
		r.eventsArray()
	default:
		return format.ByteError(r.path, s.offset(), "give the .json or .json.gz the profiler wrote, or --format for another reader",
			"not a Chrome-trace JSON file: expected '{' or '[', found %s", s.describe())
	}
	r.lastGood = s.offset()
	if _, more := s.nonWSOrEOF(); more {
		r.top.trailing = s.offset()
		r.top.hasTrailing = true
	}
	if s.rerr != nil && r.gzipTrailing() == nil {
		// The data ended cleanly but the stream did not (gzip trailer).
		panic(&stopError{off: s.read(), msg: "the input could not be read to its end: " + s.rerr.Error(), eof: true})
	}
	return nil
}

// eventsArray reads traceEvents (buf[pos] == '[').
func (r *reader) eventsArray() {
	s := r.s
	r.lastGood = s.offset()
	if s.arrayStart() {
		return
	}
	if chunk := r.splitTo(); chunk > 0 {
		r.splitEvents(chunk)
		return
	}
	for {
		if s.nonWS() == '{' {
			r.parseEvent()
			r.handle()
		} else {
			at := s.offset()
			s.skipValue()
			r.skipAt(rsNotObject, at)
		}
		r.events++
		r.lastGood = s.offset()
		if !s.arrayNext() {
			return
		}
	}
}

func (r *reader) skip(why reason) { r.skipAt(why, r.ev.off) }

func (r *reader) skipAt(why reason, off int64) {
	r.stats.skip[why]++
	if r.stats.skipFirst[why] == 0 {
		r.stats.skipFirst[why] = off + 1
	}
}

func (r *reader) used(u use) { r.stats.used[u]++ }

// handle routes one parsed event.
func (r *reader) handle() {
	e := &r.ev
	st := &r.stats
	if e.hasDur && e.dur > 0 && e.ts > math.MaxInt64-e.dur {
		// ts + dur passes the ns range: the event has no usable end.
		e.badDur = true
	}
	if e.cat == catUnknown && r.tb != nil && r.tallyEvent() {
		return
	}
	st.byPhase[e.ph]++
	switch e.cat {
	case catUnknown:
		r.unknownCat(e.catRaw)
	case catNone:
	default:
		st.byCat[e.cat]++
	}
	cls := e.cat.class()
	if e.cat == catNone && e.pid.kind == idCPUFunctions && e.ph == 'X' {
		// The pre-Kineto autograd profiler's export: host ops without a
		// category, on the pseudo-process "CPU functions".
		st.cpuFuncs++
		r.skip(rsHostOp)
		return
	}
	if cls == clsDevice && e.ph != 'X' {
		r.skip(rsBadDevice)
		r.invalidEvent(fmt.Sprintf("%s event with phase %q instead of X", cats[e.cat].name, phaseName(e.ph)))
		return
	}
	switch e.ph {
	case 'X':
		if e.hasTs && !e.badTs {
			r.clock.observe(e)
		}
		switch cls {
		case clsDevice:
			r.device()
		case clsRuntime:
			r.runtimeCall()
		case clsGPUAnnotation:
			r.annotation()
		case clsHostOp:
			r.hostOp()
		case clsHostOther:
			r.skip(rsHostOther)
		case clsCounters:
			r.skip(rsCounters)
		case clsWindow:
			r.windowSpan()
		case clsFlow:
			r.skip(rsFlow)
		default:
			if e.cat == catNone {
				r.unknownCat([]byte("(no cat)"))
			}
			r.skip(rsUnknownCat)
		}
	case 's', 'f', 't':
		r.skip(rsFlow)
	case 'M':
		r.metadata()
	case 'i', 'I':
		r.instant()
	case 'C':
		r.skip(rsCounters)
	default:
		r.skip(rsUnknownPhase)
	}
}

func phaseName(ph byte) string {
	if ph == 0 {
		return "(none)"
	}
	if ph == '?' {
		return "(not one character)"
	}
	return string(rune(ph))
}

func (r *reader) unknownCat(raw []byte) {
	st := &r.stats
	if n, ok := st.unknownCats[string(raw)]; ok {
		st.unknownCats[string(raw)] = n + 1
		return
	}
	if len(st.unknownCats) >= maxUnknownCats {
		st.unknownMore++
		return
	}
	st.unknownCats[string(raw)] = 1
}

// device reads one device event: a future dispatch.
func (r *reader) device() {
	e := &r.ev
	if !e.hasTs || !e.hasDur || e.badTs || e.badDur || e.dur < 0 {
		r.skip(rsBadDevice)
		why := "without dur"
		switch {
		case !e.hasTs:
			why = "without ts"
		case e.badTs:
			why = "with an unusable ts"
		case e.badDur:
			why = "with an unusable dur"
		case e.hasDur:
			why = "with a negative dur"
		}
		r.invalidEvent(fmt.Sprintf("%s event %s", cats[e.cat].name, why))
		return
	}
	q := r.queueOf(e)
	kn := r.internKname(e.cat, e.name)
	if r.repeatOf(q, kn) {
		r.skip(rsRepeat)
		return
	}
	d := drec{ts: e.ts, dur: e.dur, corr: e.corr, off: e.off, kname: kn, queue: q, call: noCall}
	if err := r.link.device(r.log, d, e.hasCorr, e.badCorr); err != nil {
		panic(fatalError{err})
	}
	if e.coll {
		r.endCollective(e.name)
	}
	if r.tb != nil {
		r.tallyDevice()
	}
	r.used(useDispatch)
	st := &r.stats
	st.devN[e.cat]++
	st.devNS[e.cat] = capture.SatAdd(st.devNS[e.cat], e.dur)
	if e.ts == 0 {
		st.devTs0++
	}
	if e.dur == 0 {
		st.devDur0++
	}
	qi := &r.queues[q]
	qi.dispatches++
	qi.ns = capture.SatAdd(qi.ns, e.dur)
	if end := e.ts + e.dur; end > r.maxDevEnd {
		r.maxDevEnd = end
	}
}

// runtimeCall reads a runtime/driver call: launch linkage.
func (r *reader) runtimeCall() {
	e := &r.ev
	r.used(useCall)
	call := r.internCall(e.name, e.off)
	ci := &r.calls[call]
	ci.count++
	if ci.class == nameInvalid {
		r.invalidRuns++
		if len(r.invalidRun) < capture.MaxItems {
			it := capture.Item{What: "runtime call named INVALID", Where: fmt.Sprintf("byte %d", e.off)}
			if e.hasCorr {
				it.What += fmt.Sprintf(" (correlation %d)", e.corr)
			}
			r.invalidRun = append(r.invalidRun, it)
		}
	}
	kind := ci.kind
	var thread uint32
	if kind.launch || kind.captureBegin || kind.captureEnd || kind.sync || r.ev.host {
		thread = r.internThread(e)
		r.syncs.call(kind, thread, e)
	}
	if (kind.captureBegin || kind.captureEnd) && e.hasTs {
		r.captures.mark(thread, e.ts, kind.captureBegin)
	}
	if !e.hasCorr || e.badCorr || e.corr == 0 {
		r.stats.callsNoCorr++
		return
	}
	if !r.hasCallCor || e.corr < r.minCallCor {
		r.minCallCor, r.hasCallCor = e.corr, true
	}
	rt := rtRec{corr: e.corr, ts: e.ts, dur: e.dur, call: call, thread: thread}
	if !e.hasTs || e.badTs || !e.hasDur || e.badDur {
		rt.dur = -1 // linked, but without a launch interval
	}
	r.link.runtime(r.log, rt, kind)
}

// annotation reads a gpu_user_annotation span.
func (r *reader) annotation() {
	e := &r.ev
	if !e.hasTs || !e.hasDur || e.badTs || e.badDur || e.dur < 0 {
		r.skip(rsBadDevice)
		r.invalidEvent("gpu_user_annotation without usable ts/dur")
		return
	}
	r.used(useAnnotation)
	k, _ := deviceKey(e)
	id := internString(r.annNameIdx, &r.annNames, e.name)
	r.anns = append(r.anns, annotation{q: k, start: e.ts, end: e.ts + e.dur, name: id, ext: e.ext, hasExt: e.hasExt})
}

// hostOp counts ProfilerStep#N annotations (the steps of the run); host
// ops are not device work.
func (r *reader) hostOp() {
	e := &r.ev
	if e.host {
		r.hostOpSpan() // still counted below: the event is no device work
	}
	if (e.cat == catUserAnnotation || e.cat == catOperator2021) && bytes.HasPrefix(e.name, []byte("ProfilerStep#")) {
		if n, ok := parseInt(e.name[len("ProfilerStep#"):]); ok {
			r.steps.add(n)
			if e.hasTs && !e.badTs && e.hasDur && !e.badDur && e.dur >= 0 {
				r.hostSteps = append(r.hostSteps, hostStep{start: e.ts, end: e.ts + e.dur, name: string(e.name)})
			}
		}
	}
	r.skip(rsHostOp)
}

// windowSpan reads the "Trace" span (the capture window).
func (r *reader) windowSpan() {
	e := &r.ev
	if e.hasDur && !e.badDur {
		r.window.span(e.ts, e.ts+e.dur)
	}
	r.used(useWindow)
}

// instant reads instant events: the end marker and iteration starts.
func (r *reader) instant() {
	e := &r.ev
	switch {
	case e.cat == catNone && string(e.name) == "Record Window End":
		r.window.endMarker = true
		r.used(useWindow)
	case e.cat == catNone && bytes.HasPrefix(e.name, []byte("Iteration Start")):
		r.used(useWindow)
	case e.cat == catUnknown:
		r.skip(rsUnknownCat)
	default:
		r.skip(rsHostOther)
	}
}

// invalidEvent records a device-side event whose times cannot be used.
func (r *reader) invalidEvent(what string) {
	r.invalidN++
	if len(r.invalid) < capture.MaxItems {
		it := capture.Item{What: what, Where: fmt.Sprintf("byte %d", r.ev.off)}
		if r.ev.hasName {
			it.Kernel = string(r.ev.name)
		}
		r.invalid = append(r.invalid, it)
	}
}

// gzipTrailing returns the bytes found after the end of a gzip input's
// last gzip stream, or nil: they are skipped input, not a cut JSON.
func (r *reader) gzipTrailing() *format.GzipTrailingError {
	var t *format.GzipTrailingError
	if errors.As(r.s.rerr, &t) {
		return t
	}
	return nil
}
