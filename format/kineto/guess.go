package kineto

import "encoding/binary"

// Key guessing. A writer puts an event's keys in one order, spaced one
// way, so the text between a member's value and the next value — ",",
// blanks, the quoted key, ": " — is usually the text that followed the
// same key in the previous event of the same kind. A keyGuess holds that
// text (up to 24 bytes: the pretty-printed line break and indent fit) and
// the key's id: when the input continues with it and a value, three word
// comparisons consume the key, instead of a search for its closing quote
// and a string switch. Anything else takes the general path, which then
// teaches the guess what came.

// keyGuess is what last followed one key (or an object's '{').
type keyGuess struct {
	w  [3]uint64 // the text, little endian
	m  [3]uint64 // masks of its bytes in w
	n  int       // its length; 0 while nothing is known
	id int       // the caller's id of the key
	// key is the key itself, for callers that look at keys without an id
	// of their own.
	key  [guessLen]byte
	klen int
}

// guessLen is the longest text a guess holds.
const guessLen = 24

// matches reports whether b, the guessLen+1 bytes at pos, starts with g's
// text and a value right after it. The caller then moves pos by g.n (and
// enters the object, for a text that opens one).
func (g *keyGuess) matches(b []byte) bool {
	le := binary.LittleEndian
	return (le.Uint64(b)^g.w[0])&g.m[0]|(le.Uint64(b[8:])^g.w[1])&g.m[1]|(le.Uint64(b[16:])^g.w[2])&g.m[2] == 0 &&
		b[g.n] > ' '
}

// learn sets g from the text buf[start:pos] the general path just
// consumed, ending at the value of key raw (id): unless the buffer was
// refilled meanwhile (off moved), the key held an escape, or the text is
// longer than a guess holds.
func (s *scanner) learn(g *keyGuess, start int, off int64, raw []byte, esc bool, id int) {
	g.n = 0
	n := s.pos - start
	if esc || off != s.off || start < 0 || n <= 0 || n > guessLen || len(raw) > len(g.key) {
		return
	}
	var t [guessLen]byte
	copy(t[:], s.buf[start:s.pos])
	for i := range g.w {
		g.w[i] = binary.LittleEndian.Uint64(t[8*i:])
		switch k := n - 8*i; {
		case k >= 8:
			g.m[i] = ^uint64(0)
		case k <= 0:
			g.m[i] = 0
		default:
			g.m[i] = 1<<(8*k) - 1
		}
	}
	g.n, g.id = n, id
	g.klen = copy(g.key[:], raw)
}
