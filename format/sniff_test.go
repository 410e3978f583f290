package format

import (
	"bytes"
	"io"
	"testing"
)

// Sniff chooses as Detect of the head does: for files plain and gzip,
// small and beyond the head, a line format found past the start, and
// content no reader claims; a file sniffed twice, its buffer reused,
// chooses the same.
func TestSniffAsDetect(t *testing.T) {
	cases := map[string][]byte{
		"magic":         []byte("MAGIC and more"),
		"gzip magic":    gz(t, []byte("MAGIC inside gzip")),
		"lines":         []byte("x\nTL 1\n"),
		"large lines":   append(bytes.Repeat([]byte("x\n"), 20000), "TL 1\n"...),
		"unclaimed":     []byte("plain text"),
		"large magic":   append([]byte("MAGIC"), bytes.Repeat([]byte("y"), 200000)...),
		"lines in gzip": gz(t, []byte("x\nTL 1\n")),
	}
	for round := range 2 {
		for name, data := range cases {
			in, err := Open(write(t, data))
			if err != nil {
				t.Fatal(err)
			}
			head, err := in.Head()
			if err != nil {
				t.Fatalf("%s: Head: %v", name, err)
			}
			wf, wc := Detect(head)
			f, c, err := Sniff(in)
			if err != nil || f.Name != wf.Name || c != wc {
				t.Fatalf("round %d, %s: got %q %v %v, want %q %v and no error", round, name, f.Name, c, err, wf.Name, wc)
			}
			in.Close()
		}
	}
}

// A stream's head stays for its reader: Sniff, then Head and Reader, give
// the stream from its start.
func TestSniffStream(t *testing.T) {
	content := bytes.Repeat([]byte("MAGIC stream content 0123456789\n"), 40000)
	in, err := Open(fifo(t, gz(t, content)))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if f, c, err := Sniff(in); err != nil || f.Name != "test-magic" || c != Certain {
		t.Fatalf("got %q %v %v, want test-magic, certain, no error", f.Name, c, err)
	}
	head, err := in.Head()
	if err != nil || !bytes.HasPrefix(content, head) || len(head) == 0 {
		t.Fatalf("Head after Sniff: got %d bytes (%v), want the stream's start", len(head), err)
	}
	r, err := in.Reader()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("Reader after Sniff: got %d bytes (%v), want the whole %d", len(got), err, len(content))
	}
}

// A gzip file cut before its first inflated byte is an error, as Head's.
func TestSniffCutGzip(t *testing.T) {
	z := gz(t, bytes.Repeat([]byte("MAGIC inside gzip\n"), 1000))
	in, err := Open(write(t, z[:12]))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	_, herr := in.Head()
	if _, _, err := Sniff(in); (err == nil) != (herr == nil) || err == nil {
		t.Fatalf("got error %v, want one as Head's (%v)", err, herr)
	}
}
