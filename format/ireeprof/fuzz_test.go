package ireeprof

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	gen "github.com/tallyprof/tally/internal/gen/ireeprofgen"
)

// FuzzRead feeds arbitrary bytes to the bundle reader. Every input must end
// in a capture whose accounting holds, or in an error that names the file
// and a byte offset; no panic, and no dispatch with reversed times. Seeds:
// the samples, built bundles, and testdata/fuzz/FuzzRead.
func FuzzRead(f *testing.F) {
	for _, name := range samples {
		f.Add(sampleBytes(f, name))
	}
	two := good()
	two.nsPerTick = 3
	f.Add(build(good(), two))
	b := gen.New()
	b.Begin(1, "amdgpu")
	good().session(b)
	b.End(1, "amdgpu", 8)
	f.Add(append(b.Bytes(), 1, 2, 3))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := inputOf(data)
		bad := false
		sink := capture.SinkFunc(func(_ *capture.Capture, d *capture.Dispatch) {
			if !d.Device.Valid || d.Device.End < d.Device.Begin {
				bad = true
			}
		})
		chk := &capture.Checked{Next: sink}
		c, err := newReader(in, chk).read()
		if err != nil {
			if c != nil {
				t.Fatal("got both a capture and an error, want one")
			}
			if !strings.HasPrefix(err.Error(), "test.ireeprof: byte ") {
				t.Fatalf("got error without a position: %v, want it to start test.ireeprof: byte", err)
			}
			return
		}
		if msg := checkCapture(c); msg != "" {
			t.Fatalf("got %s, want a valid capture", msg)
		}
		if bad {
			t.Fatal("got a dispatch with invalid or reversed device times at the sink, want none")
		}
		if chk.Err != nil {
			t.Fatalf("got sink error %v, want none", chk.Err)
		}
		for _, in := range c.Accounting.Input {
			if in.Unit == "bytes" && in.Read != int64(len(data)) {
				t.Fatalf("got bytes read %d, want the file's %d", in.Read, len(data))
			}
		}
	})
}

// FuzzReadJSONL: iree-profile JSONL of any content ends in a valid capture
// or an error, never a panic, and no dispatch breaks the model.
func FuzzReadJSONL(f *testing.F) {
	for _, name := range samples {
		if b, err := os.ReadFile(goldenPath(name, "dispatch_events")); err == nil {
			f.Add(b)
			f.Add(append(append([]byte{}, b...), b...)) // every row twice
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		chk := &capture.Checked{Next: capture.Discard}
		c, err := ReadJSONL(&format.Input{Path: "test.jsonl", ReaderAt: bytes.NewReader(data), Size: int64(len(data))}, nil, chk)
		if err != nil {
			if c != nil {
				t.Fatal("got both a capture and an error, want one")
			}
			return
		}
		chk.Finish(c)
		if msg := checkCapture(c); msg != "" {
			t.Fatalf("got %s, want a valid capture", msg)
		}
		if chk.Err != nil {
			t.Fatalf("got sink error %v, want none", chk.Err)
		}
	})
}
