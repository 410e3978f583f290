package all

import "github.com/tallyprof/tally/format/kineto"

// A large plain Kineto file is read on every core, traceEvents split into
// chunks (format/kineto/split.go). The fixtures here are small: every plain
// Kineto file this package's tests read is split into chunks of 64 bytes,
// so the adversaries (cuts everywhere, edits, reorders) go through the
// split read and its boundaries fall everywhere; gzip files are read in
// one loop.
func init() { kineto.SplitForTests(64) }
