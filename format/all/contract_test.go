package all

import (
	"errors"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// Every registered reader, named with --format, ends bad input in a capture
// or a positioned *format.Error — never a panic, never a bare error, never
// a model break. (Without --format, such input is no reader's:
// TestNoCatchAllSniffer.)
func TestReaderContract(t *testing.T) {
	gz := fixture.Gzip(t, []byte(`{"traceEvents": [`))
	inputs := map[string][]byte{
		"binary":   {0, 1, 2, 3, 0xff, 0xfe, 'I', 'R', 'P', 'F'},
		"text":     []byte("hello\nworld\n"),
		"brace":    []byte("{"),
		"bracket":  []byte("[1, 2"),
		"magic":    []byte("IRPF\x01\x00\x00\x00\xff\xff\xff\xff"),
		"cut-gzip": gz[:len(gz)-6],
		"nul":      {0},
	}
	formats := format.Formats()
	if len(formats) < 4 {
		t.Fatalf("got only %d readers registered, want at least 4", len(formats))
	}
	for _, f := range formats {
		if f.Name == "" || f.Description == "" || f.Sniff == nil || f.Read == nil {
			t.Errorf("reader %q: got a missing name, description, Sniff or Read; want the registry's shape filled", f.Name)
		}
		// --format is the user's word: an empty file is that format's
		// empty capture, whatever its sniffer would say.
		c, err := format.ReadInput(format.BytesInput("in.empty", nil), f.Name, nil, nil)
		if err != nil || c.Source.Format != f.Name || c.Accounting.Find(capture.EmptyCapture) == nil {
			t.Errorf("%s/empty: got %v, %+v, want an empty capture of %s", f.Name, err, c, f.Name)
		}
		for name, data := range inputs {
			c, err := format.ReadInput(format.BytesInput("in."+name, data), f.Name, nil, nil)
			if err == nil {
				if c == nil {
					t.Errorf("%s/%s: got neither capture nor error, want one", f.Name, name)
				}
				continue
			}
			var fe *format.Error
			if !errors.As(err, &fe) || errors.Is(err, format.ErrModel) {
				t.Errorf("%s/%s: got %v, want a positioned *format.Error", f.Name, name, err)
			}
		}
	}
}
