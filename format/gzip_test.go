package format

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"testing"
)

// Trailing non-gzip bytes end the data with a GzipTrailingError naming
// where the gzip data ends and how many bytes follow, for a file (size
// known) and a stream (counted by reading); a second gzip member is read
// on, and a corrupt one is not taken for trailing bytes.
func TestGzipTrailing(t *testing.T) {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte("hello "))
	w.Close()
	one := z.Bytes()
	data := append(append([]byte(nil), one...), "\x00\x00junk"...)
	for _, size := range []int64{int64(len(data)), -1} {
		for _, sync := range []bool{false, true} {
			var r io.Reader
			var err error
			if sync {
				r, err = newGzipReaderSync(bytes.NewReader(data), size)
			} else {
				r, err = newGzipReader(bytes.NewReader(data), size)
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			var te *GzipTrailingError
			if string(got) != "hello " || !errors.As(err, &te) || te.Offset != int64(len(one)) || te.N != 6 {
				t.Errorf("size %d sync %v: %q %v %+v", size, sync, got, err, te)
			}
		}
	}
	two := append(append([]byte(nil), one...), one...)
	got, err := io.ReadAll(must(newGzipReaderSync(bytes.NewReader(two), -1)))
	if string(got) != "hello hello " || err != nil {
		t.Errorf("two members: %q %v", got, err)
	}
	bad := append(append([]byte(nil), one...), 0x1f, 0x8b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	_, err = io.ReadAll(must(newGzipReaderSync(bytes.NewReader(bad), -1)))
	var te *GzipTrailingError
	if err == nil || errors.As(err, &te) {
		t.Errorf("corrupt second member: %v", err)
	}
}

func must(r io.Reader, err error) io.Reader {
	if err != nil {
		panic(err)
	}
	return r
}
