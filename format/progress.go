package format

import (
	"io"
	"sync/atomic"
)

// Progress tells how far the readers got into an input, for a progress
// bar: the furthest byte of the file read so far (compressed bytes for a
// gzip input). It is safe to call Done from another goroutine.
type Progress struct {
	r   io.ReaderAt
	pos atomic.Int64
}

// TrackProgress makes in count its reads; call it before reading in.
func TrackProgress(in *Input) *Progress {
	p := &Progress{r: in.ReaderAt}
	in.ReaderAt = p
	return p
}

// ReadAt reads from the input and moves the mark.
func (p *Progress) ReadAt(b []byte, off int64) (int, error) {
	n, err := p.r.ReadAt(b, off)
	end := off + int64(n)
	for {
		cur := p.pos.Load()
		if end <= cur || p.pos.CompareAndSwap(cur, end) {
			return n, err
		}
	}
}

// Done is the furthest byte read so far.
func (p *Progress) Done() int64 { return p.pos.Load() }
