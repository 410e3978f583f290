// Package exitcode names the statuses tally's commands end with, in one
// place: report and diff compute them, cmd/tally returns them, and every
// command's --help states them ("Exit status:").
package exitcode

const (
	// OK: the command did what it was asked; a report of an incomplete
	// capture too, unless --strict asked otherwise.
	OK = 0
	// Failed: a check the user asked for failed: --strict and a gap,
	// --fail-if-affected, --fail-if-slower, export --check, a layers
	// finding, a selftest case.
	Failed = 1
	// Error: a usage or input error, or a capture without a single
	// dispatch event: nothing to report on.
	Error = 2
)
