// Package jsoncap bounds the strings of a JSON text before a decoder sees
// them. encoding/json holds a whole token (a 1 GiB kernel name) in memory;
// reading through a Reader, it gets each string cut to fit
// capture.MaxName, marked "…[truncated from N bytes]", and memory stays
// bounded by the decoder's own needs for everything else.
package jsoncap

import (
	"bytes"
	"io"
	"sort"

	"github.com/tallyprof/tally/capture"
)

// keep is how many content bytes (as written) a cut string keeps: the
// longest marker and the longest unit (a surrogate pair's two \u escapes,
// which a cut never splits) fit after it within capture.MaxName.
const keep = capture.MaxName - len("…[truncated from  bytes]") - 19 - 12

// headLen is how many bytes of a cut string OnCut is shown.
const headLen = 200

// Reader passes the JSON text of R through, each string whose content
// runs past keep bytes as written cut at the last escape and UTF-8
// boundary before it and marked. It only tracks quotes and escapes:
// the text's structure is never changed, and only what a cut drops (which
// may hold a malformed escape) differs from the input.
type Reader struct {
	R io.Reader
	// OnCut, when set, is told of each cut string: the input offset of its
	// opening quote, its content's length in bytes as written, and its
	// first bytes.
	OnCut func(off, full int64, head []byte)

	buf  []byte
	i, n int
	err  error
	off  int64 // input offset of buf[i]
	outN int64 // bytes handed out

	pend []byte // marker and quote still to hand out

	inStr    bool
	escLeft  int  // bytes left of the escape being read (0: none)
	hex      rune // the \u escape's value so far
	inHex    bool // reading the four hex digits of a \u escape
	pairNext bool // a high surrogate escape ended: its pair follows, no cut here
	dropping bool
	strOff   int64 // input offset of the open string's quote
	strN     int64 // its content bytes so far
	head     []byte

	cuts []cut
}

// cut maps offsets after one cut string: out is the output offset just
// past its closing quote, delta how many more input bytes lie before it.
type cut struct{ out, delta int64 }

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	if r.buf == nil {
		r.buf = make([]byte, 64<<10)
	}
	w := 0
	for w < len(p) {
		if len(r.pend) > 0 {
			k := copy(p[w:], r.pend)
			r.pend = r.pend[k:]
			w += k
			r.outN += int64(k)
			continue
		}
		if r.i >= r.n {
			if w > 0 || r.err != nil {
				break
			}
			r.n, r.err = r.R.Read(r.buf)
			r.i = 0
			continue
		}
		if k := r.run(p[w:]); k >= 0 {
			w += k
			continue
		}
		c := r.buf[r.i]
		r.i++
		if r.emit(c) {
			p[w] = c
			w++
			r.outN++
		}
		r.off++
	}
	if w == 0 && r.err != nil {
		return 0, r.err
	}
	return w, nil
}

// run hands out (or, in a string being cut, drops) a run of bytes in
// which no quote, escape or cut decision falls, at once rather than byte
// by byte; it returns how many bytes it wrote to p, or -1 when the next
// byte needs emit.
func (r *Reader) run(p []byte) int {
	in := r.buf[r.i:r.n]
	switch {
	case !r.inStr:
		// Up to the next quote, and on through each string that closes
		// here, short and without an escape, as nearly all do.
		lim := min(len(in), len(p))
		k := 0
		for k < lim {
			q := bytes.IndexByte(in[k:lim], '"')
			if q < 0 {
				k = lim
				break
			}
			q += k
			e := specialIndex(in[q+1 : lim])
			if c := q + 1 + e; c < lim && in[c] == '"' && e <= keep {
				k = c + 1
				continue
			}
			k = q
			break
		}
		if k == 0 {
			return -1
		}
		copy(p, in[:k])
		r.i += k
		r.off += int64(k)
		r.outN += int64(k)
		return k
	case r.escLeft > 0 || r.pairNext:
		return -1
	case r.dropping:
		k := specialIndex(in)
		if k <= 0 {
			return -1
		}
		r.content(in[:k])
		r.i += k
		r.off += int64(k)
		return 0
	}
	room := int64(keep) - r.strN // before this, no cut is decided
	if room <= 0 {
		return -1
	}
	if int64(len(in)) > room {
		in = in[:room]
	}
	if len(in) > len(p) {
		in = in[:len(p)]
	}
	k := specialIndex(in)
	if k <= 0 {
		return -1
	}
	copy(p, in[:k])
	r.content(in[:k])
	r.i += k
	r.off += int64(k)
	r.outN += int64(k)
	return k
}

// specialIndex returns the index of the first quote or backslash in b, or
// len(b).
func specialIndex(b []byte) int {
	k := bytes.IndexByte(b, '"')
	if k < 0 {
		k = len(b)
	}
	if e := bytes.IndexByte(b[:k], '\\'); e >= 0 {
		return e
	}
	return k
}

// emit advances the string state over input byte c (at input offset
// r.off) and reports whether c is handed out now. A cut string's closing
// quote is handed out after its marker, through pend.
func (r *Reader) emit(c byte) bool {
	if !r.inStr {
		if c == '"' {
			r.inStr, r.strOff, r.strN, r.escLeft, r.pairNext, r.dropping = true, r.off, 0, 0, false, false
			r.head = r.head[:0]
		}
		return true
	}
	if r.escLeft > 0 && (!r.inHex || hexVal(c) >= 0) {
		// Inside an escape: no place to cut, and not the string's end.
		r.escape(c)
		return r.content(r.buf[r.i-1 : r.i])
	}
	r.escLeft, r.inHex = 0, false // a \u escape cut short (malformed): c is read as itself

	if c == '"' {
		r.inStr = false
		if !r.dropping {
			return true
		}
		marker := capture.CutMarker(r.strN)
		r.pend = append(append(r.pend[:0], marker...), '"')
		// The quote's output offset, past the marker, maps to its input
		// offset from here on.
		r.cuts = append(r.cuts, cut{out: r.outN + int64(len(marker)), delta: r.off - r.outN - int64(len(marker))})
		if r.OnCut != nil {
			r.OnCut(r.strOff, r.strN, r.head)
		}
		return false
	}
	// c starts a unit (an escape, a rune, an ASCII byte) or continues a
	// rune: cut only where one starts.
	if !r.dropping && c&0xC0 != 0x80 && !r.pairNext && r.strN >= int64(keep) {
		r.dropping = true
	}
	r.pairNext = false
	if c == '\\' {
		r.escLeft = 1
	}
	return r.content(r.buf[r.i-1 : r.i])
}

// content counts content bytes of the open string and reports whether
// they are handed out (not once the string is being cut).
func (r *Reader) content(b []byte) bool {
	r.strN += int64(len(b))
	if n := headLen - len(r.head); n > 0 {
		r.head = append(r.head, b[:min(n, len(b))]...)
	}
	return !r.dropping
}

// escape follows the bytes of an escape after its backslash.
func (r *Reader) escape(c byte) {
	switch {
	case r.escLeft == 1 && !r.inHex:
		if c == 'u' {
			r.inHex, r.escLeft, r.hex = true, 4, 0
			return
		}
		r.escLeft = 0
	default: // a hex digit of \uXXXX
		r.hex = r.hex<<4 | hexVal(c)
		r.escLeft--
		if r.escLeft == 0 {
			r.inHex = false
			r.pairNext = r.hex >= 0xD800 && r.hex < 0xDC00
		}
	}
}

// hexVal is c's value as a hex digit, -1 when it is not one.
func hexVal(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

// Offset returns the input offset of output offset out (a decoder's
// InputOffset), so positions and byte counts are the file's own.
func (r *Reader) Offset(out int64) int64 {
	i := sort.Search(len(r.cuts), func(i int) bool { return r.cuts[i].out > out })
	if i == 0 {
		return out
	}
	return out + r.cuts[i-1].delta
}
