package format

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
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
	// A line reader: its evidence is a line starting "TL ".
	Register(Format{Name: "test-lines", Sniff: func(h []byte) Confidence {
		if bytes.HasPrefix(h, []byte("TL ")) || bytes.Contains(h, []byte("\nTL ")) {
			return Likely
		}
		return No
	}, Claims: func(line []byte) bool { return bytes.HasPrefix(line, []byte("TL")) },
		Read: func(in *Input, _ *Options, sink capture.Sink) (*capture.Capture, error) {
			c := &capture.Capture{}
			c.Accounting.Gap(capture.EmptyCapture, "").Summary = "test-lines read nothing"
			return c, nil
		}})
}

func write(t *testing.T, data []byte) string {
	p := fixture.Write(t, t.TempDir(), "in", data)
	return p
}

func TestDetectByContent(t *testing.T) {
	c, err := ReadFile(write(t, []byte("MAGIC and more")), "", nil, nil)
	if err != nil || c.Source.Format != "test-magic" {
		t.Fatalf("got %v %+v, want no error and a test-magic capture", err, c)
	}
	c, err = ReadFile(write(t, []byte("x\nTL 1\n")), "", nil, nil)
	if err != nil || c.Source.Format != "test-lines" {
		t.Fatalf("a line of its grammar: got %v %+v, want no error and a test-lines capture", err, c)
	}
	// The user's word is evidence: --format reads text nothing claims,
	// and overrides a sniffer's choice.
	for _, data := range []string{"plain text", "MAGIC"} {
		c, err = ReadFile(write(t, []byte(data)), "test-lines", nil, nil)
		if err != nil || c.Source.Format != "test-lines" {
			t.Fatalf("--format on %q: got %v %+v, want a test-lines capture", data, err, c)
		}
	}
	if _, err := ReadFile(write(t, []byte("x")), "nope", nil, nil); err == nil || !strings.Contains(err.Error(), "known formats") {
		t.Fatalf("--format nope: got %v, want an error naming the known formats", err)
	}
}

func TestEmptyFile(t *testing.T) {
	c, err := ReadFile(write(t, nil), "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := c.Accounting.Find(capture.EmptyCapture); g == nil || !strings.Contains(g.Summary, "0 bytes") {
		t.Fatalf("empty file: got gaps %+v, want an EmptyCapture gap saying 0 bytes", c.Accounting.Gaps)
	}
	// A mistyped --format is an error, even for an empty file.
	if c, err := ReadFile(write(t, nil), "no-such-format", nil, nil); err == nil || !strings.Contains(err.Error(), "unknown --format") {
		t.Fatalf("unknown --format on an empty file: got %v, %+v; want an unknown --format error", err, c)
	}
}

func TestGzipInputDetected(t *testing.T) {
	c, err := ReadFile(write(t, gz(t, []byte("MAGIC inside gzip"))), "", nil, nil)
	if err != nil || c.Source.Format != "test-magic" || !c.Source.Compressed {
		t.Fatalf("gzip input: got %v %+v, want no error and a compressed test-magic capture", err, c)
	}
}

// A gzip file cut before its first inflated byte is a cut file, not an
// empty trace: it used to be sniffed as an empty head and reported as
// "nothing was recorded" by whichever reader takes any text. The error is
// positioned (byte 0 of the decompressed data) and says the file was cut.
func TestGzipCutBeforeFirstByte(t *testing.T) {
	z := gz(t, bytes.Repeat([]byte("MAGIC inside gzip\n"), 1000))
	for n := 2; n <= 12; n++ { // inside the header; the header and a first byte of deflate data
		c, err := ReadFile(write(t, z[:n]), "", nil, nil)
		var fe *Error
		if !errors.As(err, &fe) || fe.Offset != 0 || !strings.Contains(err.Error(), "unexpected EOF") || !strings.Contains(err.Error(), "the file was cut") {
			t.Errorf("cut at %d: got %v, %+v; want a cut file's error at byte 0", n, err, c)
		}
	}
	// A gzip of nothing is an empty trace all the same.
	if head, err := BytesInput("empty.gz", gz(t, nil)).Head(); err != nil || len(head) != 0 {
		t.Errorf("gzip of nothing: got head %q, %v; want an empty head and no error", head, err)
	}
}

func TestDirectoryRefused(t *testing.T) {
	_, err := ReadFile(t.TempDir(), "", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("a directory: got %v, want an error naming the directory", err)
	}
	_, err = ReadFile("/no/such/file", "", nil, nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a missing file: got %v, want os.ErrNotExist", err)
	}
}

// No reader takes a file without evidence: plain text, binary data or
// JSON that no sniffer claims is refused with the formats listed and
// --format suggested, as an *Error wrapping ErrUnknownFormat.
func TestNoEvidenceRefused(t *testing.T) {
	for _, tc := range []struct{ name, data, kind string }{
		{"text", "hello\nworld\n", "it is text with no magic number"},
		{"binary", "\x00\x01\x02\xff", "it is binary data with"},
		{"json", `{"a": [1, 2]}`, "it is JSON text with"},
		{"sqlite", "SQLite format 3\x00 CREATE TABLE t (x)", "it is an SQLite database with"},
	} {
		p := write(t, []byte(tc.data))
		c, err := ReadFile(p, "", nil, nil)
		var fe *Error
		if !errors.As(err, &fe) || !errors.Is(err, ErrUnknownFormat) {
			t.Fatalf("%s: got %v, %+v, want an *Error wrapping ErrUnknownFormat", tc.name, err, c)
		}
		msg := err.Error()
		for _, want := range []string{p + ": no reader recognises it: ", tc.kind, "test-lines, test-magic", "give --format NAME"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: got %q, want it to contain %q", tc.name, msg, want)
			}
		}
	}
	// An empty file is an empty capture, and --format on one is honoured.
	for _, name := range []string{"", "test-lines"} {
		c, err := ReadFile(write(t, nil), name, nil, nil)
		if err != nil || c.Accounting.Find(capture.EmptyCapture) == nil || (name != "" && c.Source.Format != name) {
			t.Errorf("empty file, --format %q: got %v %+v, want an empty capture", name, err, c)
		}
	}
}

// A file longer than the head whose head no sniffer claims is scanned with
// every reader's line claims: evidence past the head picks the reader (and
// the capture says so); a file with none is refused, naming the scan; a
// stream, which cannot be read twice, is refused without one.
func TestScanPastUnclaimedHead(t *testing.T) {
	loading := strings.Repeat("loading weights: shard 17 of 4096 ok\n", (sniffLen/37)+10)
	c, err := ReadFile(write(t, []byte(loading+"TL 1\nTL 2\n")), "", nil, nil)
	if err != nil || c.Source.Format != "test-lines" {
		t.Fatalf("evidence past the head: got %v %+v, want test-lines", err, c)
	}
	g := c.Accounting.Find(DetectedByScan)
	if g == nil || !strings.Contains(g.Summary, "no magic, header or line of any format") || g.Items[0].What != "2 lines claimed by test-lines" {
		t.Fatalf("the scan is not stated: got %+v, want a DetectedByScan gap naming 2 lines claimed by test-lines", g)
	}
	// A claimed line that its sniffer does not take as evidence ("TLX"):
	// no reader.
	_, err = ReadFile(write(t, []byte(loading+"TLX\n")), "", nil, nil)
	if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "first 64 KiB hold no magic number") || !strings.Contains(err.Error(), "no line of which is one a line reader uses") {
		t.Fatalf("no evidence in the whole file: got %v, want ErrUnknownFormat saying no magic number and no line a line reader uses", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.Write([]byte(loading + "TL 1\n")); w.Close() }()
	in := &Input{Path: "pipe", Size: -1, stream: &stream{br: bufio.NewReaderSize(r, streamBuf), kind: "a pipe"}}
	_, err = ReadInput(in, "", nil, nil)
	r.Close()
	if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "a stream is not scanned further") {
		t.Fatalf("stream: got %v, want a refusal", err)
	}
}
