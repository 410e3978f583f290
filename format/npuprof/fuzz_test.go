package npuprof

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// FuzzRead: any input ends in a capture or a positioned error, never a
// panic; the accounting holds; every record is an aggregate of a kernel of
// its own program; records never outnumber the lines that carry them.
func FuzzRead(f *testing.F) {
	f.Add([]byte((&engine{}).layers(-1, 3).window(100, 0).window(30, 70).layers(0, 0).String()))
	f.Add([]byte("# tally kept trace v1 clock=monotonic unit=ns\n1 [prof] npu_gemm n=50 pack=0.0 quant+launch=0.2 wait=3.8 readback=0.0 ms (N=2048)\n2 [prof] npu_gemm n=100 pack=0.0 quant+launch=0.1 wait=4.0 readback=0.0 ms (N=2048)\n3 [prof] npu_gemm n=50 pack=0.0 quant+launch=0.2 wait=3.8 readback=0.0 ms (N=2048)\n"))
	f.Add([]byte("  [L] -1 0.1 0.2\n  [mla] L3 attn_absmax=1 mlp_absmax=2 x_absmax=3\n  [G] l=2 q 0.1 0.2\n  [debug] hidden pos 0 mean=1 absmax=2 -> /tmp/h\n[prof] pre D 128 4 0.30 0.21 3.806 0.011 4.3"))
	f.Add([]byte("# tally kept trace v1 clock=monotonic unit=ns end=1 pid=1 cmd=\"e end=1\"\n1 [prof] pre D 128 60 0.30 0.21 3.806 0.011 4.328\n# tally kept trace end signal=SIGINT forwarded=SIGINT at=5\n2   [L] 0 1 2\n# tally kept trace end exit=x\n"))
	f.Add([]byte("[prof] dec O 1 100 0.05 0.10 1.200 0.020 9.382\n[prof] npu_gemm n=999999999999999 pack=999999999.9 quant+launch=1 wait=1 readback=1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var all capture.Collect
		c, err := ReadStream(bytes.NewReader(data), "fuzz", &all)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("got error %v, want it positioned (\"fuzz:…\")", err)
			}
			return
		}
		if err := c.CheckValid(); err != nil {
			t.Fatal(err)
		}
		if len(all.Dispatches) > bytes.Count(data, []byte("[prof] ")) {
			t.Fatalf("got %d records, want at most the %d [prof] lines", len(all.Dispatches), bytes.Count(data, []byte("[prof] ")))
		}
		for _, d := range all.Dispatches {
			if int(d.Kernel) >= len(c.Kernels) || c.Kernels[d.Kernel].Program != d.Program || int(d.Program) >= len(c.Programs) {
				t.Fatalf("got record of kernel %d, program %d, want a kernel of its own program within the tables", d.Kernel, d.Program)
			}
			if d.Aggregate == nil || d.Aggregate.Count <= 0 || d.Aggregate.Device < 0 || d.Aggregate.Launch < 0 {
				t.Fatalf("got aggregate %+v, want one with count > 0 and no negative time", d.Aggregate)
			}
		}
		if len(data) > 0 && data[len(data)-1] != '\n' && c.Accounting.InputFor("lines").Read > 0 {
			if in := c.Accounting.InputFor("lines"); in.Used == in.Read {
				t.Fatal("got a cut last line used, want it not used")
			}
		}
	})
}
