package swimlane

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A restricted Python tokenizer: enough of Python's lexical rules to find
// KERNELS in a kernel_config.py and read its literal entries without ever
// running the file (docs/formats/swimlane.md, spec §3).

type tokKind uint8

const (
	tName tokKind = iota + 1
	tInt
	tNumber // float, imaginary: a literal, not an int
	tString
	tOp
	tNewline // end of a logical line (outside brackets)
)

type token struct {
	kind tokKind
	text string // name, operator, or the string's value
	// ival is the value of an int literal; big marks ints beyond int64.
	ival int64
	big  bool
	// literal is false for f-strings (their value is an expression).
	literal bool
	bytes   bool // b"…": a literal, but not a str
	line    int
	col     int
}

// maxTokens bounds the work on one file (a generated config has a few
// thousand; a hostile one cannot make the reader allocate without bound).
const maxTokens = 1 << 20

// maxDepth bounds bracket nesting (CPython's parser stops near 200), so
// the literal reader's recursion and look-ahead stay bounded.
const maxDepth = 100

// tokenize splits src into tokens. It returns an error (with the line) for
// what Python would reject: an unterminated string or bracket mismatch is
// reported, never guessed around.
func tokenize(src string) ([]token, error) {
	var toks []token
	line, lineStart := 1, 0
	depth := 0
	i := 0
	for i < len(src) {
		if len(toks) > maxTokens {
			return nil, fmt.Errorf("line %d: more than %d tokens", line, maxTokens)
		}
		c := src[i]
		switch {
		case c == '\n':
			if depth == 0 && len(toks) > 0 && toks[len(toks)-1].kind != tNewline {
				toks = append(toks, token{kind: tNewline, line: line, col: i - lineStart})
			}
			i++
			line++
			lineStart = i
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '\\' && i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r'):
			// Explicit line joining.
			i++
			if src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			i++
			line++
			lineStart = i
			continue
		}
		col := i - lineStart
		// String, with an optional prefix of r, b, u, f (any case, any order).
		if j := prefixEnd(src, i); j < len(src) && (src[j] == '\'' || src[j] == '"') {
			prefix := strings.ToLower(src[i:j])
			val, end, lines, err := readString(src, j, strings.Contains(prefix, "r"))
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", line, err)
			}
			toks = append(toks, token{kind: tString, text: val, literal: !strings.Contains(prefix, "f"),
				bytes: strings.Contains(prefix, "b"), line: line, col: col})
			line += lines
			if lines > 0 {
				lineStart = strings.LastIndexByte(src[:end], '\n') + 1
			}
			i = end
			continue
		}
		switch {
		case isNameStart(c):
			j := i
			for j < len(src) && isNameChar(src[j]) {
				j++
			}
			toks = append(toks, token{kind: tName, text: src[i:j], line: line, col: col})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i
			for j < len(src) && (isNameChar(src[j]) || src[j] == '.' ||
				(src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E') && !strings.HasPrefix(strings.ToLower(src[i:j]), "0x")) {
				j++
			}
			toks = append(toks, number(src[i:j], line, col))
			i = j
		default:
			op := operator(src[i:])
			switch op {
			case "(", "[", "{":
				depth++
				if depth > maxDepth {
					return nil, fmt.Errorf("line %d: brackets nested deeper than %d", line, maxDepth)
				}
			case ")", "]", "}":
				if depth == 0 {
					return nil, fmt.Errorf("line %d: %q closes nothing", line, op)
				}
				depth--
			}
			toks = append(toks, token{kind: tOp, text: op, line: line, col: col})
			i += len(op)
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("line %d: the file ends inside brackets", line)
	}
	toks = append(toks, token{kind: tNewline, line: line})
	return toks, nil
}

func prefixEnd(src string, i int) int {
	j := i
	for j < len(src) && j-i < 3 && strings.IndexByte("rRbBuUfF", src[j]) >= 0 {
		j++
	}
	if j == i || (j < len(src) && (src[j] == '\'' || src[j] == '"')) {
		return j
	}
	return i
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf
}

func isNameChar(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

var ops3 = []string{"**=", "//=", ">>=", "<<=", "..."}
var ops2 = []string{"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", "==", "!=", "<=", ">=", "**", "//", "->", ":=", "<<", ">>"}

func operator(s string) string {
	for _, o := range ops3 {
		if strings.HasPrefix(s, o) {
			return o
		}
	}
	for _, o := range ops2 {
		if strings.HasPrefix(s, o) {
			return o
		}
	}
	_, n := utf8.DecodeRuneInString(s)
	return s[:n]
}

// number reads an int literal (decimal, 0x, 0o, 0b, with _); anything else
// numeric is a non-int number.
func number(s string, line, col int) token {
	t := token{kind: tNumber, text: s, line: line, col: col}
	clean := strings.ReplaceAll(s, "_", "")
	if strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") || strings.Contains(s, "__") {
		return t
	}
	base := 10
	digits := clean
	if len(clean) > 1 && clean[0] == '0' {
		switch clean[1] {
		case 'x', 'X':
			base, digits = 16, clean[2:]
		case 'o', 'O':
			base, digits = 8, clean[2:]
		case 'b', 'B':
			base, digits = 2, clean[2:]
		default:
			if strings.Trim(clean, "0") != "" {
				return t // 0123 is a syntax error in Python 3
			}
		}
	}
	if digits == "" {
		return t
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			t.kind, t.big = tInt, true
		}
		return t
	}
	t.kind = tInt
	if v > 1<<63-1 {
		t.big = true
	} else {
		t.ival = int64(v)
	}
	return t
}

// readString reads the string starting at the quote src[i]; it returns the
// value, the index after it and how many newlines it spans.
func readString(src string, i int, raw bool) (string, int, int, error) {
	q := src[i]
	triple := strings.HasPrefix(src[i:], strings.Repeat(string(q), 3))
	n := 1
	if triple {
		n = 3
	}
	var b strings.Builder
	lines := 0
	j := i + n
	for {
		if j >= len(src) {
			return "", 0, 0, fmt.Errorf("unterminated string")
		}
		c := src[j]
		if c == q && (!triple || strings.HasPrefix(src[j:], strings.Repeat(string(q), 3))) {
			return b.String(), j + n, lines, nil
		}
		if c == '\n' {
			if !triple {
				return "", 0, 0, fmt.Errorf("string not closed on its line")
			}
			lines++
		}
		if c != '\\' {
			b.WriteByte(c)
			j++
			continue
		}
		if j+1 >= len(src) {
			return "", 0, 0, fmt.Errorf("unterminated string")
		}
		e := src[j+1]
		if raw {
			// Raw strings keep the backslash; it only stops a quote ending them.
			b.WriteByte('\\')
			b.WriteByte(e)
			if e == '\n' {
				lines++
			}
			j += 2
			continue
		}
		j += 2
		switch e {
		case '\n':
			lines++
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'x', 'u', 'U':
			w := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if j+w > len(src) {
				return "", 0, 0, fmt.Errorf("bad \\%c escape", e)
			}
			v, err := strconv.ParseUint(src[j:j+w], 16, 32)
			if err != nil || v > utf8.MaxRune {
				return "", 0, 0, fmt.Errorf("bad \\%c escape", e)
			}
			b.WriteRune(rune(v))
			j += w
		case '0', '1', '2', '3', '4', '5', '6', '7':
			k := j - 1
			for k < len(src) && k < j+2 && src[k] >= '0' && src[k] <= '7' {
				k++
			}
			v, _ := strconv.ParseUint(src[j-1:k], 8, 32)
			b.WriteRune(rune(v))
			j = k
		default:
			// Unknown escapes (and \N{…}) stay as written, as Python keeps them.
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
}
