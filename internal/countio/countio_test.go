package countio

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReader(t *testing.T) {
	r := &Reader{R: strings.NewReader("hello, world")}
	if _, err := io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
	if r.N != 12 {
		t.Errorf("read %d bytes, want 12", r.N)
	}
}

// failAfter accepts n bytes, then fails.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errors.New("full")
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := &Writer{W: &buf}
	io.WriteString(w, "abc")
	io.WriteString(w, "de")
	if w.N != 5 || buf.String() != "abcde" {
		t.Errorf("got %d bytes counted, %q written; want 5, \"abcde\"", w.N, buf.String())
	}
	// Only what the writer took counts.
	short := &Writer{W: &failAfter{n: 4}}
	if _, err := io.WriteString(short, "abcdef"); err == nil || short.N != 4 {
		t.Errorf("short write: got %d counted, error %v; want 4 and the error", short.N, err)
	}
	var sink Writer
	io.WriteString(&sink, "xyz")
	if sink.N != 3 {
		t.Errorf("nil W: got %d counted, want 3", sink.N)
	}
}
