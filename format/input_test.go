//go:build unix

package format

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// fifo makes a named pipe that a goroutine fills with data.
func fifo(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(data)
		f.Close()
	}()
	return p
}

func gz(t *testing.T, data []byte) []byte { return fixture.Gzip(t, data) }

func TestStreamInputGzip(t *testing.T) {
	content := bytes.Repeat([]byte("MAGIC stream content 0123456789\n"), 40000) // 1.3 MB: beyond one read-ahead
	raw := gz(t, content)
	in, err := Open(fifo(t, raw))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if !in.IsStream() || !in.Gzip || in.Size != -1 {
		t.Fatalf("got input %+v, want a gzip stream of unknown size", in)
	}
	head, err := in.Head()
	if err != nil || !bytes.HasPrefix(content, head) || len(head) != sniffLen {
		t.Fatalf("got head %d bytes, %v; want a %d-byte prefix of the content", len(head), err, sniffLen)
	}
	r, err := in.Reader()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("got content %d bytes of %d, %v; want all of it and no error", len(got), len(content), err)
	}
	if in.Size != int64(len(raw)) {
		t.Errorf("size %d, want the %d bytes read", in.Size, len(raw))
	}
	if _, err := in.Reader(); !errors.Is(err, ErrStreamReread) {
		t.Errorf("second read: got %v, want ErrStreamReread", err)
	}
	if err := in.RandomAccess("x"); !errors.Is(err, ErrStreamReread) {
		t.Errorf("spool after read: got %v, want ErrStreamReread", err)
	}
}

// A reader may ask for the head after taking the stream (rocprof does, to
// pick CSV or JSON): a gzip stream is then being inflated on another
// goroutine, and peeking at it again read the middle of the gzip data
// ("gzip: invalid header") while racing that goroutine. Head keeps its
// first answer, and Reader takes it before handing the stream out.
func TestStreamHeadAfterReader(t *testing.T) {
	content := bytes.Repeat([]byte("MAGIC stream content 0123456789\n"), 40000)
	for _, headFirst := range []bool{true, false} {
		in, err := Open(fifo(t, gz(t, content)))
		if err != nil {
			t.Fatal(err)
		}
		if headFirst {
			if _, err := in.Head(); err != nil {
				t.Fatal(err)
			}
		}
		r, err := in.Reader()
		if err != nil {
			t.Fatal(err)
		}
		head, err := in.Head()
		if err != nil || len(head) != sniffLen || !bytes.HasPrefix(content, head) {
			t.Errorf("head first %v: head after Reader: got %d bytes, %v; want a %d-byte prefix of the content", headFirst, len(head), err, sniffLen)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, content) {
			t.Errorf("head first %v: got content %d bytes of %d, %v; want all of it and no error", headFirst, len(got), len(content), err)
		}
		in.Close()
	}
}

func TestStreamSpooledForRandomAccess(t *testing.T) {
	content := []byte("MAGIC random access please")
	in, err := Open(fifo(t, content))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := in.Head(); err != nil {
		t.Fatal(err)
	}
	if err := in.RandomAccess("test"); err != nil {
		t.Fatal(err)
	}
	if in.IsStream() || in.Size != int64(len(content)) {
		t.Fatalf("after spooling: got %+v, want a file input of %d bytes", in, len(content))
	}
	buf := make([]byte, 6)
	if _, err := in.ReaderAt.ReadAt(buf, 6); err != nil || string(buf) != "random" {
		t.Fatalf("ReadAt: got %q %v, want \"random\"", buf, err)
	}
	// Files read as many times as wanted.
	for i := 0; i < 2; i++ {
		r, _ := in.Reader()
		if b, _ := io.ReadAll(r); !bytes.Equal(b, content) {
			t.Fatalf("read %d: got %q, want %q", i, b, content)
		}
	}
}

func TestSpoolFailureIsReported(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	in, err := Open(fifo(t, []byte("MAGIC")))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := in.RandomAccess("test"); err == nil || !strings.Contains(err.Error(), "TMPDIR") {
		t.Fatalf("spool into a missing directory: got %v, want an error naming TMPDIR", err)
	}
}

func TestDevicesAreNeverEmptyFiles(t *testing.T) {
	if _, err := os.Stat("/dev/urandom"); err != nil {
		t.Skip("no /dev/urandom")
	}
	c, err := ReadFile("/dev/urandom", "", nil, nil)
	if err == nil {
		if g := c.Accounting.Find(capture.EmptyCapture); g != nil && strings.Contains(g.Summary, "0 bytes") {
			t.Fatalf("/dev/urandom read as an empty file: got %q, want no 0-byte empty-capture gap", g.Summary)
		}
	}
	in, err := Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := in.RandomAccess("test"); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Fatalf("spooling /dev/zero: got %v, want an error naming a character device", err)
	}
	// An empty stream is empty, and says it is a stream.
	c, err = ReadFile(fifo(t, nil), "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := c.Accounting.Find(capture.EmptyCapture)
	if g == nil || !strings.Contains(g.Summary, "stream ended before its first byte") || strings.Contains(g.Summary, "file is empty") {
		t.Fatalf("empty stream: got %+v, want an EmptyCapture gap saying the stream ended before its first byte", g)
	}
}

func TestReadAheadCutGzip(t *testing.T) {
	content := bytes.Repeat([]byte("0123456789abcdef"), 100000)
	raw := gz(t, content)
	r, err := newGzipReader(bytes.NewReader(raw[:len(raw)/2]), -1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if !errors.Is(err, io.ErrUnexpectedEOF) || !bytes.HasPrefix(content, got) || len(got) == 0 {
		t.Fatalf("cut gzip: got %d bytes, %v; want a non-empty prefix and io.ErrUnexpectedEOF", len(got), err)
	}
	// Abandoned early: Close stops the goroutine (no deadlock, no leak).
	r, _ = newGzipReader(bytes.NewReader(raw), -1)
	buf := make([]byte, 10)
	r.Read(buf)
	r.(io.Closer).Close()
}
