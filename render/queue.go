package render

import "github.com/tallyprof/tally/capture"

// itemQueues is the capture's queue table when a gap item indexes it (the
// JSON items' `queue`), nil otherwise: the table is the key to those
// indexes, and reports without one stay as they were.
func itemQueues(c *capture.Capture) []capture.Queue {
	for _, g := range c.Accounting.Gaps {
		for _, it := range g.Items {
			if it.Queue != nil {
				return c.Queues
			}
		}
	}
	return nil
}
