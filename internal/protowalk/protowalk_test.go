package protowalk

import (
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

func TestFields(t *testing.T) {
	var msg []byte
	msg = protowire.AppendTag(msg, 1, protowire.VarintType)
	msg = protowire.AppendVarint(msg, 300)
	msg = protowire.AppendTag(msg, 2, protowire.BytesType)
	msg = protowire.AppendString(msg, "name")
	msg = protowire.AppendTag(msg, 3, protowire.Fixed32Type)
	msg = protowire.AppendFixed32(msg, 7) // passed over
	msg = protowire.AppendTag(msg, 4, protowire.Fixed64Type)
	msg = protowire.AppendFixed64(msg, 1<<40)
	var got []string
	err := Fields(msg, func(num protowire.Number, v uint64, b []byte) {
		got = append(got, strings.Join([]string{strconv.Itoa(int(num)), strconv.FormatUint(v, 10), string(b)}, ":"))
	})
	want := "1:300: 2:0:name 4:1099511627776:"
	if err != nil || strings.Join(got, " ") != want {
		t.Fatalf("got %q, %v; want %q, nil", strings.Join(got, " "), err, want)
	}
	// Cut inside the string: an error naming field 2, and the fields
	// before it seen.
	got = nil
	err = Fields(msg[:5], func(num protowire.Number, v uint64, b []byte) { got = append(got, strconv.Itoa(int(num))) })
	if err == nil || !strings.Contains(err.Error(), "field 2") || strings.Join(got, " ") != "1" {
		t.Fatalf("cut message: got fields %v, error %v; want field 1 seen and an error naming field 2", got, err)
	}
}
