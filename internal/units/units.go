// Package units formats numbers for people the same way everywhere: in the
// text report and in the gap sentences readers write.
package units

import (
	"fmt"
	"strings"
)

// NS formats nanoseconds with a unit that keeps three decimals readable.
func NS(ns float64) string {
	a := ns
	if a < 0 {
		a = -a
	}
	switch {
	case a >= 1e9:
		return fmt.Sprintf("%.3f s", ns/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.3f ms", ns/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.3f µs", ns/1e3)
	}
	if ns == float64(int64(ns)) {
		return fmt.Sprintf("%d ns", int64(ns))
	}
	return fmt.Sprintf("%.1f ns", ns)
}

// Plural writes n with the singular or plural noun.
func Plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Count writes n with a unit named in the plural, as readers name their
// input units ("lines", "API lines", "compressed bytes"): singular when n
// is 1. A unit whose plural is not its last word ("phase and upload
// records", "other files in dispatch dirs") is left as it is rather than
// guessed at.
func Count(n int64, units string) string {
	if n != 1 {
		return fmt.Sprintf("%d %s", n, units)
	}
	last := units[strings.LastIndexByte(units, ' ')+1:]
	if strings.Contains(units, " and ") || strings.Contains(units, " in ") || len(last) <= 3 || !strings.HasSuffix(last, "s") || strings.HasSuffix(last, "ss") {
		return "1 " + units
	}
	return "1 " + strings.TrimSuffix(units, "s")
}
