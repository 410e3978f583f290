package probe

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/probefile"
)

var le = binary.LittleEndian

type reader struct {
	r    *bufio.Reader
	path string
	sink capture.Sink
	c    *capture.Capture
	hdr  probefile.Header

	off  int64 // bytes consumed
	body []byte

	programs map[uint32]capture.ProgramID
	kernels  map[uint32]capture.KernelID
	queues   map[uint32]*queueState

	bytes, records, events *capture.InputCount
	recordsByType          [probefile.TypeEnd + 1]int64
	dispatches             int64
	summaryRecords         int64
	ended                  bool
	end                    endRecord
	note                   string
	cutAt                  int64 // byte offset of a cut record, -1 when none
	lastTime               int64
}

type queueState struct {
	id      capture.QueueID
	name    string
	events  int64 // events of this queue in the file
	last    lastEvent
	ck      *checkpoint // the latest
	ckCount int64
}

type lastEvent struct {
	ok     bool
	kernel capture.KernelID
	end    int64
}

type checkpoint struct {
	time              int64
	recorded, dropped uint64
	inflight          []inflight
}

type inflight struct {
	kernel uint32
	begin  int64
}

type endRecord struct {
	time, launches, recorded, dropped int64
	inFlight, summaries, layers       int64
	flags                             uint32
}

func newReader(r io.Reader, path string, sink capture.Sink) *reader {
	rd := &reader{
		r: bufio.NewReaderSize(r, 64<<10), path: path, sink: sink,
		c:        &capture.Capture{},
		programs: map[uint32]capture.ProgramID{},
		kernels:  map[uint32]capture.KernelID{},
		queues:   map[uint32]*queueState{},
		cutAt:    -1,
	}
	rd.bytes = rd.c.Accounting.InputFor("bytes")
	rd.records = rd.c.Accounting.InputFor("records")
	rd.events = rd.c.Accounting.InputFor("dispatch events")
	return rd
}

func (rd *reader) read() (*capture.Capture, error) {
	if err := rd.header(); err != nil {
		return nil, err
	}
	for {
		stop, err := rd.record()
		if err != nil {
			return nil, err
		}
		if stop {
			break
		}
	}
	rd.finish()
	return rd.c, nil
}

// header reads and checks the file header; a file without a whole header
// holds nothing to report.
func (rd *reader) header() error {
	var h [probefile.HeaderLen]byte
	n, err := io.ReadFull(rd.r, h[:])
	if n < len(probefile.Magic) || string(h[:len(probefile.Magic)]) != probefile.Magic {
		return format.ByteError(rd.path, 0, "give a file written by tally's probe package, or --format for another reader", "not a probe capture (no %q magic)", probefile.Magic)
	}
	if err != nil {
		if isCut(err) {
			return format.ByteError(rd.path, int64(n), "the file was cut inside its 32-byte header: nothing was recorded in it", "probe header cut after %d bytes", n)
		}
		return format.ByteError(rd.path, int64(n), "check the file", "reading the header: %v", err)
	}
	rd.hdr = probefile.ParseHeader(h[:])
	if rd.hdr.Major != probefile.Major {
		return format.ByteError(rd.path, 8, "this tally reads version 1.x; use a tally that knows this version", "probe format version %d.%d", rd.hdr.Major, rd.hdr.Minor)
	}
	if rd.hdr.HeaderLen < probefile.HeaderLen || rd.hdr.HeaderLen > probefile.MaxBody {
		return format.ByteError(rd.path, 12, "the file is corrupt", "header length %d (at least %d)", rd.hdr.HeaderLen, probefile.HeaderLen)
	}
	rd.off = probefile.HeaderLen
	if extra := int64(rd.hdr.HeaderLen) - probefile.HeaderLen; extra > 0 {
		m, err := io.CopyN(io.Discard, rd.r, extra)
		rd.off += m
		if err != nil {
			if isCut(err) {
				return format.ByteError(rd.path, rd.off, "the file was cut inside its header", "probe header extension cut after %d of %d bytes", m, extra)
			}
			return format.ByteError(rd.path, rd.off, "check the file", "reading the header: %v", err)
		}
	}
	rd.bytes.Read = rd.off
	rd.bytes.Used = rd.off
	return nil
}

func isCut(err error) bool { return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) }

// record reads one record; stop is true at the end of the input.
func (rd *reader) record() (stop bool, err error) {
	var h [probefile.RecordHeaderLen]byte
	start := rd.off
	n, err := io.ReadFull(rd.r, h[:])
	rd.off += int64(n)
	rd.bytes.Read += int64(n)
	if err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return true, nil
		}
		if isCut(err) {
			rd.cut(start, int64(n))
			return true, nil
		}
		return true, format.ByteError(rd.path, rd.off, "check the file", "reading: %v", err)
	}
	typ, size := h[0], le.Uint32(h[1:])
	if size > probefile.MaxBody {
		// A corrupt length: nothing after it can be framed.
		rest, err := io.Copy(io.Discard, rd.r)
		rd.off += rest
		rd.bytes.Read += rest
		rd.bytes.SkipUnclassified("corrupt record length: rest of the file", int64(n)+rest, fmt.Sprintf("byte %d", start))
		rd.malformed(start, fmt.Sprintf("record length %d exceeds the format's limit", size))
		if err != nil {
			return true, format.ByteError(rd.path, rd.off, "check the file", "reading: %v", err)
		}
		return true, nil
	}
	if err := rd.readBody(int(size)); err != nil {
		if isCut(err) {
			rd.cut(start, int64(n)+int64(len(rd.body)))
			return true, nil
		}
		return true, format.ByteError(rd.path, rd.off, "check the file", "reading: %v", err)
	}
	total := int64(n) + int64(size)
	rd.records.Read++
	if rd.ended {
		rd.skip(start, total, "after the end record")
		return false, nil
	}
	if ok, why := rd.decode(typ, rd.body, start); !ok {
		rd.skip(start, total, why)
		if why != "unknown record type" {
			rd.malformed(start, why)
		}
		return false, nil
	}
	if int(typ) < len(rd.recordsByType) {
		rd.recordsByType[typ]++
	}
	rd.records.Used++
	rd.bytes.Used += total
	return false, nil
}

// readBody reads n bytes into rd.body, growing it by at most 1 MiB beyond
// what the input actually holds: a length field never allocates by itself.
func (rd *reader) readBody(n int) error {
	rd.body = rd.body[:0]
	for len(rd.body) < n {
		chunk := min(n-len(rd.body), 1<<20)
		have := len(rd.body)
		rd.body = append(rd.body, make([]byte, chunk)...)
		m, err := io.ReadFull(rd.r, rd.body[have:have+chunk])
		rd.off += int64(m)
		rd.bytes.Read += int64(m)
		if err != nil {
			rd.body = rd.body[:have+m]
			return err
		}
	}
	return nil
}

func (rd *reader) skip(start, n int64, why string) {
	rd.records.SkipUnclassified(why, 1, fmt.Sprintf("byte %d", start))
	rd.bytes.SkipUnclassified(why, n, fmt.Sprintf("byte %d", start))
}

func (rd *reader) cut(start, n int64) {
	rd.cutAt = start
	rd.bytes.SkipUnclassified("cut record", n, fmt.Sprintf("byte %d", start))
}

func (rd *reader) malformed(start int64, why string) {
	g := rd.c.Accounting.Gap(capture.SkippedInput, "")
	g.Summary = "records that break the format's rules were skipped: the file is corrupt there"
	g.Add(capture.Item{What: why, Where: fmt.Sprintf("byte %d", start)})
}
