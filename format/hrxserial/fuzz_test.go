package hrxserial

import (
	"bytes"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/gen/hrxgen"
)

// FuzzRead: any input ends in a capture or an error, never a panic; the
// accounting holds; dispatches never outnumber the lines that end them; a
// cut last line is never reported complete.
func FuzzRead(f *testing.F) {
	for _, opt := range []hrxgen.Options{
		{Seed: 1, Decode: 1},
		{Seed: 2, Decode: 1, End: hrxgen.EndFault},
		{Seed: 3, Decode: 1, Raw: true, End: hrxgen.EndCut},
		{Seed: 4, Decode: 2, FailRun: 1, Foreign: 7, UnnamedKernel: true, FilterStart: 5},
	} {
		var b bytes.Buffer
		if _, err := hrxgen.Write(&b, opt); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes()[:min(b.Len(), 3000)])
	}
	// A command cut after a stamp past int64 (TestStampPastInt64).
	f.Add([]byte("9223372036854775808 hrx debug serial: sync-begin phase=command-pre-dispatch list=main index=0 list_commands=1 ordinal=0 kind=Kernel kernel_id=1 bindings=3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var all capture.Collect
		chk := &capture.Checked{Next: &all}
		c, err := ReadStream(bytes.NewReader(data), "fuzz", nil, chk)
		if err != nil {
			return
		}
		if err := c.CheckValid(); err != nil {
			t.Fatal(err)
		}
		if chk.Err != nil {
			t.Fatal(chk.Err)
		}
		ends := bytes.Count(data, []byte("sync-end phase=command-post-dispatch"))
		if len(all.Dispatches) > ends {
			t.Fatalf("got %d dispatches from %d ending lines, want at most %d", len(all.Dispatches), ends, ends)
		}
		in := c.Accounting.InputFor("lines")
		want := int64(bytes.Count(data, []byte("\n")))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			want++
		}
		if in.Read > want {
			t.Fatalf("%d lines read from %d", in.Read, want)
		}
		if len(data) > 0 && data[len(data)-1] != '\n' && c.Accounting.Complete() && bytes.Contains(data, tracePrefix) {
			t.Fatal("got a trace cut mid-line reported complete, want it incomplete")
		}
		for _, g := range c.Accounting.Gaps {
			for _, it := range g.Items {
				if it.Time != nil && *it.Time < 0 {
					t.Fatalf("got %s item %q at time %d, want no negative time", g.Kind, it.What, *it.Time)
				}
			}
		}
		for _, d := range all.Dispatches {
			if int(d.Kernel) >= len(c.Kernels) || int(d.Program) >= len(c.Programs) {
				t.Fatalf("got dispatch of kernel %d, program %d past the tables (%d kernels, %d programs), want it within", d.Kernel, d.Program, len(c.Kernels), len(c.Programs))
			}
		}
	})
}
