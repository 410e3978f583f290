// Package probefile holds the constants of tally's probe capture format
// (docs/probe-format.md), shared by the writer (package probe) and the
// reader (format/probereader) so the two cannot drift apart.
package probefile

import "encoding/binary"

// Magic opens every probe file.
const Magic = "TLYPROBE"

// Version of the format this package describes. Readers reject another
// major version and accept any minor one.
const (
	Major = 1
	Minor = 0
)

// HeaderLen is the length of a version 1.0 header. A header_length above it
// is a header extension a reader skips.
const HeaderLen = 32

// Families are the data families a session records (header field).
const (
	FamilyDispatchEvents uint32 = 1 << 0
	FamilySummaries      uint32 = 1 << 1
)

// RecordHeaderLen is a record's type byte and u32 body length.
const RecordHeaderLen = 5

// Record types.
const (
	TypeProgram    = 1
	TypeQueue      = 2
	TypeKernel     = 3
	TypeEvents     = 4
	TypeCheckpoint = 5
	TypeSummary    = 6
	TypeNote       = 7
	TypeEnd        = 8
)

// Fixed sizes of record bodies and their repeated entries.
const (
	EventLen          = 20 // u32 kernel, i64 begin, i64 end
	EventsFixed       = 8  // u32 queue, u32 count
	CheckpointFixed   = 32 // i64 time, u32 queue, u64 recorded, u64 dropped, u32 in_flight
	InFlightLen       = 12 // u32 kernel, i64 begin
	SummaryLen        = 40 // u32 window, i64 time, u32 kernel, u64 launches, u64 completed, i64 total_ns
	EndLen            = 48
	EndClosedBySignal = 1 << 0
)

// MaxBody bounds a record body; a longer length field is corrupt input,
// never an allocation.
const MaxBody = 64 << 20

// TypeName names a record type for inventories and errors.
func TypeName(t byte) string {
	switch t {
	case TypeProgram:
		return "program"
	case TypeQueue:
		return "queue"
	case TypeKernel:
		return "kernel"
	case TypeEvents:
		return "events"
	case TypeCheckpoint:
		return "checkpoint"
	case TypeSummary:
		return "summary"
	case TypeNote:
		return "note"
	case TypeEnd:
		return "end"
	}
	return "unknown"
}

// Header is the decoded file header.
type Header struct {
	Major, Minor uint16
	HeaderLen    uint32
	Families     uint32
	Window       uint32
	WallUnixNs   int64
}

// AppendHeader appends a version 1.0 header.
func AppendHeader(b []byte, families, window uint32, wallUnixNs int64) []byte {
	b = append(b, Magic...)
	b = binary.LittleEndian.AppendUint16(b, Major)
	b = binary.LittleEndian.AppendUint16(b, Minor)
	b = binary.LittleEndian.AppendUint32(b, HeaderLen)
	b = binary.LittleEndian.AppendUint32(b, families)
	b = binary.LittleEndian.AppendUint32(b, window)
	b = binary.LittleEndian.AppendUint64(b, uint64(wallUnixNs))
	return b
}

// ParseHeader decodes the fixed part of a header; b holds at least
// HeaderLen bytes and starts with Magic.
func ParseHeader(b []byte) Header {
	le := binary.LittleEndian
	return Header{
		Major:      le.Uint16(b[8:]),
		Minor:      le.Uint16(b[10:]),
		HeaderLen:  le.Uint32(b[12:]),
		Families:   le.Uint32(b[16:]),
		Window:     le.Uint32(b[20:]),
		WallUnixNs: int64(le.Uint64(b[24:])),
	}
}

// AppendRecord appends a record header for a body of n bytes.
func AppendRecord(b []byte, typ byte, n int) []byte {
	b = append(b, typ)
	return binary.LittleEndian.AppendUint32(b, uint32(n))
}

// AppendString appends a u32 length and the bytes of s.
func AppendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}
