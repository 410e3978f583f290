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
				t.Errorf("size %d sync %v: got %q %v %+v, want \"hello \" and a GzipTrailingError of 6 bytes at %d", size, sync, got, err, te, len(one))
			}
		}
	}
	two := append(append([]byte(nil), one...), one...)
	got, err := io.ReadAll(must(newGzipReaderSync(bytes.NewReader(two), -1)))
	if string(got) != "hello hello " || err != nil {
		t.Errorf("two members: got %q %v, want \"hello hello \" and no error", got, err)
	}
	bad := append(append([]byte(nil), one...), 0x1f, 0x8b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	_, err = io.ReadAll(must(newGzipReaderSync(bytes.NewReader(bad), -1)))
	var te *GzipTrailingError
	if err == nil || errors.As(err, &te) {
		t.Errorf("corrupt second member: got %v, want an error that is not a GzipTrailingError", err)
	}
}

func must(r io.Reader, err error) io.Reader {
	if err != nil {
		panic(err)
	}
	return r
}

// FuzzGzipTrailing appends arbitrary bytes to a complete gzip stream: the
// stream's data always comes through whole, and bytes that do not start
// another member are named as trailing, with their offset and count.
//
//	go test -run '^$' -fuzz FuzzGzipTrailing ./format/
func FuzzGzipTrailing(f *testing.F) {
	for _, s := range []string{"", "\x00", "junk after", "\x1f\x8b", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"} {
		f.Add([]byte(s), false)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte("payload"))
	w.Close()
	one := z.Bytes()
	f.Fuzz(func(t *testing.T, junk []byte, stream bool) {
		data := append(append([]byte(nil), one...), junk...)
		size := int64(len(data))
		if stream {
			size = -1
		}
		// The synchronous reader: the same members logic without the
		// read-ahead's 1 MiB of blocks per input, so fuzzing stays fast.
		got, err := io.ReadAll(must(newGzipReaderSync(bytes.NewReader(data), size)))
		if len(got) < 7 || string(got[:7]) != "payload" {
			t.Fatalf("got data %q (%v), want it to start with \"payload\"", got, err)
		}
		var te *GzipTrailingError
		switch {
		case len(junk) == 0:
			if err != nil || len(got) != 7 {
				t.Fatalf("clean: got %q %v, want \"payload\" and no error", got, err)
			}
		case IsGzip(junk):
			if errors.As(err, &te) && te.Offset < int64(len(one)) {
				t.Fatalf("a second member's bytes taken for trailing: got %+v, want no trailing error before offset %d", te, len(one))
			}
		default:
			if !errors.As(err, &te) || te.Offset != int64(len(one)) || te.N != int64(len(junk)) || len(got) != 7 {
				t.Fatalf("junk %q: got %q %v, want \"payload\" and a GzipTrailingError of %d bytes at %d", junk, got, err, len(junk), len(one))
			}
		}
	})
}

// A small gzip file is inflated on the reader's goroutine: the read-ahead
// ring (a megabyte and a goroutine) is for files whose inflate takes long
// enough to overlap. Either way the bytes are the same.
func TestSmallGzipInflatedInline(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plain []byte
		ahead bool
	}{
		{"small", bytes.Repeat([]byte(`{"name": "k", "ts": 1},`), 100), false},
		{"large", incompressible(2 * inflateAheadFrom), true},
	} {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(tc.plain)
		zw.Close()
		in := BytesInput(tc.name+".json.gz", z.Bytes())
		r, err := in.Reader()
		if err != nil {
			t.Fatal(err)
		}
		if _, ahead := r.(*readAhead); ahead != tc.ahead {
			t.Errorf("%s (%d bytes compressed): inflated ahead %v, want %v", tc.name, z.Len(), ahead, tc.ahead)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, tc.plain) {
			t.Errorf("%s: read %d bytes (%v), want the %d written", tc.name, len(got), err, len(tc.plain))
		}
		in.Close()
	}
}

// incompressible returns n bytes that deflate barely shrinks.
func incompressible(n int) []byte {
	b := make([]byte, n)
	x := uint64(0x9E3779B97F4A7C15)
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	return b
}
