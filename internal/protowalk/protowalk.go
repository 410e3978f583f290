// Package protowalk walks the fields of a protobuf message in wire form,
// for tests that decode what tally writes (the Perfetto timeline) without
// its .proto: the timeline's own tests and the cross-output agreement
// tests of format/all.
package protowalk

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Fields calls f for each varint, fixed64 and length-delimited field of
// msg, in order: v is a varint's or fixed64's value, b a length-delimited
// field's bytes. Other wire types are passed over. The error names the
// field that is cut or malformed.
func Fields(msg []byte, f func(num protowire.Number, v uint64, b []byte)) error {
	for len(msg) > 0 {
		num, typ, l := protowire.ConsumeTag(msg)
		if l < 0 {
			return fmt.Errorf("bad tag: %v", protowire.ParseError(l))
		}
		msg = msg[l:]
		var v uint64
		var b []byte
		switch typ {
		case protowire.VarintType:
			v, l = protowire.ConsumeVarint(msg)
		case protowire.BytesType:
			b, l = protowire.ConsumeBytes(msg)
		case protowire.Fixed64Type:
			v, l = protowire.ConsumeFixed64(msg)
		default:
			l = protowire.ConsumeFieldValue(num, typ, msg)
		}
		if l < 0 {
			return fmt.Errorf("bad field %d of wire type %d: %v", num, typ, protowire.ParseError(l))
		}
		switch typ {
		case protowire.VarintType, protowire.BytesType, protowire.Fixed64Type:
			f(num, v, b)
		}
		msg = msg[l:]
	}
	return nil
}
