package kineto

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/format"
)

// A host op the trace gives no name (no "name" key, or an empty one) is
// an op that says so: the launches under it are never counted under the
// op around it, and the model, which refuses an op without a name, is
// valid (the fuzzer found a cpu_op without a name ending the read in an
// internal error).
func TestUnnamedHostOp(t *testing.T) {
	noName := `{"ph": "X", "cat": "cpu_op", "pid": 100, "tid": 100, "ts": 20, "dur": 20, "args": {"External id": 2}}`
	r := readOpts(t, trace([]string{
		hostEv("cpu_op", "aten::outer", 100, "0", "100", ""),
		noName,
		hostEv("user_annotation", "", 100, "50", "20", ""),
		call("cudaLaunchKernel", "1", "25", "1"),
		call("cudaLaunchKernel", "2", "55", "1"),
		call("cudaLaunchKernel", "3", "80", "1"),
		kernel("k1", "1", "100", "1"),
		kernel("k2", "2", "110", "1"),
		kernel("k3", "3", "120", "1"),
	}), &format.Options{Ops: true})
	if err := r.c.CheckValid(); err != nil {
		t.Fatalf("got an invalid model (%v), want a valid one", err)
	}
	var got []string
	for _, d := range r.disp {
		n := "-"
		if o := r.c.Op(d.Op); o != nil {
			n = o.Name
		}
		got = append(got, n)
	}
	want := "(cpu_op without a name)|(user_annotation without a name)|aten::outer"
	if strings.Join(got, "|") != want {
		t.Errorf("got ops %q, want %q", strings.Join(got, "|"), want)
	}
}

// A host op without usable times cannot be placed: the launch inside it
// counts under the op around it, and the op table's source says how many
// were not placed (it said nothing).
func TestUnplacedHostOpCounted(t *testing.T) {
	noDur := `{"ph": "X", "cat": "cpu_op", "name": "aten::inner", "pid": 100, "tid": 100, "ts": 20, "args": {"External id": 2}}`
	r := readOpts(t, trace([]string{
		hostEv("cpu_op", "aten::outer", 100, "0", "100", ""),
		noDur,
		call("cudaLaunchKernel", "1", "25", "1"),
		kernel("k1", "1", "100", "1"),
	}), &format.Options{Ops: true})
	if o := r.c.Op(r.disp[0].Op); o == nil || o.Name != "aten::outer" {
		t.Errorf("got op %+v, want aten::outer (the op around the unplaced one)", o)
	}
	if want := " 1 host op was not placed (no usable ts and dur"; !strings.Contains(r.c.OpSource, want) {
		t.Errorf("got op source %q, want it to contain %q", r.c.OpSource, want)
	}
}
