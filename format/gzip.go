package format

import (
	"bufio"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"

	"github.com/tallyprof/tally/internal/countio"
)

// Real traces arrive gzipped, and inflating costs as much as parsing. So a
// gzip input is inflated on its own goroutine, a few blocks ahead of the
// reader: on two cores the parse overlaps the inflate, and the wall time is
// that of the slower of the two instead of their sum. The inflater is
// klauspost/compress's gzip (a drop-in for compress/gzip, widely used and
// maintained): on a generated 209 MB trace it inflates in 140 ms of CPU
// against the standard library's 200 ms, which matters on one core.

const (
	inflateBlock = 256 << 10 // bytes per handed-over block
	inflateAhead = 4         // blocks in flight
	// inflateAheadFrom is the compressed size from which a file is
	// inflated ahead: below it the inflate takes well under a millisecond
	// and the ring's megabyte and goroutine would cost more than they save.
	inflateAheadFrom = 64 << 10
)

// newGzipReaderSync inflates on the caller's goroutine (short reads).
func newGzipReaderSync(r io.Reader, size int64) (io.Reader, error) {
	return newMembers(r, size)
}

// newGzipReader inflates r ahead on another goroutine. The header is read
// here, so a stream that is not gzip fails at once. Close stops the
// goroutine when the reader is abandoned early.
func newGzipReader(r io.Reader, size int64) (io.Reader, error) {
	zr, err := newMembers(r, size)
	if err != nil {
		return nil, err
	}
	return newReadAhead(zr), nil
}

// GzipTrailingError ends the decompressed data of a gzip input whose last
// gzip stream is followed by bytes that are not gzip (padding, a second
// file appended, a bad copy). Every decompressed byte was delivered before
// it; the trailing bytes were not read as data.
type GzipTrailingError struct {
	Offset int64 // compressed byte where the gzip data ends
	N      int64 // bytes after it
}

func (e *GzipTrailingError) Error() string {
	return fmt.Sprintf("%d bytes after the end of the gzip stream (compressed byte %d) are not gzip data and were not read", e.N, e.Offset)
}

// members inflates the gzip members of a stream one after another, as the
// gzip tool does, and tells trailing non-gzip bytes from a corrupt member:
// the inflater alone reports both as a bad header.
type members struct {
	zr   *gzip.Reader
	br   *bufio.Reader
	cr   *countio.Reader
	size int64 // the compressed size, or -1 for a stream
	err  error
}

func newMembers(r io.Reader, size int64) (*members, error) {
	cr := &countio.Reader{R: r}
	// A bufio.Reader is an io.ByteReader, so the inflater reads through
	// it byte-exactly and the end of each member is known.
	m := &members{cr: cr, br: bufio.NewReader(cr), size: size}
	zr, err := gzip.NewReader(m.br)
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	m.zr = zr
	return m, nil
}

func (m *members) Read(p []byte) (int, error) {
	for m.err == nil {
		n, err := m.zr.Read(p)
		if err != io.EOF {
			return n, err
		}
		m.err = m.next()
		if n > 0 {
			return n, nil
		}
	}
	return 0, m.err
}

// next starts the member after the one that just ended, or says why there
// is none.
func (m *members) next() error {
	head, _ := m.br.Peek(2)
	switch {
	case len(head) == 0:
		return io.EOF
	case IsGzip(head):
		if err := m.zr.Reset(m.br); err != nil {
			return err
		}
		m.zr.Multistream(false)
		return nil
	}
	off := m.cr.N - int64(m.br.Buffered())
	var n int64
	if m.size >= 0 {
		n = m.size - off
	} else {
		// A stream's length is known only by reading it; this keeps
		// the count of its bytes whole.
		k, _ := io.Copy(io.Discard, m.br)
		n = k
	}
	return &GzipTrailingError{Offset: off, N: n}
}

type block struct {
	buf []byte
	n   int
	err error
}

// readAhead reads src on its own goroutine into a ring of blocks.
type readAhead struct {
	full  chan block
	free  chan []byte
	done  chan struct{}
	close sync.Once
	cur   block
	off   int
	err   error
}

func newReadAhead(src io.Reader) *readAhead {
	ra := &readAhead{
		full: make(chan block, inflateAhead),
		free: make(chan []byte, inflateAhead),
		done: make(chan struct{}),
	}
	for i := 0; i < inflateAhead; i++ {
		ra.free <- make([]byte, inflateBlock)
	}
	go ra.fill(src)
	return ra
}

func (ra *readAhead) fill(src io.Reader) {
	for {
		var buf []byte
		select {
		case buf = <-ra.free:
		case <-ra.done:
			return
		}
		// Not io.ReadFull: it would turn the inflater's own
		// io.ErrUnexpectedEOF (a cut file) into a clean short read.
		n := 0
		var err error
		for n < len(buf) && err == nil {
			var k int
			k, err = src.Read(buf[n:])

			n += k
		}
		select {
		case ra.full <- block{buf: buf, n: n, err: err}:
		case <-ra.done:
			return
		}
		if err != nil {
			return
		}
	}
}

func (ra *readAhead) Read(p []byte) (int, error) {
	for ra.off >= ra.cur.n {
		if ra.err != nil {
			return 0, ra.err
		}
		if ra.cur.buf != nil {
			ra.free <- ra.cur.buf // never blocks: free holds every block
		}
		b, ok := <-ra.full
		if !ok {
			return 0, io.ErrClosedPipe
		}
		ra.cur, ra.off = b, 0
		ra.err = b.err // served after the block's bytes

	}
	n := copy(p, ra.cur.buf[ra.off:ra.cur.n])
	ra.off += n
	return n, nil
}

// Close stops the inflating goroutine.
func (ra *readAhead) Close() error {
	ra.close.Do(func() { close(ra.done) })
	return nil
}
