package capture

import (
	"strings"
	"testing"
)

func TestOpZeroIsNoOp(t *testing.T) {
	c, d := validCapture()
	if d.Op != NoOp || c.Op(d.Op) != nil {
		t.Fatalf("a Dispatch literal: got op %d (%v), want NoOp and nil", d.Op, c.Op(d.Op))
	}
	id := c.AddOp(Op{Name: "aten::mm", Dims: "[[2,3],[3,4]]"})
	if id != 1 {
		t.Fatalf("first AddOp: got id %d, want 1 (0 is no op)", id)
	}
	if o := c.Op(id); o == nil || o.Name != "aten::mm" {
		t.Fatalf("Op(1): got %+v, want aten::mm", o)
	}
	for _, bad := range []OpID{-1, 2} {
		if c.Op(bad) != nil {
			t.Fatalf("Op(%d): got an op, want nil", bad)
		}
	}
}

func TestCheckDispatchOpRange(t *testing.T) {
	c, d := validCapture()
	id := c.AddOp(Op{Name: "aten::mm"})
	for _, tc := range []struct {
		op, outer OpID
		bad       string
	}{
		{NoOp, NoOp, ""},
		{id, NoOp, ""},
		{id, id, ""},
		{2, NoOp, "references op 2"},
		{-1, NoOp, "references op -1"},
		{id, 5, "references op 5"},
		{NoOp, id, "no innermost op"},
	} {
		dd := *d
		dd.Op, dd.OuterOp = tc.op, tc.outer
		err := c.CheckDispatch(&dd)
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("op %d outer %d: got %v, want no error", tc.op, tc.outer, err)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("op %d outer %d: got %v, want an error with %q", tc.op, tc.outer, err, tc.bad)
		}
	}
}

func TestCheckValidOps(t *testing.T) {
	c, _ := validCapture()
	c.AddOp(Op{Name: "aten::mm", Calls: 2, HostNS: 10})
	if err := c.CheckValid(); err != nil {
		t.Fatalf("a valid op table: got %v, want no error", err)
	}
	c.Ops = append(c.Ops, Op{Name: ""})
	if err := c.CheckValid(); err == nil || !strings.Contains(err.Error(), "op 2 has no name") {
		t.Fatalf("an unnamed op: got %v, want op 2 has no name", err)
	}
	c.Ops[1] = Op{Name: "x", Calls: -1}
	if err := c.CheckValid(); err == nil || !strings.Contains(err.Error(), "-1 calls") {
		t.Fatalf("negative calls: got %v, want an error", err)
	}
}
