package format

import (
	"fmt"
	"strings"
)

// Error is a reader's fatal input error, positioned the way compilers
// position theirs: the file, where in it (a line, or a byte offset), what is
// wrong and what to do. Every reader returns one for input it cannot read at
// all; input it can partly read is a capture with gaps instead (compare
// golang.org/x/perf/benchfmt's SyntaxError).
type Error struct {
	Path string
	// Line is 1-based; 0 when the position is a byte offset.
	Line int64
	// Offset is the byte offset (in the decompressed input); -1 when the
	// error has no position (the file as a whole).
	Offset int64
	// Msg says what is wrong, Hint what to do ("" when there is nothing to
	// add).
	Msg  string
	Hint string
	// Err is the underlying cause, for errors.Is/As; may be nil.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	switch {
	case e.Line > 0:
		fmt.Fprintf(&b, ":%d", e.Line)
	case e.Offset >= 0:
		fmt.Fprintf(&b, ": byte %d", e.Offset)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString(" (")
		b.WriteString(e.Hint)
		b.WriteString(")")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// LineError is an Error at a 1-based line.
func LineError(path string, line int64, hint, msg string, args ...any) *Error {
	return &Error{Path: path, Line: line, Offset: -1, Msg: fmt.Sprintf(msg, args...), Hint: hint}
}

// ByteError is an Error at a byte offset.
func ByteError(path string, off int64, hint, msg string, args ...any) *Error {
	return &Error{Path: path, Offset: off, Msg: fmt.Sprintf(msg, args...), Hint: hint}
}

// FileError is an Error about the file as a whole (no position), wrapping
// cause when it is not nil.
func FileError(path string, cause error, hint, msg string, args ...any) *Error {
	return &Error{Path: path, Offset: -1, Msg: fmt.Sprintf(msg, args...), Hint: hint, Err: cause}
}
