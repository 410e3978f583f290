package capture

import (
	"strings"
	"testing"
)

// A collective dispatch passes the model check only with a normalised type
// and counts that are known or -1; Checked sends it to CheckDispatch
// (never the inlined fast path) and passes a good one on.
func TestCheckCollective(t *testing.T) {
	good := UnknownCollective()
	good.Type, good.Group, good.Seq, good.InElems, good.OutElems, good.ElemSize, good.GroupSize = "allreduce", "0", 3, 10, 10, 4, 2
	for _, tc := range []struct {
		name string
		edit func(*Collective)
		want string // "" passes
	}{
		{"good", func(*Collective) {}, ""},
		{"unknown type", func(c *Collective) { c.Type = "" }, ""},
		{"unnormalised type", func(c *Collective) { c.Type = "AllReduce" }, "normalised"},
		{"negative seq", func(c *Collective) { c.Seq = -2 }, "seq -2"},
		{"negative group size", func(c *Collective) { c.GroupSize = -5 }, "group size -5"},
		{"negative elem size", func(c *Collective) { c.ElemSize = -1 }, "element size"},
	} {
		c, d := validCapture()
		coll := good
		tc.edit(&coll)
		d.Collective = &coll
		var got Collect
		s := &Checked{Next: &got}
		s.Dispatch(c, d)
		switch {
		case tc.want == "" && (s.Err != nil || len(got.Dispatches) != 1):
			t.Errorf("%s: got error %v, %d passed; want none, 1", tc.name, s.Err, len(got.Dispatches))
		case tc.want != "" && (s.Err == nil || !strings.Contains(s.Err.Error(), tc.want)):
			t.Errorf("%s: got error %v, want one with %q", tc.name, s.Err, tc.want)
		}
	}
	c, d := validCapture()
	coll := good
	d.Collective, d.Device = &coll, Interval{}
	d.Aggregate = &Aggregate{Count: 2}
	if err := c.CheckDispatch(d); err == nil || !strings.Contains(err.Error(), "collective") {
		t.Errorf("aggregated collective: got %v, want an error naming the collective", err)
	}
}

// Bytes follows nccl-tests: the larger buffer times the element size;
// unknown when either is.
func TestCollectiveBytes(t *testing.T) {
	c := UnknownCollective()
	if _, ok := c.Bytes(); ok {
		t.Error("unknown sizes: got bytes, want unknown")
	}
	c.InElems, c.OutElems, c.ElemSize = 1024, 8192, 2 // allgather over 8 ranks, bf16
	if b, ok := c.Bytes(); !ok || b != 16384 {
		t.Errorf("got %d %v, want 16384 true", b, ok)
	}
	c.ElemSize = 0
	if _, ok := c.Bytes(); ok {
		t.Error("unknown element size: got bytes, want unknown")
	}
}
