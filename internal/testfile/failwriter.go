package testfile

import "errors"

// FailAfter is a writer that takes N bytes in all, then fails: the write
// that passes the budget writes nothing and returns "disk full". The
// renderers' tests give it budgets that fail at the start, in the middle
// and near the end of their output.
type FailAfter struct{ N int }

func (w *FailAfter) Write(p []byte) (int, error) {
	if w.N -= len(p); w.N < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}
