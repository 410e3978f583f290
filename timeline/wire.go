package timeline

import (
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

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

// appendStr appends s length-delimited. A protobuf string is UTF-8 (a
// decoder may refuse one that is not), and an input's names may not be:
// each invalid byte is written as U+FFFD, as the Chrome writer does.
func appendStr(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		var v strings.Builder
		for _, r := range s { // an invalid byte ranges as one RuneError
			v.WriteRune(r)
		}
		s = v.String()
	}
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
