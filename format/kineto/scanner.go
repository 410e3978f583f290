package kineto

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"

	"github.com/tallyprof/tally/capture"
)

// scanner is a streaming JSON tokenizer specialised for trace files: it
// reads the input in large blocks, hands out raw tokens as slices of its
// buffer (valid until the next read), and skips what tally does not need
// without building values. It validates the grammar of everything it
// passes over, skipped or not, so a malformed file stops at its first
// error instead of being misread.
//
// Errors unwind with a panic of *stopError, recovered by the reader: the hot
// paths then need no error plumbing.
type scanner struct {
	r   io.Reader
	buf []byte
	pos int // next unread byte in buf
	end int // bytes of buf holding input
	off int64
	eof bool
	// rerr is the first read error other than io.EOF (a corrupt gzip
	// stream, an I/O error): the input ends there.
	rerr  error
	depth int
	// drained counts input read after the scan stopped, only to account
	// for every byte.
	drained int64
	keyCopy []byte
	stack   []byte // open brackets while skipping
	// long holds a string longer than capture.MaxName, cut (longStr);
	// onLong, when set, is told of each such cut.
	long   []byte
	onLong func(off, full int64, head []byte)
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 512

// stopError ends a scan: the input was cut (eof) or is not valid JSON.
type stopError struct {
	off int64 // byte offset (in the decompressed input) where it stopped
	msg string
	eof bool
}

func (e *stopError) Error() string { return fmt.Sprintf("byte %d: %s", e.off, e.msg) }

func newScanner(r io.Reader, size int) *scanner {
	if size < 16 {
		size = 16
	}
	if size == defaultConfig.bufSize {
		if b, ok := blocks.get(); ok {
			return &scanner{r: r, buf: b}
		}
	}
	return &scanner{r: r, buf: make([]byte, size)}
}

// release gives the scanner's block to the next read (reuse.go). Nothing
// read may alias it any more: names and keys the reader keeps are copies.
func (s *scanner) release() {
	if len(s.buf) == defaultConfig.bufSize {
		blocks.put(s.buf)
	}
	s.buf, s.pos, s.end = nil, 0, 0
}

// seek makes the scanner read r, the input from offset off on: a split
// read (split.go) jumps over the events its workers parsed.
func (s *scanner) seek(r io.Reader, off int64) {
	s.r, s.off, s.pos, s.end, s.eof = r, off, 0, 0, false
}

// atEOF reports whether every input byte has been consumed.
func (s *scanner) atEOF() bool { return s.pos >= s.end && s.eof }

// offset returns the input offset of the next unread byte.
func (s *scanner) offset() int64 { return s.off + int64(s.pos) }

// read returns the total number of input bytes read so far.
func (s *scanner) read() int64 { return s.off + int64(s.end) + s.drained }

func (s *scanner) fail(format string, args ...any) {
	panic(&stopError{off: s.offset(), msg: fmt.Sprintf(format, args...)})
}

func (s *scanner) truncated() {
	msg := "the input ends inside a JSON value"
	if s.rerr != nil {
		msg = "the input could not be read further: " + s.rerr.Error()
	}
	panic(&stopError{off: s.read(), msg: msg, eof: true})
}

// more reads further input. It keeps buf[keep:end], moving it to the front
// (growing the buffer when the kept bytes fill it), and returns by how much
// indexes into buf moved left. ok is false when the input is exhausted.
func (s *scanner) more(keep int) (shift int, ok bool) {
	if s.eof {
		return 0, false
	}
	if keep > 0 {
		n := copy(s.buf, s.buf[keep:s.end])
		s.end = n
		s.off += int64(keep)
		s.pos -= keep
		shift = keep
	}
	if s.end == len(s.buf) {
		// One token larger than the buffer (a huge name): grow. Memory
		// is then bounded by the largest string tally must hold whole.
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	got := false
	for s.end < len(s.buf) {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if n > 0 {
			got = true
		}
		if err != nil {
			if err != io.EOF {
				s.rerr = err
			}
			s.eof = true
			break
		}
		// A few large reads beat many small ones, but do not wait for a
		// full buffer: gzip hands out data in window-sized pieces.
		if got && s.end >= len(s.buf)/2 {
			break
		}
	}
	return shift, got
}

// nonWS skips whitespace and returns the next byte without consuming it.
// The end of input is a truncation here. The common case (no whitespace)
// stays small enough to be inlined.
func (s *scanner) nonWS() byte {
	if s.pos < s.end && s.buf[s.pos] > ' ' {
		return s.buf[s.pos]
	}
	return s.nonWSSlow()
}

var wsTab = [256]bool{' ': true, '\n': true, '\r': true, '\t': true}

// skipWS returns the index of the first byte at or after p in b that is
// not whitespace (len(b) if none). Pretty-printed traces indent every line,
// so runs of spaces are compared eight bytes at a time.
func skipWS(b []byte, p int) int {
	for p < len(b) {
		c := b[p]
		if c > ' ' {
			return p
		}
		if c == ' ' && p+8 <= len(b) {
			if x := binary.LittleEndian.Uint64(b[p:p+8]) ^ 0x2020202020202020; x != 0 {
				p += bits.TrailingZeros64(x) >> 3
			} else {
				p += 8
			}
			continue
		}
		if !wsTab[c] {
			return p
		}
		p++
	}
	return p
}

// SWAR ("SIMD within a register") helpers: find a byte in eight at once.
const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// quoteOrEscape returns a mask whose lowest set bit marks the first '"' or
// '\\' among the eight bytes of x (0 when there is none).
func quoteOrEscape(x uint64) uint64 {
	q := x ^ (swarLo * '"')
	e := x ^ (swarLo * '\\')
	return ((q-swarLo)&^q | (e-swarLo)&^e) & swarHi
}

// quoteColonSpace reports whether the four bytes of x (little endian) are
// `": ` and a byte that is not whitespace: the end of a key as writers
// space it, and the start of its value.
func quoteColonSpace(x uint32) bool {
	return x&0xFFFFFF == '"'|':'<<8|' '<<16 && x>>24 > ' '
}

func (s *scanner) nonWSSlow() byte {
	for {
		if p := skipWS(s.buf[:s.end], s.pos); p < s.end {
			s.pos = p
			return s.buf[p]
		}
		s.pos = s.end
		if _, ok := s.more(s.pos); !ok {
			s.truncated()
		}
	}
}

// nonWSOrEOF is nonWS where the end of input is allowed (after the
// top-level value); ok is false at the end.
func (s *scanner) nonWSOrEOF() (byte, bool) {
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			if c == ' ' || c == '\n' || c == '\r' || c == '\t' {
				s.pos++
				continue
			}
			return c, true
		}
		if _, ok := s.more(s.pos); !ok {
			return 0, false
		}
	}
}

// expect consumes byte c after optional whitespace.
func (s *scanner) expect(c byte, what string) {
	if s.nonWS() != c {
		s.fail("expected %s, found %s", what, s.describe())
	}
	s.pos++
}

// describe names the byte at pos for error messages.
func (s *scanner) describe() string {
	if s.pos >= s.end {
		return "the end of the input"
	}
	c := s.buf[s.pos]
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// scanStr looks for the closing quote of a string whose content continues
// at buf[i]. It returns the quote's index (closed), or where to resume after
// more input (the end, or one past it after an escape at the last byte).
// Each byte is examined a bounded number of times, however many escapes.
func (s *scanner) scanStr(i int) (next int, closed, esc bool) {
	end := s.end
	// Most strings are short: eight bytes at a time beats two IndexByte
	// calls for their first bytes.
	b := s.buf[:end]
	if i >= 0 && i+16 <= end {
		// Keys and short values close within sixteen bytes.
		m := quoteOrEscape(binary.LittleEndian.Uint64(b[i : i+8]))
		if m == 0 {
			i += 8
			m = quoteOrEscape(binary.LittleEndian.Uint64(b[i : i+8]))
		}
		if m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			if b[i] == '"' {
				return i, true, false
			}
		} else {
			i += 8
		}
	}
	for lim := min(i+32, end-8); i <= lim; {
		if m := quoteOrEscape(binary.LittleEndian.Uint64(b[i : i+8])); m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			if b[i] == '"' {
				return i, true, false
			}
			break
		}
		i += 8
	}
	q := -1 // the next quote at or after i, or end when there is none
	for i < end {
		if q < i {
			if k := bytes.IndexByte(s.buf[i:end], '"'); k >= 0 {
				q = i + k
			} else {
				q = end
			}
		}
		k := bytes.IndexByte(s.buf[i:q], '\\')
		if k < 0 {
			return q, q < end, esc
		}
		esc = true
		i += k + 2
	}
	return i, false, esc
}

// str consumes the string starting at pos (buf[pos] == '"') and returns its
// raw bytes, escapes not decoded, contiguous in buf. esc reports whether it
// holds a backslash escape.
func (s *scanner) str() (raw []byte, esc bool) {
	start := s.pos + 1
	i := start
	for {
		j, closed, e := s.scanStr(i)
		esc = esc || e
		if j-start > capture.MaxName {
			// Longer than tally keeps, whether it closed in this buffer
			// or not: the cut never depends on the buffer size.
			return s.longStr(start, j, closed)
		}
		if closed {
			s.pos = j + 1
			return s.buf[start:j], esc
		}
		i = j
		s.pos = start - 1
		shift, ok := s.more(start - 1)
		if !ok {
			s.truncated()
		}
		start -= shift
		i -= shift
	}
}

// key consumes a short string (an object key): a byte loop beats
// IndexByte for the few bytes keys have. Escapes and keys that cross the
// end of the buffer take the general path.
func (s *scanner) key() (raw []byte, esc bool) {
	start := s.pos + 1
	b := s.buf[start:s.end]
	for i, c := range b {
		if c == '"' {
			s.pos = start + i + 1
			return b[:i], false
		}
		if c == '\\' {
			break
		}
	}
	return s.str()
}

// skipStr consumes a string without keeping it whole: long strings (stack
// traces, shapes) stream through the buffer.
func (s *scanner) skipStr() {
	i := s.pos + 1
	for {
		j, closed, _ := s.scanStr(i)
		if closed {
			s.pos = j + 1
			return
		}
		// Keep nothing before j; j may sit one past the end after an
		// escape at the block's last byte.
		keep := j
		if keep > s.end {
			keep = s.end
		}
		s.pos = keep
		shift, ok := s.more(keep)
		if !ok {
			s.truncated()
		}
		i = j - shift
	}
}

var numChar = func() (t [256]bool) {
	for _, c := range []byte("0123456789+-.eE") {
		t[c] = true
	}
	return
}()

// num consumes a number token and returns its raw bytes (not validated).
func (s *scanner) num() []byte {
	start := s.pos
	i := start
	for {
		for i < s.end {
			if !numChar[s.buf[i]] {
				s.pos = i
				return s.buf[start:i]
			}
			i++
		}
		s.pos = start
		shift, ok := s.more(start)
		start -= shift
		i -= shift
		if !ok {
			// A number at the very end cannot end a trace document: the
			// caller's next read reports the truncation.
			s.pos = i
			return s.buf[start:i]
		}
	}
}

// lit consumes the literal word (true, false, null).
func (s *scanner) lit(word string) {
	for k := 0; k < len(word); k++ {
		if s.pos >= s.end {
			if _, ok := s.more(s.pos); !ok {
				s.truncated()
			}
		}
		if s.buf[s.pos] != word[k] {
			s.fail("invalid literal (expected %s)", word)
		}
		s.pos++
	}
}

// skipValue consumes any JSON value, validating its grammar.
func (s *scanner) skipValue() {
	switch c := s.nonWS(); c {
	case '"':
		s.skipStr()
	case '{', '[':
		s.skipContainer()
	case 't':
		s.lit("true")
	case 'f':
		s.lit("false")
	case 'n':
		s.lit("null")
	default:
		if c == '-' || isDigit(c) {
			if !s.skipNumFast() {
				s.checkedNum()
			}
			return
		}
		s.fail("expected a JSON value, found %s", s.describe())
	}
}

// skipNumFast consumes a valid number lying wholly in the buffer, checking
// its grammar in the same pass; false (nothing consumed) otherwise.
func (s *scanner) skipNumFast() bool {
	b := s.buf[:s.end]
	p := s.pos
	if p < len(b) && b[p] == '-' {
		p++
	}
	d := p
	for p < len(b) && isDigit(b[p]) {
		p++
	}
	if p == d || (b[d] == '0' && p-d > 1) {
		return false
	}
	// The fraction, the exponent and the byte after them, as the skip
	// loop checks them.
	if p = numRest(b, p); p < 0 {
		return false
	}
	s.pos = p
	return true
}

// checkedNum consumes a number and fails unless it is valid JSON.
func (s *scanner) checkedNum() []byte {
	at := s.offset()
	tok := s.num()
	if _, ok := splitNumber(tok); !ok {
		if s.atEOF() {
			s.truncated() // "12." at the very end is a cut number
		}
		panic(&stopError{off: at, msg: fmt.Sprintf("invalid number %q", clip(tok, 40))})
	}
	return tok
}

func (s *scanner) enter() {
	s.depth++
	if s.depth > maxDepth {
		s.fail("values nested deeper than %d levels", maxDepth)
	}
}

// Helpers for the object/array walks the reader does itself.

// objectStart consumes '{' and reports whether the object is empty (its
// '}' is then consumed too).
func (s *scanner) objectStart() (empty bool) { return s.start('{', '}', "'{'") }

// objectFirst is objectStart and nextKey in one: it consumes the '{' and
// the first key with its ':'; more is false for an empty object ('}'
// consumed). The key's search skips the whitespace after the '{'.
func (s *scanner) objectFirst() (raw []byte, esc, more bool) {
	s.expect('{', "'{'")
	s.enter()
	if k, ok := s.keyFast(); ok {
		return k, false, true
	}
	if s.nonWS() == '}' {
		s.pos++
		s.depth--
		return nil, false, false
	}
	raw, esc = s.nextKeySlow()
	return raw, esc, true
}

// nextKey reads the key of the next member (after objectStart or
// objectNext), consumes the ':' that follows it and the whitespace after
// that, so the value starts at pos.
func (s *scanner) nextKey() (raw []byte, esc bool) {
	if k, ok := s.keyFast(); ok {
		return k, false
	}
	return s.nextKeySlow()
}

// keyFast is nextKey for the common case: a key without escapes, its ':'
// and the start of its value all in the buffer. Nothing is consumed when
// it fails.
func (s *scanner) keyFast() ([]byte, bool) {
	p := s.pos
	// A window from pos: indexes into it need fewer bounds checks.
	t := s.buf[p:s.end]
	if len(t) < 24 {
		return nil, false // near the end of the buffer: the slow path
	}
	i := 1 // `, "key"`: the usual single space
	if t[0] != ' ' || t[1] != '"' {
		if i = skipWS(t, 0); i >= len(t) || t[i] != '"' {
			return nil, false
		}
	}
	q := i + 1
	for {
		if q+8 > len(t) {
			return nil, false
		}
		if m := quoteOrEscape(binary.LittleEndian.Uint64(t[q : q+8])); m != 0 {
			q += bits.TrailingZeros64(m) >> 3
			break
		}
		q += 8
	}
	var r int
	if q+4 <= len(t) && quoteColonSpace(binary.LittleEndian.Uint32(t[q:q+4])) {
		r = q + 3 // `"key": value`, as every writer spaces it
	} else {
		if t[q] != '"' {
			return nil, false
		}
		r = skipWS(t, q+1)
		if r >= len(t) || t[r] != ':' {
			return nil, false
		}
		r = skipWS(t, r+1)
		if r >= len(t) {
			return nil, false
		}
	}
	s.pos = p + r
	return t[i+1 : q], true
}

func (s *scanner) nextKeySlow() (raw []byte, esc bool) {
	if s.nonWS() != '"' {
		s.fail("expected an object key, found %s", s.describe())
	}
	raw, esc = s.key()
	// Reading on may refill the buffer and move the key: keep a copy.
	s.keyCopy = append(s.keyCopy[:0], raw...)
	s.expect(':', "':' after an object key")
	s.nonWS()
	return s.keyCopy, esc
}

// nextMember consumes what follows a member's value: the ',' and the next
// key with its ':' (as nextKey does), or the object's '}' (more is false).
// One call per member instead of objectNext and nextKey: the ',' usually
// follows the value at once.
func (s *scanner) nextMember() (raw []byte, esc, more bool) {
	if p := s.pos; p < s.end && s.buf[p] == ',' {
		s.pos = p + 1
		if k, ok := s.keyFast(); ok {
			return k, false, true
		}
		raw, esc = s.nextKeySlow()
		return raw, esc, true
	}
	if !s.objectNext() {
		return nil, false, false
	}
	raw, esc = s.nextKey()
	return raw, esc, true
}

// objectNext consumes the ',' or '}' after a member; more is false at '}'.
func (s *scanner) objectNext() (more bool) { return s.next('}', "an object") }

// arrayStart consumes '[' and reports whether the array is empty.
func (s *scanner) arrayStart() (empty bool) { return s.start('[', ']', "'['") }

// start consumes the opening byte of a container (what names it for the
// error) and reports whether the container is empty (its closing byte is
// then consumed too).
func (s *scanner) start(open, close byte, what string) (empty bool) {
	s.expect(open, what)
	s.enter()
	if s.nonWS() == close {
		s.pos++
		s.depth--
		return true
	}
	return false
}

// arrayNext consumes the ',' or ']' after an element.
func (s *scanner) arrayNext() (more bool) { return s.next(']', "an array") }

// next consumes the ',' or the closing byte after a member or element of the
// container named what; more is false at the close.
func (s *scanner) next(close byte, what string) (more bool) {
	b := s.buf[:s.end]
	p := skipWS(b, s.pos)
	if p < len(b) && b[p] == ',' {
		// The whitespace before the next element too: one call less.
		s.pos = skipWS(b, p+1)
		return true
	}
	s.pos = p
	c := s.nonWS()
	if c == ',' {
		s.pos++
		return true
	}
	if c == close {
		s.pos++
		s.depth--
		return false
	}
	s.fail("expected ',' or '%c' in %s, found %s", close, what, s.describe())
	return false
}

// oneChar consumes a string value of one unescaped character ("X", as
// phases are written) and returns it; ok is false, and nothing consumed,
// for anything else.
func (s *scanner) oneChar() (c byte, ok bool) {
	if p := s.pos; p+3 <= s.end && s.buf[p] == '"' && s.buf[p+2] == '"' {
		if c = s.buf[p+1]; c != '"' && c != '\\' {
			s.pos = p + 3
			return c, true
		}
	}
	return 0, false
}

// strValue reads a string value (after optional whitespace), decoded.
// dst is reused. ok is false (and the value skipped) when it is not a
// string.
func (s *scanner) strValue(dst []byte) ([]byte, bool) {
	if s.nonWS() != '"' {
		s.skipValue()
		return dst[:0], false
	}
	raw, esc := s.str()
	if esc {
		return unescape(dst[:0], raw), true
	}
	return append(dst[:0], raw...), true
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
