package timeline

import (
	"bytes"
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestWireMatchesProtowire checks the hand-written appends byte for byte
// against the protobuf module's, at the varint boundaries.
func TestWireMatchesProtowire(t *testing.T) {
	values := []uint64{0, 1, 127, 128, 16383, 16384, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, math.MaxUint64}
	for _, v := range values {
		if got, want := appendVarint(nil, v), protowire.AppendVarint(nil, v); !bytes.Equal(got, want) {
			t.Errorf("appendVarint(%d) = %x, want %x", v, got, want)
		}
		if got, want := appendFixed64(nil, v), protowire.AppendFixed64(nil, v); !bytes.Equal(got, want) {
			t.Errorf("appendFixed64(%d) = %x, want %x", v, got, want)
		}
	}
	for _, n := range []fieldNum{1, 15, 16, 47, 60, 2047, 2048, fieldNum(protowire.MaxValidNumber)} {
		for _, typ := range []wireType{varintType, fixed64Type, bytesType} {
			got := appendTag(nil, n, typ)
			want := protowire.AppendTag(nil, protowire.Number(n), protowire.Type(typ))
			if !bytes.Equal(got, want) {
				t.Errorf("appendTag(%d, %d) = %x, want %x", n, typ, got, want)
			}
		}
	}
	for _, s := range []string{"", "a", string(make([]byte, 200))} {
		if got, want := appendStr(nil, s), protowire.AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendStr(%d bytes) = %x, want %x", len(s), got, want)
		}
		if got, want := appendBytes(nil, []byte(s)), protowire.AppendBytes(nil, []byte(s)); !bytes.Equal(got, want) {
			t.Errorf("appendBytes(%d bytes) = %x, want %x", len(s), got, want)
		}
	}
}
