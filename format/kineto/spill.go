package kineto

import "github.com/tallyprof/tally/format"

// spillBudget is what one read may write to its spill files in all, the
// dispatch log's and the tally log's together (format.Options.SpillLimit;
// 0: no limit).
type spillBudget struct{ limit, used int64 }

// take accounts for n more bytes written to file, or refuses them.
func (b *spillBudget) take(n int64, file string) error {
	if b == nil || b.limit <= 0 {
		return nil
	}
	if b.used+n > b.limit {
		return &format.SpillLimitError{Limit: b.limit, File: file}
	}
	b.used += n
	return nil
}
