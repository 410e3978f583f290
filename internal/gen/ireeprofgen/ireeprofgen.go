// Package ireeprofgen writes IREE HAL profile bundles (format 1.6) for
// tests and benchmarks: a Bundle builder with full control over every
// header field (to make cut, stale, failed, multi-session or malformed
// files), typed-record encoders, and Generate for large synthetic bundles.
//
// It is written from the spec (docs/formats/ireeprof.md), independently of
// the reader, so a misreading in one is not silently shared by the other.
package ireeprofgen

import (
	"encoding/binary"
)

// ContentPrefix starts every content type.
const ContentPrefix = "application/vnd.iree.hal.profile."

// Record types.
const (
	SessionBegin = 1
	Chunk        = 2
	SessionEnd   = 3
)

// None is the "no ordinal" sentinel.
const None = 0xFFFFFFFF

// Clock flags.
const (
	ClockDeviceTick    = 1 << 0
	ClockHostCPU       = 1 << 1
	ClockTickUnaligned = 1 << 4
)

var le = binary.LittleEndian

// Bundle is a bundle under construction, in memory.
type Bundle struct {
	buf []byte
}

// New starts a bundle: the 24-byte header with file_length 0.
func New() *Bundle {
	b := &Bundle{buf: make([]byte, 24, 4096)}
	le.PutUint32(b.buf[0:], 0x46505249) // "IRPF"
	le.PutUint16(b.buf[4:], 1)
	le.PutUint16(b.buf[6:], 6)
	le.PutUint32(b.buf[8:], 24)
	return b
}

// Bytes returns the bundle as built so far.
func (b *Bundle) Bytes() []byte { return b.buf }

// Len is the bundle's current length.
func (b *Bundle) Len() int { return len(b.buf) }

// SetFileLength patches the header's file_length.
func (b *Bundle) SetFileLength(n uint64) { le.PutUint64(b.buf[16:], n) }

// Finalize patches file_length to the current length, as the writer does
// after each session end.
func (b *Bundle) Finalize() { b.SetFileLength(uint64(len(b.buf))) }

// Header is a record header's fields. Zero values are the writer's defaults
// except where noted.
type Header struct {
	Type       uint16
	SessionID  uint64
	StreamID   uint64
	Device     uint32 // set None explicitly for "none"
	Queue      uint32
	ChunkFlags uint64
	Dropped    uint64
	Status     uint32
	Flags      uint16
	// HeaderLength overrides the 104-byte header length (extension bytes
	// are zero); RecordLength overrides the computed record_length.
	HeaderLength uint32
	RecordLength uint64
}

// Record appends one record and returns its offset.
func (b *Bundle) Record(h Header, contentType, name string, payload []byte) int {
	off := len(b.buf)
	b.buf = AppendRecord(b.buf, h, contentType, name, payload)
	return off
}

// AppendRecord appends one encoded record to dst.
func AppendRecord(dst []byte, h Header, contentType, name string, payload []byte) []byte {
	hl := h.HeaderLength
	if hl == 0 {
		hl = 104
	}
	rl := uint64(hl) + uint64(len(contentType)) + uint64(len(name)) + uint64(len(payload))
	if h.RecordLength != 0 {
		rl = h.RecordLength
	}
	hdr := make([]byte, hl)
	le.PutUint64(hdr[0:], rl)
	le.PutUint64(hdr[8:], uint64(len(payload)))
	le.PutUint64(hdr[16:], h.SessionID)
	le.PutUint64(hdr[24:], h.StreamID)
	le.PutUint32(hdr[56:], hl)
	le.PutUint32(hdr[60:], uint32(len(contentType)))
	le.PutUint32(hdr[64:], uint32(len(name)))
	le.PutUint32(hdr[68:], h.Device)
	le.PutUint32(hdr[72:], h.Queue)
	// 76..79: the real writer leaves stack garbage here.
	copy(hdr[76:80], []byte{0x6f, 0x55, 0xa5, 0x7e})
	le.PutUint64(hdr[80:], h.ChunkFlags)
	le.PutUint64(hdr[88:], h.Dropped)
	le.PutUint32(hdr[96:], h.Status)
	le.PutUint16(hdr[100:], h.Type)
	le.PutUint16(hdr[102:], h.Flags)
	dst = append(dst, hdr...)
	dst = append(dst, contentType...)
	dst = append(dst, name...)
	return append(dst, payload...)
}

// Repeat appends again the record that starts at off (as Record and Chunk
// return it), as a producer or a copy that wrote one record twice, and
// returns the offset of the copy.
func (b *Bundle) Repeat(off int) int {
	end := off + int(le.Uint64(b.buf[off:]))
	at := len(b.buf)
	b.buf = append(b.buf, b.buf[off:end]...)
	return at
}

// Begin appends a SESSION_BEGIN.
func (b *Bundle) Begin(session uint64, producer string) int {
	return b.Record(Header{Type: SessionBegin, SessionID: session, Device: None, Queue: None}, ContentPrefix+"session", producer, nil)
}

// End appends a SESSION_END with status and finalises the file, as the
// writer does after a successful end.
func (b *Bundle) End(session uint64, producer string, status uint32) int {
	off := b.Record(Header{Type: SessionEnd, SessionID: session, Device: None, Queue: None, Status: status}, ContentPrefix+"session", producer, nil)
	b.Finalize()
	return off
}

// Chunk appends a chunk of content type suffix ct with the given typed
// records; h.Type is forced to Chunk.
func (b *Bundle) Chunk(h Header, ct, name string, records ...[]byte) int {
	h.Type = Chunk
	var payload []byte
	for _, r := range records {
		payload = append(payload, r...)
	}
	return b.Record(h, ContentPrefix+ct, name, payload)
}

// Meta is a metadata chunk header: no device or queue.
func Meta(session uint64) Header { return Header{SessionID: session, Device: None, Queue: None} }

// OnQueue is a chunk header for an event stream of (device, queue).
func OnQueue(session uint64, device, queue uint32) Header {
	return Header{SessionID: session, Device: device, Queue: queue, StreamID: uint64(device)<<32 | uint64(queue)}
}

// Typed records.

// field is one little-endian value at a byte offset of a typed record:
// 4 bytes, or 8 when wide.
type field struct {
	at   int
	v    uint64
	wide bool
}

func u32(at int, v uint32) field { return field{at: at, v: uint64(v)} }
func u64(at int, v uint64) field { return field{at: at, v: v, wide: true} }

// rec is an n-byte typed record: its length in its first 4 bytes, then
// the fields given; every other byte is zero.
func rec(n int, fs ...field) []byte {
	b := make([]byte, n)
	le.PutUint32(b, uint32(n))
	for _, f := range fs {
		if f.wide {
			le.PutUint64(b[f.at:], f.v)
		} else {
			le.PutUint32(b[f.at:], uint32(f.v))
		}
	}
	return b
}

// Device is a device record (32 bytes).
func Device(ordinal, queueCount uint32) []byte {
	return rec(32, u32(8, ordinal), u32(12, queueCount))
}

// Queue is a queue record (24 bytes).
func Queue(device, queue uint32, stream uint64) []byte {
	return rec(24, u32(4, device), u32(8, queue), u64(16, stream))
}

// Executable is an executable record (40 bytes).
func Executable(id uint64, functions uint32) []byte {
	return rec(40, u64(8, id), u32(16, functions))
}

// Function is an executable function (or export) record: 64 bytes + name.
func Function(executable uint64, ordinal uint32, name string) []byte {
	b := rec(64+len(name), u64(8, executable), u32(16, ordinal), u32(44, uint32(len(name))))
	copy(b[64:], name)
	return b
}

// CommandBuffer is a command buffer record (48 bytes).
func CommandBuffer(id uint64, device uint32) []byte {
	return rec(48, u64(8, id), u32(40, device))
}

// CommandOp is a command operation record (120 bytes) of type typ.
func CommandOp(typ uint32, cb uint64, index uint32, executable uint64, function uint32) []byte {
	return rec(120, u32(4, typ), u32(12, index), u64(16, cb), u64(32, executable), u32(40, function))
}

// Clock is a clock correlation record (72 bytes) with DEVICE_TICK and
// HOST_CPU_TIMESTAMP set.
func Clock(device uint32, sampleID, tick, hostNS uint64) []byte {
	return ClockFlags(ClockDeviceTick|ClockHostCPU, device, sampleID, tick, hostNS)
}

// ClockFlags is Clock with explicit flags.
func ClockFlags(flags, device uint32, sampleID, tick, hostNS uint64) []byte {
	return rec(72, u32(4, flags), u32(8, device), u64(16, sampleID), u64(24, tick), u64(32, hostNS))
}

// DispatchEvent is one dispatch event's fields.
type DispatchEvent struct {
	Flags         uint32
	EventID       uint64
	Submission    uint64
	CommandBuffer uint64
	Executable    uint64
	CommandIndex  uint32
	Function      uint32
	Start, End    uint64
}

// Dispatch encodes a dispatch event (88 bytes).
func Dispatch(e DispatchEvent) []byte { return AppendDispatch(nil, e) }

// AppendDispatch appends an encoded dispatch event to dst.
func AppendDispatch(dst []byte, e DispatchEvent) []byte {
	n := len(dst)
	dst = append(dst, make([]byte, 88)...)
	b := dst[n:]
	le.PutUint32(b[0:], 88)
	le.PutUint32(b[4:], e.Flags)
	le.PutUint64(b[8:], e.EventID)
	le.PutUint64(b[16:], e.Submission)
	le.PutUint64(b[24:], e.CommandBuffer)
	le.PutUint64(b[32:], e.Executable)
	le.PutUint32(b[40:], e.CommandIndex)
	le.PutUint32(b[44:], e.Function)
	for i := 0; i < 3; i++ {
		le.PutUint32(b[48+4*i:], 1)
		le.PutUint32(b[60+4*i:], 1)
	}
	le.PutUint64(b[72:], e.Start)
	le.PutUint64(b[80:], e.End)
	return dst
}

// QueueDeviceEvent is a queue device event record (96 bytes) of type typ.
func QueueDeviceEvent(typ uint32, device, queue uint32, start, end uint64) []byte {
	return rec(96, u32(4, typ), u32(64, device), u32(68, queue), u64(80, start), u64(88, end))
}

// HostExecution is a host execution event record (152 bytes).
func HostExecution(typ, status uint32, eventID, cb, executable uint64, device, queue, index, function uint32, start, end int64) []byte {
	return rec(152, u32(4, typ), u32(12, status), u64(16, eventID), u64(32, cb), u64(40, executable),
		u32(64, device), u32(68, queue), u32(72, index), u32(76, function), u64(104, uint64(start)), u64(112, uint64(end)))
}
