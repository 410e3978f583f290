package inputs

import (
	"bytes"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// A test reader whose sniffer counts the heads it is shown: certain of
// "INPUTS-TEST-CERTAIN", likely of "INPUTS-TEST-LIKELY", blind to
// anything else (so the other tests never meet it).
var testSniffs atomic.Int64

func init() {
	format.Register(format.Format{
		Name:        "inputs-test",
		Description: "inputs' test reader",
		Sniff: func(head []byte) format.Confidence {
			switch {
			case bytes.HasPrefix(head, []byte("INPUTS-TEST-CERTAIN")):
				testSniffs.Add(1)
				return format.Certain
			case bytes.HasPrefix(head, []byte("INPUTS-TEST-LIKELY")):
				testSniffs.Add(1)
				return format.Likely
			}
			return format.No
		},
		Read: func(in *format.Input, _ *format.Options, sink capture.Sink) (*capture.Capture, error) {
			c := &capture.Capture{}
			p := c.AddProgram(capture.Program{Name: "p"})
			q := c.AddQueue(capture.Queue{Name: "q"})
			k := c.AddKernel(capture.Kernel{Program: p, Name: "k"})
			sink.Dispatch(c, &capture.Dispatch{Program: p, Queue: q, Kernel: k, Index: -1, Ordinal: -1,
				Device: capture.Interval{Begin: 10, End: 20, Valid: true}, Link: capture.LinkNoLaunch})
			return c, nil
		},
	})
}

// A walked file a reader is certain of is read by that reader without
// its head sniffed again; one it is only likely of is sniffed again when
// read (a likely detection may be second-guessed: format.ReadInput).
func TestReadCertainNotSniffedTwice(t *testing.T) {
	for _, tc := range []struct {
		magic     string
		wantSniff int64 // per file: at the walk, and at the read when not certain
	}{{"INPUTS-TEST-CERTAIN", 1}, {"INPUTS-TEST-LIKELY", 2}} {
		dir := t.TempDir()
		for _, n := range []string{"a.trace", "b.trace", "c.trace"} {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(tc.magic+"\n"+n+"\n"), 0o644); err != nil { // not copies: each is read
				t.Fatal(err)
			}
		}
		testSniffs.Store(0)
		run := Expand([]string{dir}, "").Read(Options{Workers: 2})
		if len(run.Inputs) != 3 {
			t.Fatalf("%s: %d inputs, want 3", tc.magic, len(run.Inputs))
		}
		for _, in := range run.Inputs {
			if in.Err != nil || in.Capture == nil || in.Capture.Source.Format != "inputs-test" {
				t.Fatalf("%s: input %s: err %v, capture %v; want read by inputs-test", tc.magic, in.Path, in.Err, in.Capture)
			}
		}
		if got, want := testSniffs.Load(), 3*tc.wantSniff; got != want {
			t.Errorf("%s: heads sniffed %d times, want %d", tc.magic, got, want)
		}
	}
}
