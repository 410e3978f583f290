package format

import (
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
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
)

// newGzipReaderSync inflates on the caller's goroutine (short reads).
func newGzipReaderSync(r io.Reader) (io.Reader, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	return zr, nil
}

// newGzipReader inflates r ahead on another goroutine. The header is read
// here, so a stream that is not gzip fails at once. Close stops the
// goroutine when the reader is abandoned early.
func newGzipReader(r io.Reader) (io.Reader, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	return newReadAhead(zr), nil
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
