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
	// one (replay). For a command's first line (form contStart) it is the
	// index of its parsed detail among the block's starts. Otherwise -1.
	ref   int32
	form  cont
	timed bool
	t     uint64
}

// contStart marks a command's first line, its detail parsed by the scan.
const contStart cont = contSyncEndPost + 1

// start is a command's first line as a scan worker parsed it.
type start struct {
	d   detail
	det int32 // the offset of the detail in the block (the line's end when it has none)
}

// scan finds the lines of a block that begin after its first '\n' and end
// at its last, appending one tok per line to toks. It needs no state from
// before the block: a line is a continuation when it is one of the five
// texts (contText) with the detail of the latest command-first line before
// it in the block, exactly as that line ends; whether it really continues
// the open command only the parser knows.
func scan(buf []byte, toks []tok, starts []start, fast bool) (first, last int, _ []tok, _ []start) {
	first = bytes.IndexByte(buf, '\n')
	if first < 0 {
		return -1, -1, toks, starts
	}
	last = first + 1 + bytes.LastIndexByte(buf[first+1:], '\n')
	ref := int32(-1)
	var tail []byte // the reference line's text after its phase, '\n' included
	for p := first + 1; p <= last; {
		if ref >= 0 {
			if n, f, t, timed := continuation(buf[p:last+1], tail); n > 0 {
				toks = append(toks, tok{end: int32(p + n - 1), ref: ref, form: f, timed: timed, t: t})
				p += n
				continue
			}
		}
		nl := p + bytes.IndexByte(buf[p:last+1], '\n')
		tk := tok{end: int32(nl), ref: -1}
		if fast {
			if t, timed, d, ok := commandTail(buf[p:nl]); ok {
				ref, tail = int32(len(toks)), buf[nl-len(d):nl+1]
				if st, ok := parseStart(d); ok {
					st.det = int32(nl - len(d))
					if len(d) > 0 {
						st.det++
					}
					tk = tok{end: int32(nl), ref: int32(len(starts)), form: contStart, timed: timed, t: t}
					starts = append(starts, st)
				}
			}
		}
		toks = append(toks, tk)
		p = nl + 1
	}
	return first, last, toks, starts
}

// parseStart parses the tail of a command's first line (commandTail) as
// the parser does (parseEvent, commandLine), and returns false for a line
// the parser counts as malformed.
func parseStart(d []byte) (st start, ok bool) {
	if len(d) == 0 {
		return st, true
	}
	if len(d) == 1 { // "phase=x " with a trailing blank: not in the grammar
		return st, false
	}
	return st, parseDetail(d[1:], &st.d) && wellFormed(phPre, &st.d, false)
}

// commandTail returns what follows "sync-begin phase=command-pre-dispatch"
// in line when line begins a command that way: "" or " "+detail, which
// the command's other lines repeat. A line ending in '\r' is not taken (the
// parser drops the '\r' from the detail).
func commandTail(line []byte) (t uint64, timed bool, d []byte, ok bool) {
	if len(line) == 0 || line[len(line)-1] == '\r' {
		return 0, false, nil, false
	}
	t, rest, timed, over := stamp(line)
	if over || !bytes.HasPrefix(rest, tracePrefix) || !bytes.HasPrefix(rest[len(tracePrefix):], preBegin) {
		return 0, false, nil, false
	}
	d = rest[len(tracePrefix)+len(preBegin):]
	if len(d) > 0 && d[0] != ' ' {
		return 0, false, nil, false
	}
	return t, timed, d, true
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
	switch rest[len(tracePrefix)] {
	case 'b':
		f = contBeginDispatch
	case 'e':
		f = contEndDispatch
	case 's':
		switch {
		case bytes.HasPrefix(rest, contText[contSyncEndPre]):
			f = contSyncEndPre
		case bytes.HasPrefix(rest, contText[contSyncBeginPost]):
			f = contSyncBeginPost
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
