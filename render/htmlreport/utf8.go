package htmlreport

import (
	"io"
	"unicode/utf8"
)

// utf8Writer passes the page on as valid UTF-8. The template escapes
// markup but keeps an input's bytes as they are, so a kernel name or path
// that is not UTF-8 made the page, which declares charset utf-8, not UTF-8.
// Each invalid byte becomes U+FFFD, as encoding/json writes it in the
// page's data and in the JSON report. A rune cut between two writes is held
// for the next one.
type utf8Writer struct {
	w    io.Writer
	held []byte // the start of a rune the last write ended inside
}

var replacement = []byte(string(utf8.RuneError))

func (u *utf8Writer) Write(p []byte) (int, error) {
	n := len(p)
	if len(u.held) > 0 {
		p = append(u.held, p...)
		u.held = nil
	}
	start := 0
	for i := 0; i < len(p); {
		if p[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 {
			if !utf8.FullRune(p[i:]) {
				u.held = append([]byte(nil), p[i:]...)
				p = p[:i]
				break
			}
			if _, err := u.w.Write(p[start:i]); err != nil {
				return 0, err
			}
			if _, err := u.w.Write(replacement); err != nil {
				return 0, err
			}
			start = i + 1
		}
		i += size
	}
	if _, err := u.w.Write(p[start:]); err != nil {
		return 0, err
	}
	return n, nil
}

// close writes what the last write left held: a rune never completed, one
// U+FFFD per byte.
func (u *utf8Writer) close() error {
	for range u.held {
		if _, err := u.w.Write(replacement); err != nil {
			return err
		}
	}
	u.held = nil
	return nil
}
