package kineto

import "bytes"

// idKind says how a pid or tid was written.
type idKind uint8

const (
	idMissing      idKind = iota
	idNum                 // a JSON integer
	idNumStr              // a string of digits ("25738", 2021 CPU tids)
	idStream              // "stream 7" (2021 GPU tids)
	idOther               // any other string ("Spans", "", "PyTorch Profiler")
	idBad                 // a value of another type, or out of range
	idCPUFunctions        // "CPU functions": host events of the pre-Kineto autograd profiler
)

// id is a pid or tid.
type id struct {
	n    int64
	kind idKind
}

func (i id) numeric() bool { return i.kind == idNum || i.kind == idNumStr || i.kind == idStream }

// event holds the fields of one trace event that tally uses. It is reused
// for every event: slices keep their capacity, so reading allocates nothing
// per event.
type event struct {
	parsed
	catRaw  []byte // the category as written, for unknown ones
	name    []byte
	argName []byte // M events: args.name or args.labels

	// host is set for the whole read when host ops are attributed
	// (ops.go): host ops are then read, not skipped.
	host  bool
	shape opArgs // a host op's record_shapes args, when host is set
}

// parsed are an event's fields without pointers: a split read (split.go)
// hands them from core to core in batches the collector does not scan.
// Eight-byte fields first: the record stays small.
type parsed struct {
	off int64 // input offset of the event's '{'

	ts, dur int64 // ns, in the file's own time base
	corr    uint64
	device  int64
	stream  int64
	ext     int64 // args "External id"

	pid, tid id

	ph  byte // 0 when missing
	cat catID

	hasName       bool
	hasTs, hasDur bool
	badTs, badDur bool // present but not a usable number
	tsFl, durFl   numFlags

	hasCorr   bool
	badCorr   bool
	hasDevice bool
	hasStream bool
	hasExt    bool
	hasArg    bool

	// coll: a collective library's kernel, whose args are read to the end
	// for its collective (collective.go).
	coll bool
}

func (e *event) reset(off int64) {
	*e = event{parsed: parsed{off: off}, catRaw: e.catRaw[:0], name: e.name[:0], argName: e.argName[:0], host: e.host}
}

// wantName reports whether the event's name matters for its category as
// far as it is known: host ops (the bulk of a trace) are skipped unread.
func (e *event) wantName() bool {
	switch e.cat.class() {
	case clsHostOp:
		// ProfilerStep#N is a user_annotation (2021: Operator).
		return e.cat == catUserAnnotation || e.cat == catOperator2021 || e.host
	case clsFlow, clsHostOther:
		return e.cat == catCPUInstant
	}
	return true
}

// sortIndex names the metadata events that only order the viewer's rows.
func sortIndex(name []byte) bool {
	return string(name) == "process_sort_index" || string(name) == "thread_sort_index"
}

// skippable reports whether nothing after the category matters: the
// event is counted by phase and category, and skipped.
func (e *event) skippable() bool {
	switch e.cat.class() {
	case clsHostOp:
		return (e.cat == catCPUOp || e.cat == catPythonFunction) && !e.host
	case clsFlow, clsCounters:
		return true
	case clsHostOther:
		return e.cat != catCPUInstant
	}
	return false
}

// wantArgs reports whether the event's args hold anything tally uses.
func (e *event) wantArgs() bool {
	if e.ph == 'M' {
		return true
	}
	switch e.cat.class() {
	case clsDevice, clsRuntime, clsGPUAnnotation, clsNone, clsUnknown:
		return true
	case clsHostOp:
		// The 2021 schema's Operator events are the ATen ops (and steps).
		return e.host && (e.cat == catCPUOp || e.cat == catOperator2021)
	}
	return false
}

// Event keys, as ids for the key guesses (guess.go).
const (
	ekStart = iota // before the first key: the guess for it
	ekPh
	ekCat
	ekName
	ekPid
	ekTid
	ekTs
	ekDur
	ekArgs
	ekOther
	numEventKeys
)

func eventKey(k []byte) int {
	switch string(k) {
	case "ph":
		return ekPh
	case "cat":
		return ekCat
	case "name":
		return ekName
	case "pid":
		return ekPid
	case "tid":
		return ekTid
	case "ts":
		return ekTs
	case "dur":
		return ekDur
	case "args":
		return ekArgs
	}
	return ekOther
}

// phClass sorts phases for the key guesses: flows order their keys
// unlike complete events.
var phClass = [256]uint8{'X': 1, 's': 2, 'f': 2, 't': 2, 'M': 3, 'i': 3, 'I': 3, 'C': 3, 'B': 3, 'E': 3}

// nextEventKey reads the next member's key of the event, after key prev
// (ekStart: the '{' and the first key): its id, and more false at the
// event's '}'. A right guess (guess.go) takes the key in two comparisons.
func (r *reader) nextEventKey(prev int) (id int, more bool) {
	s := r.s
	g := &r.evGuess[prev][phClass[r.ev.ph]]
	if p := s.pos; g.n != 0 && p >= 0 && p+guessLen < s.end && g.matches(s.buf[p:p+guessLen+1]) {
		if prev == ekStart {
			s.enter()
		}
		s.pos = p + g.n
		return g.id, true
	}
	start, off := s.pos, s.off
	var k []byte
	var esc bool
	if prev == ekStart {
		k, esc, more = s.objectFirst()
	} else {
		k, esc, more = s.nextMember()
	}
	if !more {
		return 0, false
	}
	raw := k
	if esc {
		k = unescape(r.keyBuf[:0], k)
	}
	id = eventKey(k)
	if !r.noGuess {
		s.learn(g, start, off, raw, esc, id)
	}
	return id, true
}

// parseEvent reads one event object (buf[pos] == '{') into r.ev.
func (r *reader) parseEvent() {
	s := r.s
	e := &r.ev
	e.reset(s.offset())
	id, more := r.nextEventKey(ekStart)
	if !more {
		return
	}
	for {
		switch id {
		case ekPh:
			if c, ok := s.oneChar(); ok {
				e.ph = c
			} else if s.nonWS() == '"' {
				raw, _ := s.str()
				if len(raw) > 0 {
					e.ph = raw[0]
				}
				if len(raw) != 1 {
					e.ph = '?'
				}
			} else {
				s.skipValue()
				e.ph = '?'
				break
			}
			if e.ph == 'M' && e.hasName && sortIndex(e.name) || e.cat > catUnknown && e.skippable() {
				s.skipObjectRest() // nothing else in this event is used
				return
			}
		case ekCat:
			if s.nonWS() == '"' {
				raw, esc := s.str()
				if esc {
					raw = unescape(r.keyBuf[:0], raw)
				}
				e.cat = lookupCat(raw)
				if e.cat == catUnknown {
					e.catRaw = append(e.catRaw[:0], raw...)
				} else if e.ph != 0 && e.skippable() {
					// Nothing else in this event is used.
					s.skipObjectRest()
					return
				}
			} else {
				s.skipValue()
				e.cat = catUnknown
				e.catRaw = append(e.catRaw[:0], "(not a string)"...)
			}
		case ekName:
			if e.cat != catNone && !e.wantName() {
				s.skipValue()
				break
			}
			e.name, e.hasName = s.strValue(e.name)
			if e.ph == 'M' && sortIndex(e.name) {
				s.skipObjectRest()
				return
			}
			if e.host && e.cat == catPythonFunction && e.ph != 0 && !bytes.HasPrefix(e.name, modulePrefix) {
				// A Python frame other than a module (with_stack writes
				// many): no op, no path (ops.go).
				s.skipObjectRest()
				return
			}
		case ekPid:
			e.pid = r.parseID()
		case ekTid:
			e.tid = r.parseID()
		case ekTs:
			e.ts, e.tsFl, e.hasTs, e.badTs = r.parseTime()
		case ekDur:
			e.dur, e.durFl, e.hasDur, e.badDur = r.parseTime()
		case ekArgs:
			if e.cat != catNone && !e.wantArgs() || s.nonWS() != '{' {
				s.skipValue()
				break
			}
			r.parseArgs()
		default:
			s.skipValue()
		}
		if id, more = r.nextEventKey(id); !more {
			return
		}
	}
}

// parseID reads a pid or tid: an integer, a numeric string, "stream N", or
// another string.
func (r *reader) parseID() id {
	s := r.s
	c := s.nonWS()
	if c == '"' {
		raw, _ := s.str()
		if n, ok := parseInt(raw); ok && len(raw) > 0 && raw[0] != '-' && raw[0] != '+' {
			return id{n: n, kind: idNumStr}
		}
		if rest, ok := bytes.CutPrefix(raw, []byte("stream ")); ok {
			if n, ok := parseInt(rest); ok {
				return id{n: n, kind: idStream}
			}
		}
		if string(raw) == "CPU functions" {
			return id{kind: idCPUFunctions}
		}
		return id{kind: idOther}
	}
	if c == '-' || isDigit(c) {
		if n, ok := s.intFast(); ok {
			return id{n: n, kind: idNum}
		}
		tok := s.checkedNum()
		if n, ok := parseInt(tok); ok {
			return id{n: n, kind: idNum}
		}
		return id{kind: idBad}
	}
	s.skipValue()
	return id{kind: idBad}
}

// parseTime reads ts or dur (µs) into ns exactly; a string holding a number
// is accepted and counted (torch_npu writes them).
func (r *reader) parseTime() (ns int64, fl numFlags, has, bad bool) {
	s := r.s
	c := s.nonWS()
	var tok []byte
	switch {
	case c == '-' || isDigit(c):
		if ns, fl, ok := micros(s.buf[:s.end], &s.pos, false); ok {
			return ns, fl, true, false
		}
		tok = s.num()
	case c == '"':
		tok, _ = s.str()
		r.stats.asString++
	default:
		s.skipValue()
		return 0, 0, true, true
	}
	ns, fl, ok := microsToNS(tok)
	if !ok {
		if c != '"' {
			// Not even a number: a syntax error, unless it is a valid
			// number outside int64 nanoseconds.
			if _, valid := splitNumber(tok); !valid {
				if s.atEOF() {
					s.truncated()
				}
				s.pos -= len(tok)
				s.fail("invalid number %q", clip(tok, 40))
			}
		}
		return 0, fl, true, true
	}
	if fl&numRounded != 0 {
		r.stats.subns++
	}
	return ns, fl, true, false
}

// parseArgs reads the args object, keeping only linkage and naming keys.
func (r *reader) parseArgs() {
	s := r.s
	e := &r.ev
	id, k, more := r.nextArgKey(akStart)
	if !more {
		return
	}
	if e.cat.class() == clsDevice && collectiveKernel(e.name) {
		e.coll = true
		r.beginCollective()
	}
	for {
		switch id {
		case akCorr:
			e.corr, e.hasCorr, e.badCorr = r.argUint()
		case akDevice:
			var ok bool
			e.device, ok = r.argInt()
			e.hasDevice = ok
		case akStream:
			var ok bool
			e.stream, ok = r.argInt()
			e.hasStream = ok
		case akExt:
			e.ext, e.hasExt = r.argInt()
		case akName:
			if e.ph == 'M' || e.ph == 0 {
				e.argName, e.hasArg = s.strValue(e.argName)
			} else {
				s.skipValue()
			}
		case akDims, akTypes, akConcrete:
			if e.host && (e.cat == catCPUOp || e.cat == catOperator2021) {
				r.opArg(id) // a record_shapes arg (ops.go)
				break
			}
			fallthrough
		default:
			switch {
			case e.coll && r.collArg(k):
			case r.tb != nil && string(k) == "tally":
				r.tb.readArg(r, e.off) // tally export's placement of a kernel
			default:
				s.skipValue()
			}
		}
		if r.argsDone() {
			// The rest (grid, occupancy, shapes…) is not used.
			s.skipObjectRest()
			return
		}
		if id, k, more = r.nextArgKey(id); !more {
			return
		}
	}
}

// Args keys, as ids for the key guesses.
const (
	akStart = iota
	akCorr
	akDevice
	akStream
	akExt
	akName
	// record_shapes args (ops.go), and the keys cpu_ops write around them:
	// with ids of their own, each key's guess can follow the one before.
	akDims
	akTypes
	akConcrete
	akStrides
	akRecFn
	akEvIdx
	akSeq
	akOther
	numArgKeys
)

func argKey(k []byte) int {
	switch string(k) {
	case "correlation":
		return akCorr
	case "device":
		return akDevice
	case "stream":
		return akStream
	case "External id":
		return akExt
	case "name", "labels":
		return akName
	case "Input Dims":
		return akDims
	case "Input type":
		return akTypes
	case "Concrete Inputs":
		return akConcrete
	case "Input Strides":
		return akStrides
	case "Record function id":
		return akRecFn
	case "Ev Idx":
		return akEvIdx
	case "Sequence number":
		return akSeq
	}
	return akOther
}

// nextArgKey is nextEventKey for the members of args, guessed per class
// of event (kernels' args and calls' args differ). k is the key, for keys
// without an id of their own.
func (r *reader) nextArgKey(prev int) (id int, k []byte, more bool) {
	s := r.s
	cls := r.ev.cat.class()
	if r.ev.ph == 'M' || r.ev.ph == 0 {
		cls = numClasses // metadata and phase-less events apart
	}
	g := &r.argGuess[cls][prev]
	if p := s.pos; g.n != 0 && p >= 0 && p+guessLen < s.end && g.matches(s.buf[p:p+guessLen+1]) {
		if prev == akStart {
			s.enter()
		}
		s.pos = p + g.n
		return g.id, g.key[:g.klen], true
	}
	start, off := s.pos, s.off
	var esc bool
	if prev == akStart {
		k, esc, more = s.objectFirst()
	} else {
		k, esc, more = s.nextMember()
	}
	if !more {
		return 0, nil, false
	}
	raw := k
	if esc {
		k = unescape(r.keyBuf[:0], k)
	}
	id = argKey(k)
	if !r.noGuess {
		s.learn(g, start, off, raw, esc, id)
	}
	return id, k, true
}

// argsDone reports whether every args key the event can use was read.
// Kineto writes correlation after device and stream.
func (r *reader) argsDone() bool {
	e := &r.ev
	if e.ph == 'M' || e.ph == 0 || e.coll {
		return false
	}
	switch e.cat.class() {
	case clsRuntime:
		return e.hasCorr || e.badCorr
	case clsDevice:
		return (e.hasCorr || e.badCorr) && e.pid.numeric() && e.tid.numeric()
	case clsGPUAnnotation:
		return e.hasExt && e.pid.numeric() && e.tid.numeric()
	case clsHostOp:
		return e.shape.done()
	}
	return false
}

// argInt reads an integer argument (a number or a numeric string).
func (r *reader) argInt() (int64, bool) {
	s := r.s
	c := s.nonWS()
	if c == '"' {
		raw, _ := s.str()
		return parseInt(raw)
	}
	if c == '-' || isDigit(c) {
		if n, ok := s.intFast(); ok {
			return n, true
		}
		return parseInt(s.checkedNum())
	}
	s.skipValue()
	return 0, false
}

// argUint reads a correlation id: up to 2^64-1; bad when present but not a
// non-negative integer.
func (r *reader) argUint() (v uint64, has, bad bool) {
	s := r.s
	c := s.nonWS()
	if c == '"' {
		raw, _ := s.str()
		v, ok := parseUint(raw)
		return v, ok, !ok
	}
	if c == '-' || isDigit(c) {
		if n, ok := s.intFast(); ok {
			// intFast consumed the number: a negative one is read and bad,
			// not read again (that parsed the text after it as a number).
			return uint64(max(n, 0)), n >= 0, n < 0
		}
		v, ok := parseUint(s.checkedNum())
		return v, ok, !ok
	}
	s.skipValue()
	return 0, false, true
}
