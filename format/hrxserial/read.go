package hrxserial

import (
	"bytes"
	"errors"
	"io"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
	"github.com/tallyprof/tally/format"
)

const (
	blockSize   = 256 << 10
	maxLineSize = 1 << 20 // longer lines are classified by their first MiB and skipped
)

// block is one read of the input, handed from the reading goroutine to the
// parser so that the read system call overlaps the parsing.
type block struct {
	buf []byte
	n   int
	err error
}

// readBlocks reads r into recycled buffers until an error (io.EOF at the end).
func readBlocks(r io.Reader, out chan<- block, free <-chan []byte, stop <-chan struct{}) {
	defer close(out)
	for {
		var buf []byte
		select {
		case buf = <-free:
		case <-stop:
			return
		}
		n, err := io.ReadFull(r, buf)
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		select {
		case out <- block{buf: buf, n: n, err: err}:
		case <-stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// ReadStream reads a raw or kept trace from r, streaming dispatches to sink.
// name is used in messages (a path). Names come from cat, which may be empty.
func ReadStream(r io.Reader, name string, cat *catalog.Catalog, sink capture.Sink) (*capture.Capture, error) {
	return readStream(r, name, cat, sink, true)
}

// readStream is ReadStream; fast false turns fastLine off, so that tests
// can hold it to the general path.
func readStream(r io.Reader, name string, cat *catalog.Catalog, sink capture.Sink, fast bool) (*capture.Capture, error) {
	if sink == nil {
		sink = capture.Discard
	}
	if cat == nil {
		cat = catalog.New()
	}
	st := newState(name, cat, sink)

	blocks := make(chan block, 2)
	free := make(chan []byte, 3)
	stop := make(chan struct{})
	defer close(stop)
	bs := blockSize
	if l, ok := r.(interface{ Len() int }); ok && l.Len() < bs {
		bs = l.Len() + 1 // small inputs (tests, fuzzing) need small buffers
	} else if sz, ok := r.(interface{ Size() int64 }); ok && sz.Size() < int64(bs) {
		bs = int(sz.Size()) + 1
	}
	for i := 0; i < 3; i++ {
		free <- make([]byte, bs)
	}
	go readBlocks(r, blocks, free, stop)

	var carry []byte  // a line continued from the previous block
	longLine := false // inside a line longer than maxLineSize: skip to its end
	var readErr error
	for b := range blocks {
		data := b.buf[:b.n]
		st.bytes += int64(b.n)
		for len(data) > 0 {
			if fast && len(carry) == 0 && !longLine && st.cmd.active {
				// Most lines continue the open command: recognised
				// whole, '\n' included, without a search for it.
				if n := st.fastLine(data); n > 0 {
					data = data[n:]
					continue
				}
			}
			nl := bytes.IndexByte(data, '\n')
			if nl < 0 {
				if !longLine {
					carry = append(carry, data...)
					if len(carry) >= maxLineSize {
						if err := st.line(carry[:maxLineSize]); err != nil {
							return nil, err
						}
						st.longLines++
						longLine, carry = true, carry[:0]
					}
				}
				break
			}
			line := data[:nl]
			data = data[nl+1:]
			if longLine {
				longLine = false // the tail of a long line, already counted
				continue
			}
			if len(carry) > 0 {
				carry = append(carry, line...)
				line = carry
			}
			if err := st.line(line); err != nil {
				return nil, err
			}
			carry = carry[:0]
		}
		free <- b.buf
		if b.err != nil {
			readErr = b.err
			break
		}
	}
	if readErr != io.EOF {
		e := format.ByteError(name, st.bytes, "check the file and the disk", "reading: %v", readErr)
		e.Err = readErr
		return nil, e
	}
	if len(carry) > 0 && !longLine {
		st.partialLine(carry)
	}
	return st.finish(), nil
}

// errVersion is returned for a kept trace of an unknown version.
var errVersion = errors.New("unknown kept-trace version")
