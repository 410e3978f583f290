// Package render writes a capture's report: text for people, JSON for
// scripts. Renderers only format what the model and analysis hold; they never
// re-read input, and every renderer prints the capture's accounting.
package render

import (
	"fmt"
	"strconv"

	"github.com/tallyprof/tally/internal/units"
)

// Duration formats v in unit ("ns" or "ticks") for people.
func Duration(v int64, unit string) string {
	if unit != "ns" {
		return strconv.FormatInt(v, 10) + " " + unitName(unit)
	}
	return formatNS(float64(v))
}

// DurationF formats a mean.
func DurationF(v float64, unit string) string {
	if unit != "ns" {
		return strconv.FormatFloat(v, 'f', 1, 64) + " " + unitName(unit)
	}
	return formatNS(v)
}

func unitName(unit string) string {
	if unit == "" {
		return "units"
	}
	return unit
}

func formatNS(ns float64) string { return units.NS(ns) }

// Share formats a fraction as a percentage.
func Share(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// Bytes formats a byte count for people.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
