package format

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// Input is an opened trace: a file (random access), or a stream — standard
// input, a pipe, a FIFO, process substitution, a character device — that
// can be read once from its start. Readers that stream use Reader; readers
// that need random access call RandomAccess first, which spools a stream to
// a temporary file.
type Input struct {
	Path     string
	ReaderAt io.ReaderAt
	// Size is the file's size. For a stream it is -1 until the stream has
	// been read, then the bytes read (0 for a stream that held nothing).
	Size int64
	// Gzip is true when the input starts with the gzip magic; Reader then
	// decompresses.
	Gzip bool

	stream  *stream
	closers []io.Closer
}

// stream is the read-once source of a streamed input.
type stream struct {
	br   *bufio.Reader
	kind string // "standard input", "a pipe", "a character device", …
	used bool   // Reader was called
	dev  bool   // a character device: may never end, never spooled
	// head and headErr are Head's answer, kept from its first call (or
	// taken by Reader before it hands the stream out): once a reader
	// consumes the stream — a gzip one from its inflating goroutine — the
	// start can no longer be peeked.
	head    []byte
	headErr error
	headSet bool
}

// streamBuf is the read-ahead of a stream: what Head may look at without
// consuming it (gzip input needs more than sniffLen to inflate sniffLen).
const streamBuf = 1 << 20

// Open opens path as an Input; "-" is standard input. The caller closes
// the input.
func Open(path string) (*Input, error) {
	f, name := os.Stdin, "standard input"
	if path != "-" {
		var err error
		if f, err = os.Open(path); err != nil {
			return nil, err
		}
		name = path
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory: give a trace file", path)
	}
	in := &Input{Path: name}
	if path != "-" {
		in.closers = append(in.closers, f)
	}
	if st.Mode().IsRegular() {
		in.ReaderAt, in.Size = f, st.Size()
		var magic [2]byte
		if n, _ := f.ReadAt(magic[:], 0); n == 2 {
			in.Gzip = IsGzip(magic[:])
		}
		return in, nil
	}
	// Not a regular file: its stat size means nothing (a pipe says 0,
	// /dev/urandom says 0 and never ends), so it is read as a stream.
	s := &stream{br: bufio.NewReaderSize(f, streamBuf), kind: streamKind(path, st.Mode())}
	s.dev = st.Mode()&os.ModeCharDevice != 0
	in.stream = s
	in.Size = -1
	head, err := s.br.Peek(2)
	switch {
	case len(head) == 0 && err == io.EOF:
		in.Size = 0 // truly empty: the stream ended before its first byte
	case len(head) == 0 && err != nil:
		in.Close()
		return nil, fmt.Errorf("%s: reading %s: %v", in.Path, s.kind, err)
	}
	in.Gzip = IsGzip(head)
	return in, nil
}

func streamKind(path string, m os.FileMode) string {
	switch {
	case path == "-":
		return "standard input"
	case m&os.ModeNamedPipe != 0:
		return "a pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	}
	return "a stream"
}

// IsStream reports whether the input is read once from a stream.
func (in *Input) IsStream() bool { return in.stream != nil }

// Close releases the input's file, temporary spool and decompressors.
func (in *Input) Close() error {
	var first error
	for i := len(in.closers) - 1; i >= 0; i-- {
		if err := in.closers[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	in.closers = nil
	return first
}

// BytesInput is an Input over data held in memory (embedded files, tests).
func BytesInput(name string, data []byte) *Input {
	return &Input{Path: name, ReaderAt: bytes.NewReader(data), Size: int64(len(data)), Gzip: IsGzip(data)}
}

// ErrStreamReread is returned when a streamed input is read a second time.
var ErrStreamReread = errors.New("the input is a stream and was already read once")

// Reader returns a stream of the input's content, decompressed when the
// input is gzip. A file gives a fresh stream each call; a streamed input
// only once.
func (in *Input) Reader() (io.Reader, error) {
	var r io.Reader
	if s := in.stream; s != nil {
		if s.used {
			return nil, fmt.Errorf("%w (%s): save it to a file and give that instead", ErrStreamReread, s.kind)
		}
		if !s.headSet {
			in.Head() // keeps the head for a Head call after this one
		}
		s.used = true
		r = &countReader{r: s.br, in: in}
	} else {
		r = io.NewSectionReader(in.ReaderAt, 0, in.Size)
	}
	if !in.Gzip {
		return r, nil
	}
	newReader := newGzipReader
	if in.Size >= 0 && in.Size < inflateAheadFrom {
		newReader = newGzipReaderSync
	}
	zr, err := newReader(r, in.Size) // -1 for a stream
	if err != nil {
		return nil, err
	}
	if c, ok := zr.(io.Closer); ok {
		in.closers = append(in.closers, c)
	}
	return zr, nil
}

// countReader counts a stream's bytes into Input.Size as they are read.
type countReader struct {
	r  io.Reader
	in *Input
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 || err == io.EOF {
		c.in.Size = max(c.in.Size, 0) + int64(n)
	}
	return n, err
}

// Head returns up to sniffLen bytes of the input's content without
// consuming a stream. It may be called before or after Reader.
func (in *Input) Head() ([]byte, error) {
	if s := in.stream; s != nil {
		if !s.headSet {
			s.head, s.headErr = in.streamHead()
			s.headSet = true
		}
		return s.head, s.headErr
	}
	r, err := in.syncReader()
	if err != nil {
		return nil, err
	}
	return readHead(r)
}

// streamHead peeks at a stream that has not been handed to a reader yet.
func (in *Input) streamHead() ([]byte, error) {
	raw, err := in.stream.br.Peek(streamBuf)
	if len(raw) == 0 && err != nil && err != io.EOF {
		return nil, err
	}
	var r io.Reader = bytes.NewReader(raw)
	if in.Gzip {
		zr, err := newGzipReaderSync(r, -1)
		if err != nil {
			return nil, err
		}
		r = zr
	}
	return readHead(r)
}

func readHead(r io.Reader) ([]byte, error) { return readHeadInto(r, make([]byte, sniffLen)) }

// readHeadInto reads the head into buf.
func readHeadInto(r io.Reader, buf []byte) ([]byte, error) {
	n, err := io.ReadFull(r, buf)
	// A cut gzip stream still has a head worth sniffing. One cut before
	// its first inflated byte has none: ReadFull passes the inflater's
	// io.ErrUnexpectedEOF on as it is, and an empty head would be sniffed
	// as an empty trace ("nothing was recorded") instead of a cut file.
	var trailing *GzipTrailingError
	if n == 0 && err != nil && err != io.EOF && !errors.As(err, &trailing) {
		return nil, err
	}
	return buf[:n], nil
}

// syncReader is Reader for a file without the read-ahead goroutine, for
// short reads.
func (in *Input) syncReader() (io.Reader, error) {
	r := io.NewSectionReader(in.ReaderAt, 0, in.Size)
	if !in.Gzip {
		return r, nil
	}
	return newGzipReaderSync(r, in.Size)
}

// RandomAccess makes a streamed input a file, for readers that need
// ReaderAt: the stream is copied to an unlinked temporary file (every
// write checked, up to TALLY_SPOOL_LIMIT when it is set). A character
// device is refused, as it may never end. For a file it does nothing.
func (in *Input) RandomAccess(format string) error {
	s := in.stream
	if s == nil {
		return nil
	}
	if s.used {
		return fmt.Errorf("%s: %w (%s)", in.Path, ErrStreamReread, s.kind)
	}
	if s.dev {
		return fmt.Errorf("%s is %s: the %s reader needs a file it can seek, and a device may never end; copy the data to a file and give that", in.Path, s.kind, format)
	}
	// A plain stream is copied byte for byte: only TALLY_SPOOL_LIMIT bounds
	// it (spool.go).
	limit, atLimit, err := spoolLimit(-1)
	if err != nil {
		return FileError(in.Path, err, "", "%v", err)
	}
	f, err := os.CreateTemp("", "tally-input-*")
	if err != nil {
		return fmt.Errorf("%s is %s and the %s reader needs random access, but no temporary file could be made for it: %v (set TMPDIR to a writable disk, or give a file)", in.Path, s.kind, format, err)
	}
	// Unlinked at once where the OS allows it: nothing is left behind.
	os.Remove(f.Name())
	n, err := copyLimited(f, s.br, limit, atLimit)
	if err != nil {
		f.Close()
		var le *SpoolLimitError
		if errors.As(err, &le) {
			return FileError(in.Path, err, spoolHint+", or save the data to a file and give that", "the %s reader needs random access; copying this stream (%s) into a temporary file stopped: %v", format, s.kind, err)
		}
		return fmt.Errorf("%s: copying %s to a temporary file for the %s reader (random access) failed after %d bytes: %v (set TMPDIR to a disk with free space, or give a file)", in.Path, s.kind, format, n, err)
	}
	s.used = true
	in.stream = nil
	in.closers = append(in.closers, f)
	in.ReaderAt, in.Size = f, n
	return nil
}

// IsGzip reports whether b starts with the gzip magic.
func IsGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// headBufs hold the heads that Sniff reads and does not keep: a directory
// of ranks sniffs every file, and a fresh 64 KiB each is 16 page faults
// (on a virtual machine, about a quarter of a millisecond).
var headBufs = sync.Pool{New: func() any { b := make([]byte, sniffLen); return &b }}

// Sniff detects in's format from its head, as Detect(in.Head()) does,
// without keeping the head of a file. A stream's head is kept, for the
// reader that reads it (Head).
func Sniff(in *Input) (Format, Confidence, error) {
	if in.stream != nil {
		head, err := in.Head()
		if err != nil {
			return Format{}, No, err
		}
		f, conf := Detect(head)
		return f, conf, nil
	}
	r, err := in.syncReader()
	if err != nil {
		return Format{}, No, err
	}
	bp := headBufs.Get().(*[]byte)
	defer headBufs.Put(bp)
	head, err := readHeadInto(r, *bp)
	if err != nil {
		return Format{}, No, err
	}
	f, conf := Detect(head)
	return f, conf, nil
}
