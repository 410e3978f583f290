package nsys

import (
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

func readOps(t *testing.T, path string) result {
	t.Helper()
	var col capture.Collect
	c, err := format.ReadFile(path, Name, &format.Options{Ops: true, ProgramBy: format.ByAnnotation}, &col)
	if err != nil {
		t.Fatal(err)
	}
	return result{c: c, disp: col.Dispatches}
}

// Generated: a step range per 100 launches around a per-op range around
// each launch, and two orphans without a launch. Each launched dispatch's
// op is its op range (instance number dropped), its outer op the step;
// the orphans have none. By the direct scans and through SQL alike, and
// the accounting is that of a read without ops.
func TestOpsNVTX(t *testing.T) {
	path := genDB(t, genOpts{kernels: 250, nvtx: true, orphans: 2})
	for _, viaSQL := range []bool{false, true} {
		sqlOnly = viaSQL
		r := readOps(t, path)
		plain := readPath(t, path)
		sqlOnly = false
		if gapText(r.c) != gapText(plain.c) || len(r.disp) != len(plain.disp) {
			t.Fatalf("SQL %v: attribution changes the read: got\n%s\nwant as without it:\n%s", viaSQL, gapText(r.c), gapText(plain.c))
		}
		ops, none := 0, 0
		for _, d := range r.disp {
			o, outer := r.c.Op(d.Op), r.c.Op(d.OuterOp)
			if o == nil {
				none++
				if d.Link != capture.LinkNoLaunch {
					t.Errorf("SQL %v: a launched dispatch of %s: got no op, want one", viaSQL, r.c.Kernels[d.Kernel].Name)
				}
				continue
			}
			ops++
			if o.Name != "aten::op" || outer == nil || outer.Name != "step" {
				t.Errorf("SQL %v: got op %q under %v, want aten::op under step", viaSQL, o.Name, outer)
			}
		}
		if ops != 250 || none != 2 {
			t.Errorf("SQL %v: got %d dispatches with an op, %d without; want 250, 2", viaSQL, ops, none)
		}
		var op, step *capture.Op
		for i := range r.c.Ops {
			switch r.c.Ops[i].Name {
			case "aten::op":
				op = &r.c.Ops[i]
			case "step":
				step = &r.c.Ops[i]
			}
		}
		// Each op range: 302 ns; each step: 99,501 ns (the last one too).
		if len(r.c.Ops) != 2 || op.Calls != 250 || op.HostNS != 250*302 || step.Calls != 3 || op.Kind != "nvtx" || r.c.OpSource == "" {
			t.Errorf("SQL %v: got ops %+v, source %q; want aten::op with 250 calls of 302 ns, step with 3", viaSQL, r.c.Ops, r.c.OpSource)
		}
	}
}

// The shared H100 export (PyTorch emit_nvtx): every launched dispatch is
// under an op range (nothing launched outside one), names without op_id.
func TestOpsNVTXSample(t *testing.T) {
	r := readOps(t, "testdata/h100_2gpu_1s.sqlite")
	n := map[string]int{}
	for _, d := range r.disp {
		if o := r.c.Op(d.Op); o != nil {
			n[o.Name]++
		} else if d.Link == capture.LinkLaunched {
			t.Fatalf("a launched %s: got no op, want one", r.c.Kernels[d.Kernel].Name)
		}
	}
	if n["aten::copy_"] != 568 || n["aten::mm"] != 264 {
		t.Errorf("got %d dispatches under aten::copy_, %d under aten::mm; want 568, 264", n["aten::copy_"], n["aten::mm"])
	}
}
