// Package safetext makes text that comes from an input safe to print on a
// terminal or in a text file someone will `cat`: a kernel name holding
// "\n" and an escape sequence must not forge a report line or hide one.
//
// Every text output (the text report, inspect, diff, layers, CSV exports,
// tally record's summary) passes input-derived strings through Escape, or
// prints through Fprintf, which escapes its string arguments; the HTML
// page passes every value its template prints through Escape, so a name
// reads there as in the text report (render/htmlreport/escape.go). JSON outputs
// need neither: encoding/json escapes control characters itself.
package safetext

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Escape returns s with everything a terminal could act on, or that would
// break the line, written as a visible escape:
//
//   - C0 controls: \n, \r and \t as such, the others as \x1b style;
//   - DEL as \x7f;
//   - C1 controls (U+0080–U+009F) as \u009b style;
//   - the line and paragraph separators (U+2028, U+2029) and the
//     bidirectional embedding, override and isolate controls (U+202A–U+202E,
//     U+2066–U+2069), which reorder how a line reads, as \u202e style;
//   - each byte of invalid UTF-8 as \xff style.
//
// Printable text, ASCII or not, is kept as it is, and so is a backslash:
// the output is for reading, not for decoding back. A string with nothing
// to escape is returned unchanged, without allocating, and Escape of an
// escaped string changes nothing.
func Escape(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			writeByteEscape(&b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			writeByteEscape(&b, c)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Bytes is Escape for a byte slice.
func Bytes(b []byte) string { return Escape(string(b)) }

// firstUnsafe returns the index of the first byte of s that Escape must
// change, or -1. ASCII is checked a byte at a time without decoding.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return i
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unsafeRune(r) {
			return i
		}
		i += n
	}
	return -1
}

// unsafeRune reports a non-ASCII rune Escape writes as \uXXXX.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1 controls: 0x9b is CSI, 0x9d OSC
		return true
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi embeddings, overrides, isolates
		return true
	}
	return false
}

func writeByteEscape(b *strings.Builder, c byte) {
	switch c {
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	default:
		const hex = "0123456789abcdef"
		b.WriteString(`\x`)
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0xf])
	}
}

// Args returns args with every string among them escaped: strings, byte
// slices, errors and values of a string kind. Other values (numbers) are
// left as they are. args itself is returned when nothing needed escaping.
func Args(args []any) []any {
	var out []any
	for i, a := range args {
		e, ok := escapeArg(a)
		if !ok {
			continue
		}
		if out == nil {
			out = make([]any, len(args))
			copy(out, args)
		}
		out[i] = e
	}
	if out == nil {
		return args
	}
	return out
}

// escapeArg returns the escaped text of a and true when a is text that
// Escape changes.
func escapeArg(a any) (string, bool) {
	var s string
	switch v := a.(type) {
	case nil:
		return "", false
	case string:
		s = v
	case []byte:
		s = string(v)
	case error:
		s = v.Error()
	default:
		rv := reflect.ValueOf(a)
		if rv.Kind() != reflect.String {
			return "", false
		}
		s = rv.String()
	}
	if firstUnsafe(s) < 0 {
		return "", false
	}
	return Escape(s), true
}

// Fprintf is fmt.Fprintf with every string argument escaped (Args): the
// format is the program's own, so its newlines and tabs stay, and
// nothing an argument holds can start a line or move the cursor.
func Fprintf(w io.Writer, format string, args ...any) (int, error) {
	return fmt.Fprintf(w, format, Args(args)...)
}

// Sprintf is fmt.Sprintf with every string argument escaped.
func Sprintf(format string, args ...any) string {
	return fmt.Sprintf(format, Args(args)...)
}
