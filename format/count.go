package format

import "io"

// CountingReader counts the bytes read through it, for a reader's byte
// accounting and error positions when it reads through a decoder that
// buffers (encoding/json, bufio).
type CountingReader struct {
	R io.Reader
	N int64
}

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}
