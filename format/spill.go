package format

import "fmt"

// A spill is a reader's own working data written to TMPDIR because it
// outgrows the reader's memory budget (the Kineto dispatch log: about 69
// bytes per device event past its first 8 MiB). It is not the input: a
// copy of the input is a spool (spool.go), bounded by TALLY_SPOOL_LIMIT.
// Spills are bounded by Options.SpillLimit (tally's --spill-limit).

// SpillFlag names the command-line flag that sets Options.SpillLimit.
const SpillFlag = "--spill-limit"

// SpillLimitError ends a read whose spill would pass Options.SpillLimit.
type SpillLimitError struct {
	Limit int64
	File  string // the spill file (unlinked where the OS allows it)
}

func (e *SpillLimitError) Error() string {
	return fmt.Sprintf("its spill file %s in TMPDIR reached the spill limit of %s set by %s", e.File, sizeText(e.Limit), SpillFlag)
}

// SpillHint says how to raise the limit.
const SpillHint = "raise " + SpillFlag + " (e.g. " + SpillFlag + " 16GiB) or drop it (no limit), and give TMPDIR a disk with room"
