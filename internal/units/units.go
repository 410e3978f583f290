// Package units formats numbers for people the same way everywhere: in the
// text report and in the gap sentences readers write.
package units

import "fmt"

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
