package nsys

import (
	"errors"

	"github.com/tallyprof/tally/capture"
)

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// findSkip returns the skip of unit with this reason, or nil.
func findSkip(c *capture.Capture, unit, reason string) *capture.Skip {
	for _, in := range c.Accounting.Input {
		if in.Unit != unit {
			continue
		}
		for _, s := range in.Skipped {
			if s.Reason == reason {
				return s
			}
		}
	}
	return nil
}
