package render

import "github.com/tallyprof/tally/capture"

// ClockLine is the sentence the text report opens with about c's clock;
// other text outputs (diff) state clocks the same way.
func ClockLine(k capture.Clock) string { return clockLine(k) }

// InputLine is the text report's input line: path, format, size and what
// was read, used and skipped.
func InputLine(c *capture.Capture) string { return inputLine(c) }
