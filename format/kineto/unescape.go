package kineto

import (
	"unicode/utf16"
	"unicode/utf8"
)

// unescape appends the decoded form of a JSON string's raw bytes to dst.
// Only strings tally keeps (names) are decoded; a malformed escape is kept
// as written rather than guessed at.
func unescape(dst, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			dst = append(dst, c)
			continue
		}
		i++
		switch raw[i] {
		case '"', '\\', '/':
			dst = append(dst, raw[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(raw[i+1:])
			if !ok {
				dst = append(dst, '\\', 'u')
				continue
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					if r2, ok := hex4(raw[i+3:]); ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							dst = utf8.AppendRune(dst, d)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		default:
			dst = append(dst, '\\', raw[i])
		}
	}
	return dst
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
