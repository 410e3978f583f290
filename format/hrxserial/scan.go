package hrxserial

import (
	"bytes"

	"github.com/tallyprof/tally/internal/decimal"
)

// tok is one line of a block, as a scan worker found it.
type tok struct {
	end int32 // the offset of the line's '\n' in the block
	// ref is, for a line that continues a command (form), the index among
	// the block's toks of the line that began the command: the parser
	// applies the line from t alone when that command is still the open
	// one (replay). For a line the scan parsed (contStart, contEvent) it
	// is the index of what it parsed among the block's parsed. Otherwise -1.
	ref   int32
	form  cont
	timed bool
	t     uint64
}

// Forms of a line that the parser applies from what the scan parsed.
const (
	contStart cont = contSyncEndPost + 1 + iota // a command's first line
	contEvent                                   // a trace line of another phase than a command's
	// contWhole is a traced command's first line that the next five
	// toks continue, in order: the parser applies all six at once.
	contWhole
)

// wholeSeq is the order of a traced command's five continuations.
var wholeSeq = [5]cont{contSyncEndPre, contBeginDispatch, contEndDispatch, contSyncBeginPost, contSyncEndPost}

// parsed is a line a scan worker parsed: a command's first line
// (contStart), or a trace line of another phase than a command's
// (contEvent). It holds no pointer (the GC skips the workers' arrays of
// them): the detail and the phase name are offsets in the block.
type parsed struct {
	d               detail
	detAt, detLen   int32 // the detail, empty when none
	nameAt, nameLen int32 // contEvent: the phase name
	ev              event
	ph              phase
	ok              bool // contEvent: its detail parsed
}

func (pr *parsed) det(block []byte) []byte { return block[pr.detAt : pr.detAt+pr.detLen] }

func (pr *parsed) phaseName(block []byte) []byte {
	return block[pr.nameAt : pr.nameAt+pr.nameLen]
}

// scanner is one scan worker's. fast false finds the lines and nothing
// more (every line then goes the general way).
type scanner struct {
	fast bool
	// details are the command details parsed so far, and lines the
	// other trace lines (after the prefix).
	details, lines detailCache
}

func newScanner(fast bool) *scanner {
	return &scanner{fast: fast, details: newDetailCache(), lines: newDetailCache()}
}

// commandDetail parses the detail of a command's first line into d and
// checks its form, as commandLine does.
func (sc *scanner) commandDetail(det []byte, d *detail) bool {
	if e := sc.details.get(det); e != nil {
		*d = e.d
		return true
	}
	if !parseDetail(det, d) || !wellFormed(phPre, d, false) {
		return false
	}
	e := sc.details.put(det)
	e.d, e.ok = *d, true
	return true
}

// otherLine parses b, a trace line after its prefix that does not begin
// as a command's first line, into pr as parseLine does (nl is where the
// line ends in the block), and returns contEvent, or 0 for a line not
// applied from what was parsed. A program writes the same few such lines
// again and again, so b is looked up before it is parsed.
func (sc *scanner) otherLine(b []byte, nl int, pr *parsed) cont {
	e := sc.lines.get(b)
	if e == nil {
		e = sc.lines.put(b)
		ev, ph, name, det, ok := parseEvent(b)
		if ok && ph != phPre && ph != phDispatch && ph != phPost {
			e.form, e.ev, e.ph = contEvent, ev, ph
			e.nameLen, e.detLen = int32(len(name)), int32(len(det))
			e.ok = true
			if len(det) > 0 {
				e.ok = parseDetail(det, &e.d)
			}
		}
	}
	if e.form == 0 {
		return 0
	}
	// The detail ends the line; the phase name ends before its blank, or
	// the line.
	pr.ev, pr.ph = e.ev, e.ph
	pr.detAt, pr.detLen = int32(nl)-e.detLen, e.detLen
	pr.nameAt, pr.nameLen = pr.detAt-e.nameLen, e.nameLen
	if e.detLen > 0 {
		pr.nameAt--
	}
	pr.d, pr.ok = e.d, e.ok
	return contEvent
}

// scan finds the lines of a block that begin after its first '\n' and end
// at its last, appending one tok per line to toks (and what it parsed of
// them to ps). It needs no state from before the block: a line is a
// continuation when it is one of the five texts (contText) with the
// detail of the latest command-first line before it in the block, exactly
// as that line ends; whether it really continues the open command only the
// parser knows.
func (sc *scanner) scan(buf []byte, toks []tok, ps []parsed) (first, last int, _ []tok, _ []parsed) {
	first = bytes.IndexByte(buf, '\n')
	if first < 0 {
		return -1, -1, toks, ps
	}
	last = first + 1 + bytes.LastIndexByte(buf[first+1:], '\n')
	ref := int32(-1)
	run := -1       // how many of wholeSeq follow toks[ref] so far; -1: not a whole command
	var tail []byte // the reference line's detail as its continuations end: " "+detail+"\n", or "\n"
	for p := first + 1; p <= last; {
		// Each tok is written in place, field by field: building one
		// and appending it copies it through the stack in loads wider
		// than the stores that built it, which stalls (store
		// forwarding fails) once a line.
		if len(toks) == cap(toks) {
			toks = append(toks, tok{})[:len(toks)]
		}
		toks = toks[:len(toks)+1]
		tk := &toks[len(toks)-1]
		if ref >= 0 {
			if n, f, t, timed := continuation(buf[p:last+1], tail); n > 0 {
				tk.end, tk.ref, tk.form, tk.timed, tk.t = int32(p+n-1), ref, f, timed, t
				p += n
				if run >= 0 && int(ref)+run+2 == len(toks) && f == wholeSeq[run] {
					if run++; run == len(wholeSeq) {
						toks[ref].form, run = contWhole, -1
					}
				} else {
					run = -1
				}
				continue
			}
		}
		nl := p + bytes.IndexByte(buf[p:last+1], '\n')
		tk.end, tk.ref, tk.form, tk.timed, tk.t = int32(nl), -1, 0, false, 0
		if sc.fast {
			// Parsed in place: a parsed is large.
			if len(ps) == cap(ps) {
				ps = append(ps, parsed{})[:len(ps)]
			}
			ps = ps[:len(ps)+1]
			pr := &ps[len(ps)-1]
			switch tk.form, tk.t, tk.timed = sc.parseLine(buf, p, nl, pr); tk.form {
			case contStart:
				ref, tail, run = int32(len(toks)-1), buf[nl:nl+1], -1
				if pr.detLen > 0 {
					tail, run = buf[pr.detAt-1:nl+1], 0
				}
				tk.ref = int32(len(ps) - 1)
			case contEvent:
				tk.ref = int32(len(ps) - 1)
			default:
				ps = ps[:len(ps)-1]
			}
		}
		p = nl + 1
	}
	return first, last, toks, ps
}

// parseLine parses the line buf[p:nl] into pr as the parser would (line,
// event) up to where the parser's state comes in, and returns contStart or
// contEvent for a line it can apply from what was parsed (replay), 0 for
// any other: a comment, a foreign line, a line the parser counts as
// malformed, a command line that is not a command's first, a line ending
// in '\r' (the parser drops it).
func (sc *scanner) parseLine(buf []byte, p, nl int, pr *parsed) (f cont, t uint64, timed bool) {
	line := buf[p:nl]
	if len(line) == 0 || line[len(line)-1] == '\r' {
		return 0, 0, false
	}
	t, rest, timed, over := stamp(line)
	if over || !bytes.HasPrefix(rest, tracePrefix) {
		return 0, 0, false
	}
	b := rest[len(tracePrefix):]
	if !bytes.HasPrefix(b, preBegin) {
		// Not a command's first line (parseEvent would not make it one).
		if sc.otherLine(b, nl, pr) == 0 {
			return 0, 0, false
		}
		return contEvent, t, timed
	}
	ev, ph, name, det, ok := parseEvent(b)
	if !ok {
		return 0, 0, false
	}
	// The detail ends the line; the phase name ends before its blank, or
	// the line.
	pr.ev, pr.ph = ev, ph
	pr.detAt, pr.detLen = int32(nl-len(det)), int32(len(det))
	pr.nameAt, pr.nameLen = pr.detAt-int32(len(name)), int32(len(name))
	if len(det) > 0 {
		pr.nameAt--
	}
	if ph == phPre && ev == evSyncBegin {
		// commandLine's checks of a first line, which need no state.
		if len(det) > 0 && !sc.commandDetail(det, &pr.d) {
			return 0, 0, false
		}
		return contStart, t, timed
	}
	// A longer phase name that begins as the first line's: another phase.
	if sc.otherLine(b, nl, pr) == 0 {
		return 0, 0, false
	}
	return contEvent, t, timed
}

// continuation returns the length, '\n' included, of the line data starts
// with when it is an optional stamp, one of the five continuation texts,
// then tail; 0 for any other line.
func continuation(data, tail []byte) (n int, f cont, t uint64, timed bool) {
	p := 0
	if data[0]-'0' <= 9 {
		v, k, over := decimal.Prefix(data)
		if k > decimal.MaxDigits || over || k >= len(data) || data[k] != ' ' {
			return 0, 0, 0, false
		}
		t, p, timed = v, k+1, true
	}
	rest := data[p:]
	if len(rest) < len(tracePrefix)+len(contText[contEndDispatch]) {
		return 0, 0, 0, false
	}
	// Which of the five it can be, told by one or two bytes; the
	// comparison below checks the whole text.
	at := len(tracePrefix)
	switch rest[at] {
	case 'b':
		f = contBeginDispatch
	case 'e':
		f = contEndDispatch
	case 's':
		switch {
		case rest[at+len("sync-")] == 'b':
			f = contSyncBeginPost
		case rest[at+len("sync-end phase=command-p")] == 'r':
			f = contSyncEndPre
		default:
			f = contSyncEndPost
		}
	default:
		return 0, 0, 0, false
	}
	w := contText[f]
	mid := p + len(w)
	end := mid + len(tail)
	if end > len(data) || !bytes.Equal(data[p:mid], w) || !bytes.Equal(data[mid:end], tail) {
		return 0, 0, 0, false
	}
	return end, f, t, timed
}
