package probereader

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
	cutBytes               int64
	lostTo                 *capture.Gap // set by a decoder that rejects a record into its own gap
	ceiling                int64        // ns: the longest time one dispatch may take
	lastTime               int64
}

type queueState struct {
	id      capture.QueueID
	name    string
	events  int64 // events of this queue in the file (a repeated record counted once)
	last    lastEvent
	batch   batchID
	ck      *checkpoint // the latest
	ckCount int64
}

type lastEvent struct {
	ok         bool
	kernel     capture.KernelID
	begin, end int64
}

// batchID identifies a queue's last events record by its count and first
// event: a record the writer appended twice repeats both, while the next
// drain's record cannot start with the same dispatch (kernel, begin, end).
type batchID struct {
	ok    bool
	n     uint32
	first [probefile.EventLen]byte
}

// b is an events body of at least one event.
func (id *batchID) repeats(b []byte) bool {
	return id.ok && id.n == le.Uint32(b[4:]) && string(id.first[:]) == string(b[probefile.EventsFixed:probefile.EventsFixed+probefile.EventLen])
}

func (id *batchID) set(b []byte) {
	id.ok, id.n = le.Uint32(b[4:]) > 0, le.Uint32(b[4:])
	if id.ok {
		copy(id.first[:], b[probefile.EventsFixed:])
	}
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

func newReader(r io.Reader, path string, ceiling int64, sink capture.Sink) *reader {
	if ceiling <= 0 {
		ceiling = capture.MaxDuration
	}
	rd := &reader{
		r: bufio.NewReaderSize(r, 64<<10), path: path, sink: sink, ceiling: ceiling,
		// Every time is monotonic ns: known before the end, so the model
		// check holds each dispatch to the ns ceiling as it passes
		// (finish describes the clock).
		c:        &capture.Capture{Clock: capture.Clock{Unit: "ns"}},
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
		g := rd.malformed(start, fmt.Sprintf("record length %d exceeds the format's limit", size))
		rd.bytes.Lose(g, "corrupt record length: rest of the file", int64(n)+rest, fmt.Sprintf("byte %d", start))
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
		// The writer never appends after the end record: a concatenated
		// or corrupt file, whose records may hold dispatches.
		rd.skip(start, total, "after the end record", rd.malformed(start, "a record after the end record"))
		return false, nil
	}
	rd.lostTo = nil
	if ok, why := rd.decode(typ, rd.body, start); !ok {
		g := rd.lostTo // a decoder that names the gap itself (invalid_event)
		switch {
		case g != nil:
		case why == whyUnknownType:
			// A later minor may add records; this tally cannot tell
			// whether one held dispatches.
			g = rd.malformed(start, fmt.Sprintf("record type %d, unknown to this tally (a newer minor version?): it may hold dispatches", typ))
		default:
			g = rd.malformed(start, why)
		}
		rd.skip(start, total, why, g)
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

// skip counts a record that is not used. Every record the reader skips
// breaks the format's rules (or is of a type it does not know), so each
// may have held dispatches: it is lost, with the gap g that lists it.
func (rd *reader) skip(start, n int64, why string, g *capture.Gap) {
	rd.records.Lose(g, why, 1, fmt.Sprintf("byte %d", start))
	rd.bytes.Lose(g, why, n, fmt.Sprintf("byte %d", start))
}

// cut counts the bytes of a record cut short; finish adds the
// truncated_input gap that accounts for them.
func (rd *reader) cut(start, n int64) {
	rd.cutAt, rd.cutBytes = start, n
}

func (rd *reader) malformed(start int64, why string) *capture.Gap {
	g := rd.undefined()
	g.Add(capture.Item{What: why, Where: fmt.Sprintf("byte %d", start)})
	return g
}

const whyUnknownType = "unknown record type"
