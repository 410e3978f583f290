package kineto

// The record_shapes args of host ops (format.Options.Ops): Input Dims,
// Input type and Concrete Inputs, each interned as its canonical compact
// JSON, part of the op's signature (ops.go).

// opArgs are a cpu_op's record_shapes args, as ids of their canonical
// compact JSON (hostOps.canons; 0 when absent).
type opArgs struct {
	dims, types, concrete          uint32
	hasDims, hasTypes, hasConcrete bool
}

// done reports whether every record_shapes arg was read: the rest of the
// args (strides, sequence numbers) is not used.
func (a *opArgs) done() bool { return a.hasDims && a.hasTypes && a.hasConcrete }

// maxCanon bounds one canonical arg: longer ones are cut (the op is then
// not modelled, as its shapes cannot be parsed).
const maxCanon = 4096

// opArg reads one record_shapes member (akDims, akTypes, akConcrete) of a
// cpu_op's args.
func (r *reader) opArg(id int) {
	a := &r.ev.shape
	switch id {
	case akDims:
		a.dims, a.hasDims = r.ops.arg(r), true
	case akTypes:
		a.types, a.hasTypes = r.ops.arg(r), true
	case akConcrete:
		a.concrete, a.hasConcrete = r.ops.arg(r), true
	}
}

// arg reads the arg value at the scanner and returns the id of its
// canonical form. A trace repeats a few spellings of shapes over and over:
// a value that lies whole in the buffer and passes rawValue is looked up
// by its bytes as written, and canonicalised only the first time they
// come; any other value (long, nested deep, with escapes or objects, cut
// by the buffer's end) is canonicalised each time, as before.
func (h *hostOps) arg(r *reader) uint32 {
	s := r.s
	s.nonWS()
	start := s.pos
	n := rawValue(s.buf[start:s.end])
	if n > 0 {
		if id, ok := h.rawIdx[string(s.buf[start:start+n])]; ok {
			s.pos += n
			return id
		}
	}
	off := s.off
	h.canonBuf = r.canon(h.canonBuf[:0])
	id := h.canonID(h.canonBuf)
	if n > 0 && s.off == off && s.pos == start+n {
		// canon read the n bytes rawValue checked, and the buffer was
		// not refilled meanwhile (the value and the byte after it are in
		// it): the next time they come, they are looked up.
		h.rawIdx[string(s.buf[start:start+n])] = id
	}
	return id
}

// canonID interns a canonical arg; ids start at 1 (0: absent).
func (h *hostOps) canonID(c []byte) uint32 { return internString(h.canonIdx, &h.canons, c) }

// maxRawNest bounds the nesting rawValue accepts: deeper values take canon.
const maxRawNest = 16

// rawValue returns the length of the JSON value at the start of b when it
// can be looked up by its bytes: it lies whole in b with at least one byte
// after it, is shorter than maxCanon (so canon never cuts it, nor any
// string in it), and holds only arrays, strings without escapes, integers
// and the literals, nested at most maxRawNest deep. It checks the grammar
// as canon does, so a value it accepts is one canon reads without error;
// 0 for anything else (canon then reads it, reporting any error).
func rawValue(b []byte) int {
	if len(b) > maxCanon-1 {
		b = b[:maxCanon-1]
	}
	depth := 0
	p := 0
	for {
		// A value.
		if p >= len(b) {
			return 0
		}
		switch c := b[p]; {
		case c == '[':
			depth++
			if depth > maxRawNest {
				return 0
			}
			p = skipWS(b, p+1)
			if p >= len(b) || b[p] != ']' {
				continue // the first element
			}
			depth--
			p++
		case c == '"':
			q := p + 1
			for q < len(b) && b[q] != '"' && b[q] != '\\' {
				q++
			}
			if q >= len(b) || b[q] != '"' {
				return 0
			}
			p = q + 1
		case c == '-' || isDigit(c):
			q := p
			if c == '-' {
				q++
			}
			d := q
			for q < len(b) && isDigit(b[q]) {
				q++
			}
			if q == d || b[d] == '0' && q-d > 1 || q >= len(b) || numChar[b[q]] {
				return 0 // not an integer as JSON writes it, or a fraction or exponent
			}
			p = q
		case c == 't', c == 'f', c == 'n':
			w := "null"
			if c == 't' {
				w = "true"
			} else if c == 'f' {
				w = "false"
			}
			if len(b)-p < len(w) || string(b[p:p+len(w)]) != w {
				return 0
			}
			p += len(w)
		default:
			return 0
		}
		// After a value: the end, or ',' or ']' in an array.
		for {
			if depth == 0 {
				if p >= len(b) {
					return 0 // the byte after the value must be in b
				}
				return p
			}
			p = skipWS(b, p)
			if p >= len(b) {
				return 0
			}
			if b[p] == ',' {
				p = skipWS(b, p+1)
				break
			}
			if b[p] != ']' {
				return 0
			}
			depth--
			p++
		}
	}
}

// canon appends the JSON value at the scanner to dst without whitespace:
// arrays and numbers as written, strings with their escapes as written.
// Past maxCanon bytes the rest is validated and dropped.
func (r *reader) canon(dst []byte) []byte {
	s := r.s
	if len(dst) >= maxCanon {
		s.skipValue()
		return dst
	}
	switch c := s.nonWS(); {
	case c == '[':
		if s.arrayStart() {
			return append(dst, "[]"...)
		}
		dst = append(dst, '[')
		for first := true; ; first = false {
			if !first && len(dst) < maxCanon {
				dst = append(dst, ',')
			}
			dst = r.canon(dst)
			if !s.arrayNext() {
				break
			}
		}
		if len(dst) < maxCanon {
			dst = append(dst, ']')
		}
		return dst
	case c == '"':
		raw, _ := s.str()
		dst = append(dst, '"')
		dst = append(dst, raw...)
		return append(dst, '"')
	case c == '-' || isDigit(c):
		return append(dst, s.checkedNum()...)
	case c == 't':
		s.lit("true")
		return append(dst, "true"...)
	case c == 'f':
		s.lit("false")
		return append(dst, "false"...)
	case c == 'n':
		s.lit("null")
		return append(dst, "null"...)
	}
	s.skipValue() // an object: not part of any shape
	return append(dst, "{}"...)
}
