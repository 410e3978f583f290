package render

import "strings"

// Kernel names as people read them. Demangled C++ kernel names run to
// hundreds of characters ("void at::native::vectorized_elementwise_kernel<
// (int)4, at::native::CUDAFunctor_add<float>, std::array<char *, …>>(int,
// T2, T3)"), most of it template arguments and parameter types. The text
// report shows what Nsight Systems' shortName column holds: the function's
// own name, without return type, namespaces, template arguments or
// parameters ("vectorized_elementwise_kernel"). PyTorch's Holistic Trace
// Analysis shortens the same way (shorten_name drops template arguments,
// parameters and return type, and keeps namespaces).
//
// Short names collide: one program often runs a dozen instances of
// vectorized_elementwise_kernel. Names that collide within a program step
// back to a longer form, one level at a time, until they are told apart
// (kernelIdents): the template arguments, each shortened in turn
// ("vectorized_elementwise_kernel<4, CUDAFunctor_add, array>"), then their
// own template arguments ("elementwise_kernel<128, 2,
// gpu_kernel_impl_nocast<BinaryFunctor>>"), and so on, then the template
// arguments as written, then the full name. The full name is
// always one flag away (--names full) and in every JSON output.

// Naming levels: 0 is the function's own name (nsys shortName); level n
// adds the template arguments to depth n, each shortened the same way;
// levelRaw has them as written (lambdas and all); levelFull is the name as
// the input wrote it.
const (
	levelShort = 0
	levelRaw   = 4
	levelFull  = 5
	numLevels  = levelFull + 1
)

// shortName is name at the given level. A name that does not read as a
// demangled C++ signature (no template arguments or parameter list right
// after an identifier, brackets that do not balance) is kept whole at
// every level: "memcpy Host-to-Device", "Memcpy HtoD (Pageable ->
// Device)", "loom_libs:ggml_mul_mat_f32_f32_wmma" and "aten::mm" are
// already what people read.
func shortName(name string, level int) string {
	if level >= levelFull || !strings.ContainsAny(name, "<(") {
		return name
	}
	fn, ok := parseSignature(name)
	if !ok || fn.base == "" {
		return name
	}
	if level == levelRaw {
		if fn.targs == "" {
			return fn.base
		}
		return fn.base + "<" + fn.targs + ">"
	}
	return fn.render(level)
}

// render is the function's own name with its template arguments to the
// given depth.
func (fn signature) render(depth int) string {
	if depth <= 0 || fn.targs == "" {
		return fn.base
	}
	args := splitTop(fn.targs, ',')
	for i, a := range args {
		args[i] = shortArg(a, depth-1)
	}
	return fn.base + "<" + strings.Join(args, ", ") + ">"
}

// ShortName is the kernel name the text report shows by default: the
// function's own name, as Nsight Systems' shortName column has it (see
// shortName). Names that are not C++ signatures are returned unchanged.
func ShortName(name string) string { return shortName(name, levelShort) }

// signature is what the report needs of a demangled function name.
type signature struct {
	base  string // the function's own name: no namespace, templates, parameters
	targs string // its template arguments as written, without the brackets
}

// parseSignature finds the function a demangled name names: the last
// "::"-separated component at bracket depth 0 that is neither a lambda
// ("[lambda() (instance 1)]", "{lambda(int)#1}") nor an operator, with its
// parameter list, template arguments, qualifiers and return type taken
// off. ok is false when the brackets do not balance or no component is
// left.
func parseSignature(name string) (signature, bool) {
	comps, ok := splitScope(name)
	if !ok {
		return signature{}, false
	}
	for i := len(comps) - 1; i >= 0; i-- {
		c := strings.TrimSpace(comps[i])
		if c == "" || c[0] == '[' || c[0] == '{' || c[0] == '(' || c[0] == '<' || hasOperator(c) {
			continue
		}
		sig, ok := component(c)
		if ok {
			return sig, true
		}
	}
	return signature{}, false
}

// component takes one scope component apart: "void foo<int>(float) const"
// → base "foo", targs "int". The parameter list and template arguments
// must follow the identifier directly ("foo(", ">("): a parenthesis after
// a space ("Memcpy HtoD (Pageable)") is prose, not a signature.
func component(c string) (signature, bool) {
	c = trimQualifiers(c)
	if strings.HasSuffix(c, ")") {
		open := matchingOpen(c, len(c)-1)
		if open <= 0 || !identEnd(c[open-1]) {
			return signature{}, false
		}
		c = c[:open]
	}
	var sig signature
	if strings.HasSuffix(c, ">") {
		open := matchingOpen(c, len(c)-1)
		if open <= 0 || !identChar(c[open-1]) {
			return signature{}, false
		}
		sig.targs = strings.TrimSpace(c[open+1 : len(c)-1])
		c = c[:open]
	}
	// The return type ends at the last space at depth 0 (a component's
	// brackets are balanced, and the return type's own are closed).
	if i := lastTopSpace(c); i >= 0 {
		c = c[i+1:]
	}
	c = strings.TrimLeft(c, "*&")
	if c == "" || strings.ContainsAny(c, "<>()[]{} ,") {
		return signature{}, false
	}
	sig.base = c
	return sig, true
}

// shortArg shortens one template argument, showing its own template
// arguments to depth: casts of literals lose their type ("(int)4" → "4",
// "(bool)0" → "0"), types and functions their namespaces, parameters and
// deeper template arguments ("at::native::CUDAFunctor_add<float>" →
// "CUDAFunctor_add" at depth 0); what does not parse stays as written.
func shortArg(a string, depth int) string {
	a = strings.TrimSpace(a)
	if strings.HasPrefix(a, "(") {
		if end := matchingClose(a, 0); end > 0 && end < len(a)-1 && !strings.ContainsAny(a[end+1:], "()<>") {
			return strings.TrimSpace(a[end+1:])
		}
	}
	if fn, ok := parseSignature(a); ok && fn.base != "" {
		return fn.render(depth)
	}
	return a
}

// hasOperator reports a component that names an operator ("operator ()()
// const"), outside its brackets: the kernel is the function around it.
func hasOperator(c string) bool {
	const kw = "operator"
	depth := 0
	for i := 0; i < len(c); i++ {
		switch b := c[i]; {
		case b == '>' && i > 0 && c[i-1] == '-':
		case opens(b):
			depth++
		case closes(b):
			depth--
		case depth == 0 && b == 'o' && strings.HasPrefix(c[i:], kw) && (i == 0 || !identChar(c[i-1])) &&
			(i+len(kw) == len(c) || !identChar(c[i+len(kw)])):
			return true
		}
	}
	return false
}

// trimQualifiers takes trailing cv- and ref-qualifiers off a component.
func trimQualifiers(c string) string {
	for {
		t := strings.TrimSpace(c)
		for _, q := range []string{"const", "volatile", "&&", "&"} {
			if strings.HasSuffix(t, q) && (q[0] == '&' || len(t) == len(q) || !identChar(t[len(t)-len(q)-1])) {
				t = strings.TrimSpace(t[:len(t)-len(q)])
			}
		}
		if t == c {
			return t
		}
		c = t
	}
}

func identChar(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// identEnd: what may end the name before a parameter list.
func identEnd(b byte) bool { return identChar(b) || b == '>' }

func opens(b byte) bool  { return b == '<' || b == '(' || b == '[' || b == '{' }
func closes(b byte) bool { return b == '>' || b == ')' || b == ']' || b == '}' }

// bracket is +1 where s[i] opens a bracket, -1 where it closes one, and 0
// elsewhere; "->" is not a bracket.
func bracket(s string, i int) int {
	switch c := s[i]; {
	case c == '>' && i > 0 && s[i-1] == '-':
		return 0
	case opens(c):
		return 1
	case closes(c):
		return -1
	}
	return 0
}

// splitScope splits name at "::" outside brackets. ok is false when the
// brackets do not balance.
func splitScope(name string) ([]string, bool) {
	var comps []string
	depth, start := 0, 0
	for i := 0; i < len(name); i++ {
		b := bracket(name, i)
		depth += b
		if depth < 0 {
			return nil, false
		}
		if b == 0 && depth == 0 && name[i] == ':' && i+1 < len(name) && name[i+1] == ':' {
			comps = append(comps, name[start:i])
			start = i + 2
			i++
		}
	}
	if depth != 0 {
		return nil, false
	}
	return append(comps, name[start:]), true
}

// splitTop splits s at sep outside brackets.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		b := bracket(s, i)
		depth += b
		if b == 0 && depth == 0 && s[i] == sep {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// lastTopSpace is the index of the last space outside brackets, or -1.
func lastTopSpace(s string) int {
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		b := bracket(s, i)
		depth -= b
		if b == 0 && depth == 0 && s[i] == ' ' {
			return i
		}
	}
	return -1
}

// matchingOpen is the index of the bracket that s[end] closes, or -1.
func matchingOpen(s string, end int) int {
	depth := 0
	for i := end; i >= 0; i-- {
		b := bracket(s, i)
		depth -= b
		if b > 0 && depth == 0 {
			return i
		}
	}
	return -1
}

// matchingClose is the index of the bracket that closes s[start], or -1.
func matchingClose(s string, start int) int {
	depth := 0
	for i := start; i < len(s); i++ {
		b := bracket(s, i)
		depth += b
		if b < 0 && depth == 0 {
			return i
		}
	}
	return -1
}
