package kineto

// refValid is a reference JSON validator for tests: strict about the
// grammar between tokens, lenient inside strings exactly as tally is (any
// byte but an unescaped quote; a backslash escapes the next byte). It is
// written independently of the scanner, recursively and without buffers.
func refValid(data []byte) bool {
	p := &refParser{b: data}
	if len(p.b) >= 3 && p.b[0] == 0xEF && p.b[1] == 0xBB && p.b[2] == 0xBF {
		p.i = 3
	}
	p.ws()
	if !p.value(0) {
		return false
	}
	p.ws()
	return p.i == len(p.b)
}

type refParser struct {
	b []byte
	i int
}

func (p *refParser) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

// key consumes a string, then ':' and the space after it.
func (p *refParser) key() bool {
	if !p.str() {
		return false
	}
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != ':' {
		return false
	}
	p.i++
	p.ws()
	return true
}

func (p *refParser) value(depth int) bool {
	if depth >= maxDepth || p.i >= len(p.b) { // the top-level value is level 1
		return false
	}
	switch c := p.b[p.i]; {
	case c == '{' || c == '[':
		// An object is an array whose values each follow a key and ':'.
		closer := byte(']')
		if c == '{' {
			closer = '}'
		}
		p.i++
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == closer {
			p.i++
			return true
		}
		for {
			p.ws()
			if c == '{' && !p.key() {
				return false
			}
			if !p.value(depth + 1) {
				return false
			}
			p.ws()
			if p.i >= len(p.b) {
				return false
			}
			if p.b[p.i] == closer {
				p.i++
				return true
			}
			if p.b[p.i] != ',' {
				return false
			}
			p.i++
		}
	case c == '"':
		return p.str()
	case c == 't':
		return p.word("true")
	case c == 'f':
		return p.word("false")
	case c == 'n':
		return p.word("null")
	default:
		return p.number()
	}
}

func (p *refParser) str() bool {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return false
	}
	for p.i++; p.i < len(p.b); p.i++ {
		switch p.b[p.i] {
		case '\\':
			p.i++
		case '"':
			p.i++
			return true
		}
	}
	return false
}

func (p *refParser) word(w string) bool {
	if len(p.b)-p.i < len(w) || string(p.b[p.i:p.i+len(w)]) != w {
		return false
	}
	p.i += len(w)
	return true
}

func (p *refParser) number() bool {
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	start := p.i
	n := digits()
	if n == 0 || (n > 1 && p.b[start] == '0') {
		return false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}
