package timeline

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/tallyprof/tally/capture"
)

// A kernel name that is not UTF-8 is drawn under the same name in both
// formats, each invalid byte as U+FFFD: the Perfetto file's strings stay
// UTF-8, as protobuf requires.
func TestNamesAreUTF8(t *testing.T) {
	const name, want = "bad\xff\xfeutf8", "bad\ufffd\ufffdutf8"
	for _, f := range []Format{Perfetto, Chrome} {
		t.Run(f.String(), func(t *testing.T) {
			var buf bytes.Buffer
			w := New(&buf, f)
			c := &capture.Capture{Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true, Description: "ns, monotonic"}}
			p := c.AddProgram(capture.Program{Name: "step", Instances: 1})
			q := c.AddQueue(capture.Queue{Name: "stream\x80 7", Device: "GPU 0"})
			k := c.AddKernel(capture.Kernel{Program: p, Name: name, Resolved: true, Category: "kernel"})
			in := w.Sink("rank-0.json")
			in.Dispatch(c, &capture.Dispatch{Program: p, Queue: q, Kernel: k, Index: -1, Ordinal: -1, Device: capture.Interval{Begin: 10, End: 20, Valid: true}})
			in.Finish(c)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if f == Perfetto && bytes.Contains(buf.Bytes(), []byte(name)) {
				t.Errorf("the file holds the name's invalid bytes, want %q", want)
			}
			d := decode(t, f, buf.Bytes())
			if len(d.slices) != 1 || d.slices[0].name != want {
				t.Fatalf("slices %+v, want one named %q", d.slices, want)
			}
			for _, tr := range d.tracks {
				if !utf8.ValidString(tr) {
					t.Errorf("got track name %q, want valid UTF-8", tr)
				}
			}
		})
	}
}
