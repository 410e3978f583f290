package kineto

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tallyprof/tally/capture"
)

// longStr finishes a string whose content, from buf[start], runs past
// capture.MaxName bytes as written (escapes not decoded): j is its closing
// quote when closed, else where the scan resumes. It keeps the first bytes,
// streams the rest through the buffer as skipStr does, and returns the kept
// bytes, cut where no escape or UTF-8 sequence is split, followed by the
// marker capture.CutPrefix writes. A hostile 1 GiB name thus costs the
// scanner MaxName bytes, not a buffer grown to hold it whole.
func (s *scanner) longStr(start, j int, closed bool) (raw []byte, esc bool) {
	s.long = append(s.long[:0], s.buf[start:start+capture.MaxName]...)
	at := s.off + int64(start) // input offset of the content's first byte
	if closed {
		s.pos = j + 1
		return s.cutLong(at-1, int64(j-start))
	}
	i := j
	for {
		keep := min(i, s.end) // i may sit one past the end after an escape
		s.pos = keep
		shift, ok := s.more(keep)
		if !ok {
			s.truncated()
		}
		i -= shift
		next, closed, _ := s.scanStr(i)
		if closed {
			s.pos = next + 1
			full := s.off + int64(next) - at
			return s.cutLong(at-1, full)
		}
		i = next
	}
}

// cutLong ends s.long, the kept raw bytes of a string full bytes long
// whose quote is at input offset off, with the cut marker.
func (s *scanner) cutLong(off, full int64) ([]byte, bool) {
	marker := capture.CutMarker(full)
	n := rawCut(s.long, capture.MaxName-len(marker))
	if s.onLong != nil {
		s.onLong(off, full, s.long[:min(n, 200)])
	}
	s.long = append(s.long[:n], marker...)
	return s.long, bytes.IndexByte(s.long[:n], '\\') >= 0
}

// rawCut returns the longest length ≤ limit of the raw (still escaped)
// string bytes raw that splits no escape (a surrogate pair's two \u
// escapes count as one) and no UTF-8 sequence, so the kept part decodes
// to what the input says, and a name never gains U+FFFD by being cut.
func rawCut(raw []byte, limit int) int {
	i := 0
	for i < len(raw) {
		n := 1
		switch c := raw[i]; {
		case c == '\\':
			n = 2
			if i+1 < len(raw) && raw[i+1] == 'u' {
				n = 6
				if r, ok := hex4(raw[i+2:]); ok && utf16.IsSurrogate(r) && i+8 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
					n = 12
				}
			}
		case c >= utf8.RuneSelf:
			_, n = utf8.DecodeRune(raw[i:])
		}
		if i+n > limit {
			break
		}
		i += n
	}
	return min(i, len(raw))
}
