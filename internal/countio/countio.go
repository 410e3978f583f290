// Package countio counts the bytes that pass through a reader or a writer:
// a reader's byte accounting and error positions when it reads through a
// decoder that buffers (encoding/json, bufio), the size of what a writer
// wrote.
package countio

import "io"

// Reader counts the bytes read through R.
type Reader struct {
	R io.Reader
	N int64
}

func (c *Reader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}

// Writer counts the bytes written through W; with W nil it only counts
// (a sink for benchmarks and size checks).
type Writer struct {
	W io.Writer
	N int64
}

func (c *Writer) Write(p []byte) (int, error) {
	if c.W == nil {
		c.N += int64(len(p))
		return len(p), nil
	}
	n, err := c.W.Write(p)
	c.N += int64(n)
	return n, err
}
