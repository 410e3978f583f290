package npuprof

import "github.com/tallyprof/tally/internal/decimal"

// Times are printed as decimal milliseconds with 1 to 3 places. They are
// parsed exactly into picoseconds (ms × 1e9), so sums, differences and the
// rounding check are integer arithmetic, with no float error added to the
// printed one.

const (
	psPerMs  = 1_000_000_000
	psPerNs  = 1000
	maxPlace = 9 // places kept; more are read and dropped (below 1 ps)
	maxMs    = 1_000_000_000
)

// parseMs reads an unsigned decimal number of milliseconds. places is how
// many digits followed the point, which sets the printed rounding.
func parseMs(b []byte) (ps int64, places int, ok bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	var whole int64
	i := 0
	for ; i < len(b) && b[i] != '.'; i++ {
		c := b[i] - '0'
		if c > 9 {
			return 0, 0, false
		}
		whole = whole*10 + int64(c)
		if whole > maxMs {
			return 0, 0, false
		}
	}
	if i == 0 {
		return 0, 0, false
	}
	var frac int64
	if i < len(b) {
		i++ // '.'
		if i == len(b) {
			return 0, 0, false
		}
		for ; i < len(b); i++ {
			c := b[i] - '0'
			if c > 9 {
				return 0, 0, false
			}
			if places < maxPlace {
				frac = frac*10 + int64(c)
			}
			places++
		}
	}
	kept := min(places, maxPlace)
	for p := kept; p < maxPlace; p++ {
		frac *= 10
	}
	return whole*psPerMs + frac, places, true
}

// parseTime reads a time as parseMs does, with an optional '-': a negative
// time parses, so that it is reported as impossible (invalid_event), not
// as a line that does not parse.
func parseTime(b []byte) (ps int64, places int, ok bool) {
	if len(b) > 1 && b[0] == '-' {
		ps, places, ok = parseMs(b[1:])
		return -ps, places, ok
	}
	return parseMs(b)
}

// halfUlp2 is twice half a unit in the last printed place, in ps: the
// rounding bound of a value printed with places decimals, doubled so that
// it stays an integer at 9 places.
func halfUlp2(places int) int64 {
	u := int64(psPerMs)
	for p := 0; p < min(places, maxPlace); p++ {
		u /= 10
	}
	return u
}

// parseUint reads a non-negative decimal integer of at most 15 digits:
// counts and windows of an engine log, small enough that their products
// with per-call times in ps cannot overflow.
func parseUint(b []byte) (int64, bool) {
	if len(b) > 15 {
		return 0, false
	}
	v, ok := decimal.Uint(b)
	return int64(v), ok
}

// parseInt reads a decimal integer with an optional '-' (layer -1 is the
// embedding), of at most 15 digits.
func parseInt(b []byte) (int64, bool) {
	if len(b) > 16 || len(b) > 0 && b[0] == '+' {
		return 0, false
	}
	return decimal.Int(b)
}

// mulPs returns ps × n, and false on overflow.
func mulPs(ps, n int64) (int64, bool) {
	if ps == 0 || n == 0 {
		return 0, true
	}
	if ps > (1<<63-1)/n {
		return 0, false
	}
	return ps * n, true
}

// nsOf rounds picoseconds to nanoseconds.
func nsOf(ps int64) int64 {
	if ps >= 0 {
		return (ps + psPerNs/2) / psPerNs
	}
	return -((-ps + psPerNs/2) / psPerNs)
}
