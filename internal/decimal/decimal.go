// Package decimal parses base-10 unsigned integers straight from the bytes
// of a read buffer, without allocating and without strconv's string
// conversion, in the spirit of golang.org/x/perf/benchfmt/internal/bytesconv.
// Traces hold millions of stamps and ids; readers parse them here so that
// every reader accepts and rejects the same digits (issue 19).
//
// Digits are read eight at a time where eight are available (SWAR: one
// 64-bit load, a mask test and three multiplications instead of eight
// dependent steps).
package decimal

import (
	"encoding/binary"
	"math/bits"
)

// MaxDigits is the most digits a uint64 can need (18446744073709551615).
const MaxDigits = 20

// Uint parses b, 1 to 20 ASCII digits (leading zeros allowed, no sign, no
// blanks), as a uint64. ok is false for an empty b, any other byte, more
// than 20 digits, or a value above 2^64-1.
func Uint(b []byte) (v uint64, ok bool) {
	if len(b) == 0 || len(b) > MaxDigits {
		return 0, false
	}
	v, n, overflow := Prefix(b)
	return v, n == len(b) && !overflow
}

// Prefix parses the digits b starts with. n is how many there are (0 when
// b does not start with a digit), however many; v is their value, and
// overflow is true (v then 0) when that value is above 2^64-1. The caller
// checks what follows them (b[n]).
func Prefix(b []byte) (v uint64, n int, overflow bool) {
	if len(b) >= 16 {
		// Stamps and ids of 8 to 15 digits followed by a non-digit, the
		// common case, in two loads and no loop.
		x := binary.LittleEndian.Uint64(b)
		if NonDigits(x) == 0 {
			y := binary.LittleEndian.Uint64(b[8:])
			if m := NonDigits(y); m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				// y << 64 is 0 in Go: k == 0 adds nothing.
				return EightDigits(x)*pow10[k] + EightDigits(y<<(64-8*uint(k))), 8 + k, false
			}
		}
	}
	for n+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[n:])
		m := NonDigits(x)
		k := 8
		if m != 0 {
			k = bits.TrailingZeros64(m) >> 3
			if k == 0 {
				return v, n, overflow
			}
			x <<= 64 - 8*uint(k) // the k digits, at the top
		}
		v, overflow = step(v, n, k, overflow, EightDigits(x))
		n += k
		if k < 8 {
			return v, n, overflow
		}
	}
	for ; n < len(b); n++ {
		c := b[n] - '0'
		if c > 9 {
			break
		}
		v, overflow = step(v, n, 1, overflow, uint64(c))
	}
	if overflow {
		v = 0
	}
	return v, n, overflow
}

// step appends k digits of value add to v, the value of the n digits
// read before them. Up to 19 digits cannot pass 2^64-1, so only longer
// numbers pay for the check.
func step(v uint64, n, k int, overflow bool, add uint64) (uint64, bool) {
	if n+k <= 19 {
		return v*pow10[k] + add, overflow
	}
	if overflow {
		return 0, true
	}
	hi, lo := bits.Mul64(v, pow10[k])
	lo, carry := bits.Add64(lo, add, 0)
	if hi != 0 || carry != 0 {
		return 0, true
	}
	return lo, false
}

var pow10 = [9]uint64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000}

// EightDigits returns the value of the eight ASCII digits in x (little
// endian: the first digit in the lowest byte). Leading zero bytes (after a
// left shift by 8*(8-k)) stand for leading zeros, which is how Prefix
// reads k < 8 digits.
func EightDigits(x uint64) uint64 {
	x &= 0x0F0F0F0F0F0F0F0F
	x = (x * (10<<8 + 1)) >> 8 & 0x00FF00FF00FF00FF
	x = (x * (100<<16 + 1)) >> 16 & 0x0000FFFF0000FFFF
	return (x * (10000<<32 + 1)) >> 32
}

// NonDigits returns a mask whose lowest set bit lies in the first byte of
// x (little endian) that is not an ASCII digit; 0 when all eight are.
// Carries of the addition only reach bytes after a non-digit.
func NonDigits(x uint64) uint64 {
	return (x&0xF0F0F0F0F0F0F0F0 ^ 0x3030303030303030) |
		((x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0 ^ 0x3030303030303030)
}

// Int parses b, an optional '-' or '+' and then what Uint accepts, as an
// int64; ok is false when the value does not fit (−2^63 fits).
func Int(b []byte) (v int64, ok bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	u, ok := Uint(b)
	switch {
	case !ok || u > 1<<63 || !neg && u == 1<<63:
		return 0, false
	case neg:
		return -int64(u), true
	}
	return int64(u), true
}
