// Package ireeprof reads IREE HAL profile bundles (.ireeprof, magic "IRPF",
// format 1.x) and the JSONL that `iree-profile dispatch --dispatch_events`
// prints. Dispatch events become dispatches: the program is the command
// buffer, the queue the (device, queue) pair, the kernel the executable
// function; device ticks become ns through each session's own clock fit.
//
// The bundle is read in two passes over an io.ReaderAt: pass 1 indexes the
// metadata and clock samples (skipping dispatch payloads), pass 2 streams the
// dispatch events to the sink. Memory grows with metadata and kernels, never
// with dispatches. The spec is docs/formats/ireeprof.md.
package ireeprof

import (
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// Names of the two formats this package registers.
const (
	Name      = "ireeprof"
	JSONLName = "iree-jsonl"
)

func init() {
	format.Register(format.Format{
		Name:        Name,
		Description: "IREE HAL profile bundle (.ireeprof, magic IRPF), e.g. HRX_PROFILE_FILE with HRX_PROFILE_MODE=dispatch",
		Sniff:       Sniff,
		Read:        Read,
		Uses:        []format.Option{},
	})
	format.Register(format.Format{
		Name:        JSONLName,
		Description: "JSONL of `iree-profile --format=jsonl --dispatch_events dispatch FILE` (per-dispatch rows)",
		Sniff:       SniffJSONL,
		Read:        ReadJSONL,
		Uses:        []format.Option{},
	})
}

// Sniff recognises a bundle by its magic.
func Sniff(head []byte) format.Confidence {
	if len(head) >= 4 && u32(head, 0) == magic {
		return format.Certain
	}
	return format.No
}

// Read reads a bundle, streaming its dispatches to sink.
func Read(in *format.Input, _ *format.Options, sink capture.Sink) (*capture.Capture, error) {
	if err := in.RandomAccess("ireeprof"); err != nil {
		return nil, err
	}
	return newReader(in, sink).read()
}

func newReader(in *format.Input, sink capture.Sink) *reader {
	if sink == nil {
		sink = capture.Discard
	}
	c := &capture.Capture{}
	r := &reader{in: in, c: c, sink: sink, size: in.Size, w: newWindow(in.ReaderAt, in.Path, in.Size)}
	r.bytes = c.Accounting.InputFor("bytes")
	r.records = c.Accounting.InputFor("records")
	r.events = c.Accounting.InputFor("dispatch events")
	r.bytes.Read = in.Size
	return r
}

func (r *reader) read() (*capture.Capture, error) {
	if r.in.Gzip {
		// Bundles are read by offset; a compressed one would have to be
		// inflated in full first.
		return nil, errorf(r.in.Path, 0, "the bundle is gzip-compressed: decompress it first (gunzip -k FILE)")
	}
	h, err := readHeader(r.w)
	if err != nil {
		return nil, err
	}
	r.hdr = h
	if h.cut {
		r.headerCut()
		return r.c, nil
	}
	r.bytes.Used += int64(h.headerLen)
	r.end = r.size
	if h.finalised() && h.fileLength <= uint64(r.size) {
		r.end = int64(h.fileLength)
		if h.fileLength < uint64(h.headerLen) {
			return nil, errorf(r.in.Path, 16, "file_length %d is below header_length %d: the header is damaged", h.fileLength, h.headerLen)
		}
	}
	if err := r.pass1(); err != nil {
		return nil, err
	}
	r.computeFits()
	if err := r.pass2(); err != nil {
		return nil, err
	}
	r.finish()
	return r.c, nil
}
