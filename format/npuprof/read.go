package npuprof

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/countio"
	"github.com/tallyprof/tally/internal/units"
)

// maxLine bounds one line's memory: a longer line is classified by its first
// maxLine bytes and skipped.
const maxLine = 1 << 20

var (
	headerV1 = []byte("# tally kept trace v1")
	// errVersion marks a kept trace of a version this reader does not know.
	errVersion = errors.New("unknown kept-trace version")
	// errGzipCut ends eachLine when the inflater says the gzip stream
	// ended early (io.ErrUnexpectedEOF): every line before the cut was
	// delivered.
	errGzipCut = errors.New("the gzip stream ended early: the compressed file was cut (an incomplete copy or download); the lines before the cut were read")
)

// ReadStream reads an engine log (raw stderr or a kept trace) from r, streaming
// aggregated dispatches to sink. name is used in messages (a path).
func ReadStream(r io.Reader, name string, sink capture.Sink) (*capture.Capture, error) {
	return readStream(r, name, 0, sink)
}

// readStream is ReadStream with the longest time one launch may take (ns;
// 0: capture.MaxDuration).
func readStream(r io.Reader, name string, ceiling int64, sink capture.Sink) (*capture.Capture, error) {
	if sink == nil {
		sink = capture.Discard
	}
	s := newState(name, ceiling, sink)
	cr := &countio.Reader{R: r}
	err := eachLine(cr, func(line []byte, long, partial bool) error {
		s.lineNo++
		if s.lineNo == 1 {
			line = format.TrimBOM(line) // an editor's, before the first line
		}
		switch {
		case long:
			// An engine line is short: a tagged line this long is one
			// that does not parse, and may have been a profiler row.
			if body, _ := stamp(line); isEngine(body) {
				s.malformedLine()
				return nil
			}
			s.longLines++
			s.closeWindow()
			return nil
		case partial:
			s.partialLine(line)
			return nil
		}
		return s.line(line)
	})
	s.bytes = cr.N
	if err == errGzipCut {
		s.gzipCut()
		err = nil
	}
	if err != nil {
		var fe *format.Error
		if errors.As(err, &fe) {
			return nil, err
		}
		return nil, format.ByteError(name, s.bytes, "", "reading the log: %v", err)
	}
	return s.finish(), nil
}

// eachLine calls fn for every line of r without its '\n'. A line longer than
// maxLine is delivered once, cut, with long set; a last line without '\n'
// is delivered with partial set.
func eachLine(r io.Reader, fn func(line []byte, long, partial bool) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if !long {
				buf = append(buf, chunk...)
				if len(buf) >= maxLine {
					if ferr := fn(buf[:maxLine], true, false); ferr != nil {
						return ferr
					}
					long, buf = true, buf[:0]
				}
			}
			continue
		}
		cut := err == io.ErrUnexpectedEOF
		if cut {
			err = io.EOF // the lines inflated before the cut are read
		}
		if err != nil && err != io.EOF {
			return err
		}
		ended := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if ended {
			chunk = chunk[:len(chunk)-1]
		}
		switch {
		case long:
			long = false // the tail of a line already delivered
			buf = buf[:0]
		case len(buf) > 0 || len(chunk) > 0 || ended:
			line := chunk
			if len(buf) > 0 {
				buf = append(buf, chunk...)
				line = buf
			}
			if ferr := fn(line, false, !ended); ferr != nil {
				return ferr
			}
			buf = buf[:0]
		}
		if cut {
			return errGzipCut
		}
		if err == io.EOF {
			return nil
		}
	}
}

// stamp splits a kept trace's "<1-20 digits> " arrival stamp off a line.
func stamp(b []byte) ([]byte, bool) {
	n := 0
	for n < len(b) && n <= 20 && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	if n == 0 || n > 20 || n >= len(b) || b[n] != ' ' {
		return b, false
	}
	return b[n+1:], true
}

// line handles one complete line.
func (s *state) line(raw []byte) error {
	if s.lineNo == 1 && bytes.HasPrefix(raw, keptHeader) {
		if !bytes.HasPrefix(raw, headerV1) || (len(raw) > len(headerV1) && raw[len(headerV1)] != ' ') {
			return &format.Error{Path: s.name, Line: 1, Offset: -1, Err: errVersion,
				Msg:  fmt.Sprintf("kept trace of an unknown version: %.40q", raw),
				Hint: "this tally reads kept traces v1; use the tally that wrote the file"}
		}
		s.end.HeaderLine(raw)
		s.used++
		return nil
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		s.blank++
		return nil
	}
	if raw[0] == '#' {
		if s.end.Next(raw, s.lineNo) {
			s.endRecords++
			s.used++
			return nil
		}
		s.comments++
		return nil
	}
	if s.end.Seen {
		s.end.Next(raw, s.lineNo) // counted: a line after the end record
	}
	body, stamped := stamp(raw)
	if stamped {
		s.stamped++
	}
	s.apply(body)
	return nil
}

// cutMarker says whether body is an engine line's marker cut short
// ("[pro" of "[prof] "): a log cut there lost that line, which a partial
// line of any other text never was.
func cutMarker(body []byte) bool {
	b := bytes.TrimLeft(body, " \t")
	if len(b) == 0 {
		return false
	}
	for _, p := range [][]byte{gemmPrefix, profPrefix, layerPrefix, mlaPrefix, linearPrefix, hiddenPrefix} {
		if bytes.HasPrefix(p, b) {
			return true
		}
	}
	return false
}

func isEngine(body []byte) bool {
	k, _ := classify(body)
	return k != kindOther
}

// partialLine is a last line cut before its '\n': counted, never used,
// since a cut number reads as a different number.
// gzipCut is a gzip input whose compressed stream ended before its end:
// the file was cut, not the writer, so the summary says so above a
// partial last line's.
func (s *state) gzipCut() {
	g := s.c.Accounting.Gap(capture.TruncatedInput, "")
	g.Summary = "the gzip stream ended early: the compressed file was cut (an incomplete copy or download, or a writer stopped mid-stream), so what followed the cut is missing; every line inflated before it was read. gzip -t names the same fault"
	g.Add(capture.Item{What: fmt.Sprintf("the gzip stream ended early, after %s of decompressed data, without its end (trailer)", units.Plural(s.bytes, "byte", "bytes")), Where: s.where(s.lineNo)})
}

func (s *state) partialLine(line []byte) {
	body, _ := stamp(line)
	if !isEngine(body) && !cutMarker(body) {
		s.partialOther++
		return
	}
	s.partial++
	g := s.c.Accounting.Gap(capture.TruncatedInput, "")
	g.Summary = "the log ends inside an engine line (no final newline): its numbers may be cut, so it is not used. The process or its recorder stopped mid-write"
	g.Add(capture.Item{What: "last line cut", Where: s.where(s.lineNo)})
}
