package timeline

import "encoding/binary"

// The protobuf wire encoding, the four appends the Perfetto writer needs.
// They are written here on encoding/binary rather than taken from
// google.golang.org/protobuf's protowire because linking that module costs
// every tally command at start-up (issue 24): its internal/detrand package
// opens and reads tally's own executable in an init function. The tests
// still decode what this writes with protowire, an independent reader.

// fieldNum is a protobuf field number.
type fieldNum uint32

// wireType is a protobuf wire type (the low three bits of a tag).
type wireType uint8

const (
	varintType  wireType = 0
	fixed64Type wireType = 1
	bytesType   wireType = 2
)

func appendTag(b []byte, n fieldNum, t wireType) []byte {
	return binary.AppendUvarint(b, uint64(n)<<3|uint64(t))
}

func appendVarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

func appendFixed64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// appendBytes appends v length-delimited.
func appendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// appendStr appends s length-delimited.
func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
