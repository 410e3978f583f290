package format

import (
	"errors"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// brokenReader builds a small valid capture, then breaks it as break_ says,
// standing for a reader with a bug.
func brokenReader(break_ func(c *capture.Capture, d *capture.Dispatch)) func(*Input, *Options, capture.Sink) (*capture.Capture, error) {
	return func(_ *Input, _ *Options, sink capture.Sink) (*capture.Capture, error) {
		c := &capture.Capture{}
		p := c.AddProgram(capture.Program{Name: "prefill", Instances: 1})
		q := c.AddProgram(capture.Program{Name: "decode", Instances: 1})
		c.AddKernel(capture.Kernel{Program: p, Name: "norm"})
		c.AddKernel(capture.Kernel{Program: q, Name: "wait"})
		c.AddQueue(capture.Queue{Name: "q0"})
		d := &capture.Dispatch{Program: p, Kernel: 0, Queue: 0, Device: capture.Interval{Begin: 10, End: 20, Valid: true}}
		break_(c, d)
		sink.Dispatch(c, d)
		return c, nil
	}
}

// readBroken reads a one-byte input with the reader name, registered (the
// first time) as brokenReader(break_).
func readBroken(name string, break_ func(c *capture.Capture, d *capture.Dispatch)) (*capture.Capture, *capture.Collect, error) {
	if _, ok := Lookup(name); !ok {
		Register(Format{Name: name, Sniff: func([]byte) Confidence { return No }, Read: brokenReader(break_)})
	}
	var got capture.Collect
	c, err := ReadInput(BytesInput("trace.bin", []byte("x")), name, nil, &got)
	return c, &got, err
}

func TestModelBrokenByReader(t *testing.T) {
	cases := []struct {
		name, want string
		break_     func(c *capture.Capture, d *capture.Dispatch)
	}{
		{"valid", "", func(*capture.Capture, *capture.Dispatch) {}},
		{"wrong-program", "belongs to program 1", func(_ *capture.Capture, d *capture.Dispatch) { d.Kernel = 1 }},
		{"kernel-out-of-range", "the capture has 2 kernels", func(_ *capture.Capture, d *capture.Dispatch) { d.Kernel = 7 }},
		{"queue-out-of-range", "the capture has 1 queues", func(_ *capture.Capture, d *capture.Dispatch) { d.Queue = 3 }},
		{"aggregate-with-times", "single-dispatch times", func(_ *capture.Capture, d *capture.Dispatch) {
			d.Aggregate = &capture.Aggregate{Count: 2}
		}},
		{"kernel-of-missing-program", "the capture has 2 programs", func(c *capture.Capture, _ *capture.Dispatch) {
			c.AddKernel(capture.Kernel{Program: 9, Name: "x"})
		}},
		{"gap-of-missing-program", "does not have", func(c *capture.Capture, _ *capture.Dispatch) {
			c.Accounting.Gap(capture.UnfinishedDispatch, "p77").Add(capture.Item{What: "x"})
		}},
		{"accounting", "read but", func(c *capture.Capture, _ *capture.Dispatch) {
			c.Accounting.InputFor("lines").Read = 3
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := "test-broken-" + tc.name
			c, got, err := readBroken(name, tc.break_)
			if tc.want == "" {
				if err != nil || len(got.Dispatches) != 1 {
					t.Fatalf("valid capture refused: got %v and %d dispatches, want no error and 1", err, len(got.Dispatches))
				}
				return
			}
			if err == nil || c != nil {
				t.Fatalf("a capture that breaks the model was returned: got %+v, want an error and no capture", c)
			}
			msg := err.Error()
			if !errors.Is(err, ErrModel) || !strings.Contains(msg, "the "+name+" reader broke tally's model") ||
				!strings.Contains(msg, tc.want) || !strings.HasPrefix(msg, "trace.bin: ") {
				t.Fatalf("got %v, want an ErrModel error on trace.bin naming the %s reader and %q", err, name, tc.want)
			}
			if len(got.Dispatches) != 0 && strings.Contains(tc.want, "kernels") {
				t.Fatalf("got %d dispatches at the sink, want none outside the tables", len(got.Dispatches))
			}
		})
	}
}

func TestErrorPositions(t *testing.T) {
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{LineError("a.log", 12, "remove the header", "bad version %d", 3), "a.log:12: bad version 3 (remove the header)"},
		{ByteError("b.bin", 0, "", "bad magic"), "b.bin: byte 0: bad magic"},
		{FileError("c", errors.New("x"), "check the disk", "cannot read"), "c: cannot read (check the disk)"},
	} {
		if tc.err.Error() != tc.want {
			t.Errorf("got %q, want %q", tc.err.Error(), tc.want)
		}
	}
	cause := errors.New("cause")
	if !errors.Is(FileError("c", cause, "", "m"), cause) {
		t.Error("FileError: cause not unwrapped, want errors.Is to find it")
	}
}

// A directory given with --format: an unknown name is said as such (not
// "no directory reader recognises it"), and a file reader's name says that
// it reads files.
func TestFormatFlagOnDirectory(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadPath(dir, "typo", nil, nil); err == nil || !strings.Contains(err.Error(), `unknown --format "typo"`) {
		t.Fatalf("typo: got %v, want an unknown --format \"typo\" error", err)
	}
	if _, err := ReadPath(dir, "test-magic", nil, nil); err == nil || !strings.Contains(err.Error(), "the test-magic reader reads files") {
		t.Fatalf("file reader on a directory: got %v, want an error saying the test-magic reader reads files", err)
	}
}

// Impossible times are the input's fault, not the reader's: whatever the
// reader, Checked keeps the dispatch out of the tables and ReadInput's
// capture carries an invalid_event gap scoped to its program.
func TestImpossibleTimesAreGaps(t *testing.T) {
	cases := []struct {
		name, want string
		break_     func(c *capture.Capture, d *capture.Dispatch)
	}{
		{"inverted-interval", "ends (5) before it begins (10)", func(_ *capture.Capture, d *capture.Dispatch) { d.Device.End = 5 }},
		{"inverted-launch", "launch interval ends (2) before it begins (3)", func(_ *capture.Capture, d *capture.Dispatch) {
			d.Launch = capture.Interval{Begin: 3, End: 2, Valid: true}
		}},
		{"negative-start", "negative time", func(c *capture.Capture, d *capture.Dispatch) { d.Device.Begin = -5 }},
		{"int64-end", "ceiling", func(c *capture.Capture, d *capture.Dispatch) {
			c.Clock = capture.Clock{Unit: "ns", Timed: true}
			d.Device.End = 1<<63 - 1
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := "test-impossible-" + tc.name
			c, got, err := readBroken(name, tc.break_)
			if err != nil {
				t.Fatalf("impossible time: got read error %v, want none (a gap instead)", err)
			}
			if len(got.Dispatches) != 0 {
				t.Fatalf("got %d dispatches in the tables, want 0", len(got.Dispatches))
			}
			g := c.Accounting.Gap(capture.InvalidEvent, "prefill")
			if g.Count != 1 || len(g.Items) != 1 || !strings.Contains(g.Items[0].What, tc.want) {
				t.Fatalf("invalid_event gap = %+v, want one item saying %q", g, tc.want)
			}
			if c.Accounting.Complete() {
				t.Fatal("capture reads complete, want it incomplete")
			}
		})
	}
}
