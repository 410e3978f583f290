package format

import (
	"bytes"
	"io"
	"testing"
)

func TestTrackProgress(t *testing.T) {
	in := BytesInput("x", bytes.Repeat([]byte("a"), 1000))
	p := TrackProgress(in)
	r, err := in.Reader()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 300)
	if _, err := io.ReadFull(r, buf); err != nil || p.Done() != 300 {
		t.Fatalf("after 300 bytes: got %d %v, want 300 and no error", p.Done(), err)
	}
	in.ReaderAt.ReadAt(buf[:10], 0) // a re-read of the start does not move it back
	if p.Done() != 300 {
		t.Fatalf("after a re-read of the start: got %d, want 300 (never moved back)", p.Done())
	}
	io.Copy(io.Discard, r)
	if p.Done() != 1000 {
		t.Fatalf("at the end: got %d, want 1000", p.Done())
	}
}
