package format

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

func init() {
	Register(Format{Name: "test-magic", Sniff: func(h []byte) Confidence {
		if bytes.HasPrefix(h, []byte("MAGIC")) {
			return Certain
		}
		return No
	}, Read: func(in *Input, _ *Options, _ capture.Sink) (*capture.Capture, error) {
		return &capture.Capture{}, nil
	}})
	Register(Format{Name: "test-text", Sniff: func(h []byte) Confidence { return Fallback },
		Read: func(in *Input, _ *Options, _ capture.Sink) (*capture.Capture, error) { return &capture.Capture{}, nil }})
}

func write(t *testing.T, data []byte) string {
	p := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDetectByContent(t *testing.T) {
	c, err := ReadFile(write(t, []byte("MAGIC and more")), "", nil, nil)
	if err != nil || c.Source.Format != "test-magic" {
		t.Fatalf("%v %+v", err, c)
	}
	c, err = ReadFile(write(t, []byte("plain text")), "", nil, nil)
	if err != nil || c.Source.Format != "test-text" {
		t.Fatalf("fallback: %v %+v", err, c)
	}
	c, err = ReadFile(write(t, []byte("MAGIC")), "test-text", nil, nil)
	if err != nil || c.Source.Format != "test-text" {
		t.Fatal("--format does not override")
	}
	if _, err := ReadFile(write(t, []byte("x")), "nope", nil, nil); err == nil || !strings.Contains(err.Error(), "known formats") {
		t.Fatalf("%v", err)
	}
}

func TestEmptyFile(t *testing.T) {
	c, err := ReadFile(write(t, nil), "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := c.Accounting.Find(capture.EmptyCapture); g == nil || !strings.Contains(g.Summary, "0 bytes") {
		t.Fatalf("empty file: %+v", c.Accounting.Gaps)
	}
	// A mistyped --format is an error, even for an empty file.
	if c, err := ReadFile(write(t, nil), "no-such-format", nil, nil); err == nil || !strings.Contains(err.Error(), "unknown --format") {
		t.Fatalf("unknown --format on an empty file: %v, %+v", err, c)
	}
}

func TestGzipInputDetected(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte("MAGIC inside gzip"))
	zw.Close()
	c, err := ReadFile(write(t, b.Bytes()), "", nil, nil)
	if err != nil || c.Source.Format != "test-magic" || !c.Source.Compressed {
		t.Fatalf("%v %+v", err, c)
	}
}

// A gzip file cut before its first inflated byte is a cut file, not an
// empty trace: it used to be sniffed as an empty head and reported as
// "nothing was recorded" by whichever reader takes any text.
func TestGzipCutBeforeFirstByte(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(bytes.Repeat([]byte("MAGIC inside gzip\n"), 1000))
	zw.Close()
	for _, n := range []int{10, 12} { // the header; the header and a first byte of deflate data
		c, err := ReadFile(write(t, b.Bytes()[:n]), "", nil, nil)
		if err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
			t.Errorf("cut at %d: %v, %+v", n, err, c)
		}
	}
	// A gzip of nothing is an empty trace all the same.
	var e bytes.Buffer
	zw = gzip.NewWriter(&e)
	zw.Close()
	if head, err := BytesInput("empty.gz", e.Bytes()).Head(); err != nil || len(head) != 0 {
		t.Errorf("gzip of nothing: head %q, %v", head, err)
	}
}

func TestDirectoryRefused(t *testing.T) {
	_, err := ReadFile(t.TempDir(), "", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("%v", err)
	}
	_, err = ReadFile("/no/such/file", "", nil, nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%v", err)
	}
}
