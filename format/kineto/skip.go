package kineto

// Fast skipping of values tally does not use. Host ops, flows and the args
// of most events are the bulk of a trace; walking them with the token
// functions costs more than everything else together. skipNested is one
// loop over the bytes: strings are jumped over with IndexByte, numbers and
// literals are checked in place, and a small state machine with a bracket
// stack checks the grammar between them, so a malformed file still stops at
// its first syntax error, skipped part or not.

import (
	"encoding/binary"
	"math/bits"

	dec "github.com/tallyprof/tally/internal/decimal"
)

// skip states: what may come next.
const (
	skValue        = iota // a value (after ':' or ',' in an array)
	skValueOrClose        // a value or ']' (after '[')
	skKeyOrClose          // a key or '}' (after '{')
	skKey                 // a key (after ',' in an object)
	skColon               // ':' (after a key)
	skNext                // ',' or the closing bracket (after a value)
)

// skipContainer consumes the object or array starting at pos.
func (s *scanner) skipContainer() {
	s.stack = s.stack[:0]
	s.skipNested(skValue)
}

// skipObjectRest consumes the rest of the object whose '{' objectStart
// consumed, after a complete member, including its '}'.
func (s *scanner) skipObjectRest() {
	s.stack = append(s.stack[:0], '{')
	s.depth--
	s.skipNested(skNext)
}

// skipNested consumes bytes until the brackets on s.stack, and any opened
// on the way, are closed.
func (s *scanner) skipNested(state int) {
	base := s.depth
	for {
		b := s.buf[:s.end]
		p := s.pos
		// slow is set when a token crossed the end of the buffer and a
		// token function consumed it (and refilled): pos is then current.
		slow := false
	bytes:
		for p < len(b) {
			c := b[p]
			if c <= ' ' && wsTab[c] {
				if c == ' ' && p+1 < len(b) && b[p+1] > ' ' {
					p++ // the single space after ':' and ','
				} else {
					p = skipWS(b, p)
				}
				continue
			}
			switch state {
			case skValue, skValueOrClose:
				switch {
				case c == '"':
					j, closed, _ := s.scanStr(p + 1)
					if !closed {
						s.pos = p
						s.skipStr()
						state = skNext
						slow = true
						break bytes
					}
					p = j + 1
					state = skNext
				case c == '{' || c == '[':
					s.stack = append(s.stack, c)
					if base+len(s.stack) > maxDepth {
						s.pos = p
						s.fail("values nested deeper than %d levels", maxDepth)
					}
					p++
					state = skKeyOrClose
					if c == '[' {
						state = skValueOrClose
					}
				case c == ']' && state == skValueOrClose:
					if s.close(p, c) {
						return
					}
					p++
					state = skNext
				case isDigit(c) && c != '0':
					// Plain integers (shapes, ids) are the common case.
					q := p + 1
					for q < len(b) && isDigit(b[q]) {
						q++
					}
					if q < len(b) && !numChar[b[q]] {
						p = q
						state = skNext
						if b[q] == ',' {
							// `1, 2`: the ',' and its space at once.
							p, state = s.afterComma(b, q)
						}
						break
					}
					// A fraction or exponent (times, ratios): go on from q.
					if j := numRest(b, q); j >= 0 {
						p = j
						state = skNext
						break
					}
					fallthrough
				case c == '-' || isDigit(c):
					s.pos = p
					if !s.skipNumFast() {
						s.checkedNum()
						state = skNext
						slow = true
						break bytes
					}
					p = s.pos
					state = skNext
				case c == 't' || c == 'f' || c == 'n':
					s.pos = p
					s.literal(c)
					state = skNext
					slow = true
					break bytes
				default:
					s.pos = p
					s.fail("expected a JSON value, found %s", s.describe())
				}
			case skKeyOrClose, skKey:
				switch {
				case c == '"':
					j, closed, _ := s.scanStr(p + 1)
					if !closed {
						s.pos = p
						s.skipStr()
						state = skColon
						slow = true
						break bytes
					}
					// `"key": value`, as every writer spaces it.
					if j+2 < len(b) && b[j+1] == ':' && b[j+2] == ' ' {
						p = j + 3
						state = skValue
						break
					}
					p = j + 1
					state = skColon
				case c == '}' && state == skKeyOrClose:
					if s.close(p, c) {
						return
					}
					p++
					state = skNext
				default:
					s.pos = p
					s.fail("expected an object key, found %s", s.describe())
				}
			case skColon:
				if c != ':' {
					s.pos = p
					s.fail("expected ':' after an object key, found %s", s.describe())
				}
				p++
				state = skValue
			case skNext:
				switch c {
				case ',':
					p, state = s.afterComma(b, p)
				case '}', ']':
					if s.close(p, c) {
						return
					}
					p++
				default:
					s.pos = p
					s.fail("expected ',' or a closing bracket, found %s", s.describe())
				}
			}
		}
		if slow {
			continue
		}
		s.pos = p
		if _, ok := s.more(p); !ok {
			s.truncated()
		}
	}
}

// afterComma is where the scan goes on after the ',' at b[p]: past it and
// the space every writer puts after it, expecting a key inside an object
// and a value inside an array.
func (s *scanner) afterComma(b []byte, p int) (int, int) {
	p++
	if p < len(b) && b[p] == ' ' {
		p++ // `, `
	}
	if s.stack[len(s.stack)-1] == '{' {
		return p, skKey
	}
	return p, skValue
}

// numRest returns the end of a number whose valid integer part ends at
// b[q], checking its fraction and exponent; -1 when the number is not valid
// or may continue past b.
func numRest(b []byte, q int) int {
	if q < len(b) && b[q] == '.' {
		d := skipDigits(b, q+1)
		if d == q+1 {
			return -1
		}
		q = d
	}
	if q < len(b) && (b[q] == 'e' || b[q] == 'E') {
		q++
		if q < len(b) && (b[q] == '+' || b[q] == '-') {
			q++
		}
		d := skipDigits(b, q)
		if d == q {
			return -1
		}
		q = d
	}
	if q >= len(b) || numChar[b[q]] {
		return -1
	}
	return q
}

// skipDigits returns the index of the first byte at or after p that is not
// a digit (len(b) if none), eight bytes at a time.
func skipDigits(b []byte, p int) int {
	for p >= 0 && p+8 <= len(b) {
		if m := dec.NonDigits(binary.LittleEndian.Uint64(b[p : p+8])); m != 0 {
			return p + bits.TrailingZeros64(m)>>3
		}
		p += 8
	}
	for p < len(b) && isDigit(b[p]) {
		p++
	}
	return p
}

// close pops the bracket matching c at buf[p]; done reports that the
// outermost one closed (pos is then after it).
func (s *scanner) close(p int, c byte) (done bool) {
	n := len(s.stack)
	if n == 0 || (c == '}') != (s.stack[n-1] == '{') {
		s.pos = p
		s.fail("unexpected %q", rune(c))
	}
	s.stack = s.stack[:n-1]
	if n == 1 {
		s.pos = p + 1
		return true
	}
	return false
}

// literal consumes true, false or null starting with c.
func (s *scanner) literal(c byte) {
	switch c {
	case 't':
		s.lit("true")
	case 'f':
		s.lit("false")
	default:
		s.lit("null")
	}
}
