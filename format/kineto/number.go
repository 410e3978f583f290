package kineto

import (
	"encoding/binary"
	"math"
	"math/bits"

	dec "github.com/tallyprof/tally/internal/decimal"
)

// Kineto writes times as JSON numbers of microseconds, either integers
// (generation A), absolute floats with a nanosecond fraction (B: 19
// significant digits, more than float64 holds) or floats relative to
// baseTimeNanoseconds (C). Every number tally needs is therefore parsed from
// its decimal text, never through float64.

// numFlags describe how a number was written, for the clock statement.
type numFlags uint8

const (
	// numFrac: the token has a fraction (".5", even ".000").
	numFrac numFlags = 1 << iota
	// numNonzeroFrac: the fraction carries digits other than 0.
	numNonzeroFrac
	// numRounded: digits below the target unit were dropped (half-even).
	numRounded
	// numExp: the token has an exponent ("1e-05").
	numExp
)

// decimal splits a JSON number token. ok is false when tok is not a JSON
// number.
type decimal struct {
	neg      bool
	intPart  []byte // without leading sign; may be "0"
	fracPart []byte
	exp      int
	hasExp   bool
	hasFrac  bool
}

func splitNumber(tok []byte) (d decimal, ok bool) {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(tok) && isDigit(tok[i]) {
		i++
	}
	if i == start || (tok[start] == '0' && i-start > 1) {
		return d, false // no digits, or a leading zero ("007"), which JSON forbids
	}
	d.intPart = tok[start:i]
	if i < len(tok) && tok[i] == '.' {
		i++
		fs := i
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
		if i == fs {
			return d, false
		}
		d.fracPart = tok[fs:i]
		d.hasFrac = true
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		d.hasExp = true
		eneg := false
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			eneg = tok[i] == '-'
			i++
		}
		es := i
		e := 0
		for i < len(tok) && isDigit(tok[i]) {
			if e < 100000 {
				e = e*10 + int(tok[i]-'0')
			}
			i++
		}
		if i == es {
			return d, false
		}
		if eneg {
			e = -e
		}
		d.exp = e
	}
	return d, i == len(tok)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scaled returns the magnitude of d × 10^scale as an unsigned integer,
// rounded half to even, and whether it fits in a uint64.
func (d *decimal) scaled(scale int) (mag uint64, fl numFlags, ok bool) {
	if d.hasFrac {
		fl |= numFrac
		for _, c := range d.fracPart {
			if c != '0' {
				fl |= numNonzeroFrac
				break
			}
		}
	}
	if d.hasExp {
		fl |= numExp
	}
	// Digits of the integer result are intPart+fracPart up to position
	// len(intPart)+shift; the rest are dropped and decide the rounding.
	shift := scale + d.exp
	if shift > 40 || shift < -400 {
		// Either far above uint64 or far below one unit; both are only
		// correct for zero.
		if allZero(d.intPart) && allZero(d.fracPart) {
			return 0, fl, true
		}
		if shift > 40 {
			return 0, fl, false
		}
		return 0, fl | numRounded, true
	}
	cut := len(d.intPart) + shift // index into the concatenated digits
	total := len(d.intPart) + len(d.fracPart)
	digit := func(k int) byte {
		if k < len(d.intPart) {
			return d.intPart[k]
		}
		if k-len(d.intPart) < len(d.fracPart) {
			return d.fracPart[k-len(d.intPart)]
		}
		return '0'
	}
	for k := 0; k < cut; k++ {
		c := uint64(digit(k) - '0')
		if mag > (math.MaxUint64-c)/10 {
			return 0, fl, false
		}
		mag = mag*10 + c
	}
	// Rounding: first dropped digit and whether any later one is nonzero.
	if cut < total {
		// With cut < 0 every digit is dropped and the first dropped one
		// is a leading zero.
		first := byte('0')
		rest := false
		k := total
		if cut >= 0 {
			first = digit(cut)
			k = cut + 1
		} else {
			rest = !(allZero(d.intPart) && allZero(d.fracPart))
		}
		for ; k < total; k++ {
			if digit(k) != '0' {
				rest = true
				break
			}
		}
		if first != '0' || rest {
			fl |= numRounded
		}
		up := first > '5' || (first == '5' && (rest || mag&1 == 1))
		if up {
			if mag == math.MaxUint64 {
				return 0, fl, false
			}
			mag++
		}
	}
	return mag, fl, true
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != '0' {
			return false
		}
	}
	return true
}

// microsToNS converts a number token of microseconds into nanoseconds.
func microsToNS(tok []byte) (ns int64, fl numFlags, ok bool) {
	// Fast path: up to 16 integer digits (absolute epoch microseconds) and
	// up to 3 fraction digits, the shape every Kineto writer uses.
	p := 0
	if n, f, good := micros(tok, &p, true); good {
		return n, f, true
	}
	d, good := splitNumber(tok)
	if !good {
		return 0, 0, false
	}
	mag, fl, good := d.scaled(3)
	return signed(mag, d.neg, fl, good)
}

func signed(mag uint64, neg bool, fl numFlags, ok bool) (int64, numFlags, bool) {
	if !ok {
		return 0, fl, false
	}
	if neg {
		if mag > 1<<63 {
			return 0, fl, false
		}
		return -int64(mag), fl, true
	}
	if mag > math.MaxInt64 {
		return 0, fl, false
	}
	return int64(mag), fl, true
}

// parseInt reads an integer-valued token exactly ("7", "7.0", "7e0");
// ok is false for fractions and values outside int64.
func parseInt(tok []byte) (int64, bool) {
	// Fast path: plain digits (JSON: no leading zero, no '+').
	if len(tok) > 0 && len(tok) <= 18 {
		digits := tok
		if tok[0] == '-' {
			digits = tok[1:]
		}
		if v, n, _ := dec.Prefix(digits); n == len(digits) && n > 0 && (digits[0] != '0' || n == 1) {
			if tok[0] == '-' {
				return -int64(v), true
			}
			return int64(v), true
		}
	}
	d, ok := splitNumber(tok)
	if !ok {
		return 0, false
	}
	mag, fl, ok := d.scaled(0)
	if fl&numRounded != 0 {
		return 0, false
	}
	v, _, ok := signed(mag, d.neg, fl, ok)
	return v, ok
}

// parseUint reads a non-negative integer-valued token up to 2^64-1 (some
// ids, e.g. NCCL "Comms Id", exceed int64).
func parseUint(tok []byte) (uint64, bool) {
	if len(tok) > 0 && len(tok) <= 19 && tok[0] != '-' {
		if v, n, _ := dec.Prefix(tok); n == len(tok) && (tok[0] != '0' || n == 1) {
			return v, true
		}
	}
	d, ok := splitNumber(tok)
	if !ok {
		return 0, false
	}
	mag, fl, ok := d.scaled(0)
	if !ok || fl&numRounded != 0 {
		return 0, false
	}
	if d.neg && mag != 0 {
		return 0, false
	}
	return mag, true
}

// Fused scans: the common number shapes parsed straight from the scanner's
// buffer in one pass. They consume nothing and return false for any other
// shape, or when the number may continue past the buffered input; the
// caller then takes the general token path.

// micros parses [-]d{1,16}[.d{1,3}] microseconds at b[*pos:] into
// nanoseconds and moves *pos past them; ok is false (*pos unmoved) for any
// other shape. whole: b is a number token and must end with the number
// (microsToNS's fast path); else b is the scanner's buffer and a byte that
// cannot continue a number must follow it there.
func micros(b []byte, pos *int, whole bool) (v int64, fl numFlags, ok bool) {
	p := *pos
	neg := false
	if p < len(b) && b[p] == '-' {
		neg = true
		p++
	}
	st := p
	if p >= 0 && p+8 <= len(b) {
		// Absolute times have 13 to 16 digits: the first eight at once.
		if x := binary.LittleEndian.Uint64(b[p : p+8]); dec.NonDigits(x) == 0 {
			v = int64(dec.EightDigits(x))
			p += 8
		}
	}
	for p < len(b) && isDigit(b[p]) {
		v = v*10 + int64(b[p]-'0')
		p++
	}
	if p == st || p-st > 16 || v > math.MaxInt64/1000-1 || (b[st] == '0' && p-st > 1) {
		return 0, 0, false
	}
	v *= 1000
	if p < len(b) && b[p] == '.' {
		p++
		fs := p
		var f int64
		for p < len(b) && isDigit(b[p]) {
			f = f*10 + int64(b[p]-'0')
			p++
		}
		nf := p - fs
		if nf == 0 || nf > 3 {
			return 0, 0, false
		}
		for k := nf; k < 3; k++ {
			f *= 10
		}
		fl = numFrac
		if f != 0 {
			fl |= numNonzeroFrac
		}
		v += f
	}
	if whole && p != len(b) || !whole && (p >= len(b) || numChar[b[p]]) {
		return 0, 0, false
	}
	*pos = p
	if neg {
		v = -v
	}
	return v, fl, true
}

// intFast parses [-]d{1,18}.
func (s *scanner) intFast() (int64, bool) {
	b := s.buf[:s.end]
	p := s.pos
	if p >= 0 && p+8 <= len(b) {
		// Ids of one to seven digits (pids, streams, correlations) at once.
		x := binary.LittleEndian.Uint64(b[p : p+8])
		if n := bits.TrailingZeros64(dec.NonDigits(x)) >> 3; n > 0 && n < 8 && !numChar[b[p+n]] && (n == 1 || b[p] != '0') {
			s.pos = p + n
			return int64(dec.EightDigits(x << (64 - 8*n))), true
		}
	}
	neg := false
	if p < len(b) && b[p] == '-' {
		neg = true
		p++
	}
	st := p
	var v int64
	for p < len(b) && isDigit(b[p]) {
		v = v*10 + int64(b[p]-'0')
		p++
	}
	if p == st || p-st > 18 || p >= len(b) || numChar[b[p]] || (b[st] == '0' && p-st > 1) {
		return 0, false
	}
	s.pos = p
	if neg {
		v = -v
	}
	return v, true
}
