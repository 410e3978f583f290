package format

import (
	"bytes"
	"io"
)

// BOM is the UTF-8 byte-order mark an editor may write at the start of a
// text file (Windows tools do): it is no part of a trace, and a reader of
// text skips it.
var BOM = []byte{0xEF, 0xBB, 0xBF}

// TrimBOM returns b without a leading UTF-8 BOM.
func TrimBOM(b []byte) []byte { return bytes.TrimPrefix(b, BOM) }

// BOMAsSpaces returns r with a leading UTF-8 BOM read as three spaces: a
// JSON decoder then passes over it as white space, and every byte offset
// it reports stays the file's.
func BOMAsSpaces(r io.Reader) io.Reader {
	head := make([]byte, 0, len(BOM))
	var err error
	for len(head) < len(BOM) && err == nil {
		var n int
		n, err = r.Read(head[len(head):cap(head)])
		head = head[:len(head)+n]
	}
	if bytes.Equal(head, BOM) {
		head = []byte("   ")
	}
	if err != nil {
		// A file shorter than a BOM, or a read that failed: what was read,
		// then the reader's own error (io.EOF, or a cut gzip stream's
		// io.ErrUnexpectedEOF), as the reader would have returned it.
		return io.MultiReader(bytes.NewReader(head), errReader{err})
	}
	return io.MultiReader(bytes.NewReader(head), r)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
