package probereader

import (
	"errors"
	"testing"

	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/probefile"
)

// FuzzRead: any input ends in a capture that passes the model checks
// (format.ReadInput runs them) or in a positioned error; bytes read are
// the input's length; a capture without an end record is never complete.
func FuzzRead(f *testing.F) {
	for _, name := range samples {
		f.Add(sample(f, name))
	}
	f.Add(newBuilder(probefile.FamilyDispatchEvents).defs().events(0, 10, 20, 30, 25).end(2, 2, 0).b)
	f.Add(newBuilder(probefile.FamilySummaries).defs().
		rec(probefile.TypeSummary, u32(1), u64(5), u32(0), u64(3), u64(3), u64(300)).end(3, 3, 0).b)
	f.Add(newBuilder(probefile.FamilyDispatchEvents).defs().
		rec(probefile.TypeCheckpoint, u64(5), u32(0), u64(0), u64(7), u32(1), u32(0), u64(4)).b)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, _, err := readBytes(t, data)
		if err != nil {
			var fe *format.Error
			if !errors.As(err, &fe) || errors.Is(err, format.ErrModel) {
				t.Fatalf("got %v, want a positioned input error (not ErrModel)", err)
			}
			return
		}
		if by := c.Accounting.InputFor("bytes"); by.Read != int64(len(data)) {
			t.Fatalf("got %d bytes read, want all %d", by.Read, len(data))
		}
		if len(data) == 0 {
			return // format.ReadInput's empty-file capture
		}
		closed := false
		for _, f := range c.Inventory[0].Fields {
			if f.Key == "closed" {
				closed = f.Value == true
			}
		}
		if c.Accounting.Complete() && !closed {
			t.Fatal("a capture without an end record: got complete, want incomplete")
		}
	})
}
