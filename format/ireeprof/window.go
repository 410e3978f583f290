package ireeprof

import (
	"io"
)

// windowSize is how much of the file one ReadAt fetches. Large reads keep
// the reader near memory bandwidth; the buffer is the reader's only
// allocation that scales with anything, and it is fixed.
const windowSize = 4 << 20

// maxGet bounds every single request to the window, so no length field
// read from the file can size an allocation.
const maxGet = 1 << 20

// window serves byte ranges of a ReaderAt from one reusable buffer.
type window struct {
	r    io.ReaderAt
	path string
	size int64 // physical file size: nothing at or past it is read
	buf  []byte
	base int64 // file offset of buf[0]
	n    int   // valid bytes in buf
	// readahead is how much a refill reads. Pass 1 keeps it small so that
	// stepping from header to header does not read the dispatch payloads
	// it skips; pass 2 reads in large blocks.
	readahead int
}

func newWindow(r io.ReaderAt, path string, size int64) *window {
	n := int64(windowSize)
	if size < n {
		n = size
	}
	return &window{r: r, path: path, size: size, buf: make([]byte, n), readahead: int(n)}
}

// get returns the n bytes at off. Callers have checked that off+n is inside
// the file and that n <= maxGet. The slice is valid until the next call.
func (w *window) get(off int64, n int) ([]byte, error) {
	if off >= w.base && off+int64(n) <= w.base+int64(w.n) {
		s := int(off - w.base)
		return w.buf[s : s+n], nil
	}
	if err := w.fill(off, n); err != nil {
		return nil, err
	}
	return w.buf[:n], nil
}

// span returns at least min and up to max bytes at off (max bounded by the
// file), for loops that decode many small records from one slice.
func (w *window) span(off int64, min, max int) ([]byte, error) {
	if off >= w.base && off+int64(min) <= w.base+int64(w.n) {
		s := int(off - w.base)
		e := w.n
		if e-s > max {
			e = s + max
		}
		return w.buf[s:e], nil
	}
	if err := w.fill(off, min); err != nil {
		return nil, err
	}
	e := w.n
	if e > max {
		e = max
	}
	return w.buf[:e], nil
}

func (w *window) fill(off int64, n int) error {
	if n > maxGet || off < 0 || off+int64(n) > w.size {
		// A caller skipped a bounds check: a bug, reported rather than
		// read out of range.
		return errorf(w.path, off, "internal error: read of %d bytes outside the %d-byte file", n, w.size)
	}
	if n > len(w.buf) {
		w.buf = make([]byte, n)
	}
	want := int64(w.readahead)
	if want < int64(n) {
		want = int64(n)
	}
	if want > int64(len(w.buf)) {
		want = int64(len(w.buf))
	}
	if rem := w.size - off; rem < want {
		want = rem
	}
	m, err := w.r.ReadAt(w.buf[:want], off)
	if m < n {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		w.n = 0
		return errorf(w.path, off, "reading %d bytes: %v (the file changed while it was read, or the disk failed)", n, err)
	}
	w.base, w.n = off, m
	return nil
}
