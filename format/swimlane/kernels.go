package swimlane

import (
	"fmt"
	"sort"
)

// Table is one program's func_id → name table, read from the KERNELS list
// of its kernel_config.py.
type Table struct {
	Names map[int64]string
	// Found is false when the file has no KERNELS assignment (the table is
	// missing; the program cannot name its kernels).
	Found bool
	// NonLiteral says why KERNELS is not a literal table ("" when it is):
	// modified elsewhere, a comprehension, not a list display.
	NonLiteral string
	Skipped    []SkippedEntry
	// Duplicates names each func_id given twice (the later entry wins).
	Duplicates []string
	// source names where the names come from when not kernel_config.py.
	source string
}

// SkippedEntry is a KERNELS element not used, and why.
type SkippedEntry struct {
	Line   int
	Reason string
}

// Usable reports whether the table can name kernels.
func (t *Table) Usable() bool { return t.Found && t.NonLiteral == "" }

// ParseKernels reads KERNELS from a kernel_config.py source without running
// it (spec §3). An error means the file is not Python we can tokenize.
func ParseKernels(src string) (*Table, error) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, err
	}
	t := &Table{Names: map[int64]string{}}
	var value []token // the last top-level assignment's value
	start := 0
	for i := 0; i < len(toks); i++ {
		if toks[i].kind != tNewline {
			continue
		}
		stmt := toks[start:i]
		start = i + 1
		if len(stmt) == 0 {
			continue
		}
		if v, ok := assignment(stmt); ok {
			value, t.Found = v, true
			continue
		}
		if why := modifies(stmt); why != "" && t.NonLiteral == "" {
			t.NonLiteral = why
		}
	}
	if !t.Found || t.NonLiteral != "" {
		return t, nil
	}
	t.read(value)
	return t, nil
}

// assignment recognises `KERNELS = …` and `KERNELS: T = …` at column 0 and
// returns the value's tokens.
func assignment(stmt []token) ([]token, bool) {
	if stmt[0].kind != tName || stmt[0].text != "KERNELS" || stmt[0].col != 0 || len(stmt) < 3 {
		return nil, false
	}
	switch {
	case stmt[1].kind == tOp && stmt[1].text == "=":
		return stmt[2:], true
	case stmt[1].kind == tOp && stmt[1].text == ":":
		depth := 0
		for j := 2; j < len(stmt); j++ {
			switch stmt[j].text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
			case "=":
				if depth == 0 && stmt[j].kind == tOp {
					return stmt[j+1:], true
				}
			}
		}
	}
	return nil, false
}

// modifies says how a statement changes KERNELS other than by a top-level
// assignment, or "".
func modifies(stmt []token) string {
	for j, tk := range stmt {
		if tk.kind != tName || tk.text != "KERNELS" || j > 0 && stmt[j-1].kind == tOp && stmt[j-1].text == "." {
			continue
		}
		next := ""
		if j+1 < len(stmt) && stmt[j+1].kind == tOp {
			next = stmt[j+1].text
		}
		switch {
		case next == "=" && j == 0:
			return fmt.Sprintf("line %d: KERNELS assigned inside a block", tk.line)
		case next == "=" || next == ":=":
			return fmt.Sprintf("line %d: KERNELS assigned in an expression", tk.line)
		case len(next) == 2 && next[1] == '=' && next != "==" && next != "!=" && next != "<=" && next != ">=":
			return fmt.Sprintf("line %d: KERNELS %s …", tk.line, next)
		case next == "." && j+3 < len(stmt) && stmt[j+2].kind == tName && stmt[j+3].text == "(":
			return fmt.Sprintf("line %d: KERNELS.%s(…)", tk.line, stmt[j+2].text)
		case next == "[" && subscriptAssigned(stmt[j+1:]):
			return fmt.Sprintf("line %d: KERNELS[…] assigned", tk.line)
		}
		if j > 0 && stmt[j-1].kind == tName && (stmt[j-1].text == "global" || stmt[j-1].text == "del") {
			return fmt.Sprintf("line %d: %s KERNELS", tk.line, stmt[j-1].text)
		}
	}
	return ""
}

// subscriptAssigned reports whether `[…]` at s[0] is followed by an
// assignment operator.
func subscriptAssigned(s []token) bool {
	depth := 0
	for j, tk := range s {
		switch tk.text {
		case "[", "(", "{":
			depth++
		case "]", ")", "}":
			depth--
			if depth == 0 {
				if j+1 < len(s) && s[j+1].kind == tOp {
					op := s[j+1].text
					return op == "=" || len(op) >= 2 && op[len(op)-1] == '=' && op != "==" && op != "!=" && op != "<=" && op != ">="
				}
				return false
			}
		}
	}
	return false
}

// value is a parsed literal, or an opaque expression (never evaluated).
type value struct {
	kind  byte // 's' str, 'i' int, 'n' other literal, 'l' list/tuple, 'd' dict, 'o' opaque
	s     string
	i     int64
	bytes bool
	items []value
	keys  []value
	line  int
}

// parser reads one value display from tokens.
type parser struct {
	toks []token
	pos  int
}

func (p *parser) peek() token {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return token{kind: tNewline}
}

func isClose(t token) bool {
	return t.kind == tOp && (t.text == "]" || t.text == ")" || t.text == "}")
}

func isOpen(t token) bool {
	return t.kind == tOp && (t.text == "[" || t.text == "(" || t.text == "{")
}

// skipOpaque skips to the next `,` `:` or closing bracket at this depth.
func (p *parser) skipOpaque(line int) value {
	depth := 0
	for {
		t := p.peek()
		if t.kind == tNewline {
			return value{kind: 'o', line: line}
		}
		if depth == 0 && (isClose(t) || t.kind == tOp && (t.text == "," || t.text == ":")) {
			return value{kind: 'o', line: line}
		}
		if isOpen(t) {
			depth++
		} else if isClose(t) {
			depth--
		}
		p.pos++
	}
}

// atEnd reports whether the value just read ends here (so it stays a
// literal); anything else (an operator, a call) makes it opaque.
func (p *parser) atEnd() bool {
	t := p.peek()
	return t.kind == tNewline || isClose(t) || t.kind == tOp && (t.text == "," || t.text == ":")
}

func (p *parser) value() value {
	start := p.pos
	t := p.peek()
	var v value
	switch {
	case t.kind == tString:
		v = value{kind: 's', line: t.line, bytes: t.bytes}
		lit := true
		for p.peek().kind == tString { // adjacent literals concatenate
			tk := p.peek()
			v.s += tk.text
			lit = lit && tk.literal
			p.pos++
		}
		if !lit {
			v.kind = 'o'
		}
	case t.kind == tInt && !t.big:
		v = value{kind: 'i', i: t.ival, line: t.line}
		p.pos++
	case t.kind == tOp && t.text == "-" && p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind == tInt && !p.toks[p.pos+1].big:
		v = value{kind: 'i', i: -p.toks[p.pos+1].ival, line: t.line}
		p.pos += 2
	case t.kind == tInt || t.kind == tNumber:
		v = value{kind: 'n', line: t.line}
		p.pos++
	case t.kind == tName && (t.text == "True" || t.text == "False" || t.text == "None"):
		v = value{kind: 'n', line: t.line}
		p.pos++
	case t.kind == tOp && (t.text == "[" || t.text == "(" || t.text == "{"):
		v = p.display()
	default:
		p.pos = start
		return p.skipOpaque(t.line)
	}
	if !p.atEnd() {
		p.pos = start
		return p.skipOpaque(t.line)
	}
	return v
}

// display reads [..], (..) or {..}; a comprehension, or a parenthesised
// single value, is opaque.
func (p *parser) display() value {
	open := p.peek()
	if end, comp := p.comprehension(); comp {
		p.pos = end
		return value{kind: 'o', line: open.line}
	}
	p.pos++
	closer := map[string]string{"[": "]", "(": ")", "{": "}"}[open.text]
	v := value{kind: 'l', line: open.line}
	if open.text == "{" {
		v.kind = 'd'
	}
	commas := 0
	for {
		t := p.peek()
		if t.kind == tOp && t.text == closer {
			p.pos++
			break
		}
		if t.kind == tNewline || isClose(t) {
			return value{kind: 'o', line: open.line}
		}
		if t.kind == tOp && t.text == "**" { // {**other}: not literal
			p.pos++
			p.value()
			v.kind = 'o'
		} else {
			item := p.value()
			if v.kind == 'd' {
				if tk := p.peek(); tk.kind == tOp && tk.text == ":" {
					p.pos++
					val := p.value()
					v.keys = append(v.keys, item)
					v.items = append(v.items, val)
				} else {
					v.kind = 'o' // a set, or a comprehension
				}
			} else {
				v.items = append(v.items, item)
			}
		}
		tk := p.peek()
		switch {
		case tk.kind == tOp && tk.text == ",":
			commas++
			p.pos++
		case tk.kind == tOp && tk.text == closer:
		default:
			p.pos++ // unexpected: skip it so the parse always advances
			v.kind = 'o'
		}
	}
	if open.text == "(" && commas == 0 && len(v.items) == 1 {
		return v.items[0] // (x) is x, not a tuple
	}
	return v
}

// read fills the table from the value tokens of KERNELS.
func (t *Table) read(toks []token) {
	p := &parser{toks: append(append([]token(nil), toks...), token{kind: tNewline})}
	v := p.value()
	if v.kind != 'l' || p.peek().kind != tNewline {
		t.NonLiteral = "KERNELS is not a list or tuple display"
		if len(toks) > 0 {
			t.NonLiteral = fmt.Sprintf("line %d: %s", toks[0].line, t.NonLiteral)
		}
		return
	}
	for _, e := range v.items {
		if e.kind != 'd' {
			t.Skipped = append(t.Skipped, SkippedEntry{e.line, "entry not a dict literal"})
			continue
		}
		var id, name *value
		for k := range e.keys {
			if e.keys[k].kind != 's' || e.keys[k].bytes {
				continue
			}
			switch e.keys[k].s { // the last of duplicate keys wins
			case "func_id":
				id = &e.items[k]
			case "name":
				name = &e.items[k]
			}
		}
		switch {
		case id == nil:
			t.Skipped = append(t.Skipped, SkippedEntry{e.line, "missing func_id"})
		case name == nil:
			t.Skipped = append(t.Skipped, SkippedEntry{e.line, "missing name"})
		case id.kind != 'i' || id.i < 0 || name.kind != 's' || name.bytes:
			t.Skipped = append(t.Skipped, SkippedEntry{e.line, "non-literal func_id/name"})
		default:
			if old, dup := t.Names[id.i]; dup {
				t.Duplicates = append(t.Duplicates, fmt.Sprintf("func_id %d: %q then %q (the later wins)", id.i, old, name.s))
			}
			t.Names[id.i] = name.s
		}
	}
}

// IDs returns the table's func_ids in order.
func (t *Table) IDs() []int64 {
	ids := make([]int64, 0, len(t.Names))
	for id := range t.Names {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// comprehension reports whether the display at p.pos has a `for` at its own
// depth, and where it ends.
func (p *parser) comprehension() (int, bool) {
	depth, comp := 0, false
	for j := p.pos; j < len(p.toks); j++ {
		t := p.toks[j]
		switch {
		case t.kind == tNewline:
			return j, comp
		case isOpen(t):
			depth++
		case isClose(t):
			depth--
			if depth == 0 {
				return j + 1, comp
			}
		case depth == 1 && t.kind == tName && (t.text == "for" || t.text == "async"):
			comp = true
		}
	}
	return len(p.toks), comp
}
