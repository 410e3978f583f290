package format

import "io"

// ReadAhead reads r on another goroutine, a few blocks ahead of its
// caller, as a gzip input inflates (gzip.go): on two cores a reader's
// parse overlaps its reads of a plain file. Close stops the goroutine when
// the reader is abandoned early.
func ReadAhead(r io.Reader) io.ReadCloser { return newReadAhead(r) }
