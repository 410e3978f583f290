package inputs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// A reader whose engine a test unlinks (engineLinked): certain of
// "INPUTS-TEST-ENGINE", blind to anything else.
var (
	engineLinked atomic.Bool
	engineSniffs atomic.Int64
	engineReads  atomic.Int64
)

func init() {
	engineLinked.Store(true) // linked, the other tests never see it missing
	format.Register(format.Format{
		Name:   "inputs-test-engine",
		Engine: &format.Engine{Name: "test", Import: "example.com/engine", Linked: engineLinked.Load},
		Sniff: func(head []byte) format.Confidence {
			if bytes.HasPrefix(head, []byte("INPUTS-TEST-ENGINE")) {
				engineSniffs.Add(1)
				return format.Certain
			}
			return format.No
		},
		Read: func(*format.Input, *format.Options, capture.Sink) (*capture.Capture, error) {
			engineReads.Add(1)
			return nil, errors.New("read without its engine")
		},
	})
}

// Unlinked names the first input whose reader lacks its engine — a file
// given, one found in a directory, or any under --format — before
// anything is read; it looks at nothing when every engine is linked, and
// a file it sniffed is not sniffed again by Read.
func TestUnlinked(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	other := write("a.trace", "INPUTS-TEST-CERTAIN\n")
	engine := write("b.trace", "INPUTS-TEST-ENGINE\n")
	t.Cleanup(func() { engineLinked.Store(true) })

	engineLinked.Store(true)
	engineSniffs.Store(0)
	if err := Expand([]string{engine}, "").Unlinked(""); err != nil || engineSniffs.Load() != 0 {
		t.Fatalf("engine linked: got %v after %d sniffs, want nil after none", err, engineSniffs.Load())
	}

	engineLinked.Store(false)
	for _, c := range []struct {
		name   string
		args   []string
		forced string
		want   string // the path named, "" for none
	}{
		{"file", []string{other, engine}, "", engine},
		{"directory", []string{dir}, "", engine},
		{"forced", []string{other}, "inputs-test-engine", other},
		{"other reader", []string{other}, "", ""},
		{"forced other", []string{engine}, "inputs-test", ""},
		{"standard input", []string{"-"}, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Expand(c.args, c.forced).Unlinked(c.forced)
			var ne *format.NoEngineError
			switch {
			case c.want == "" && err != nil:
				t.Errorf("got %v, want nil", err)
			case c.want != "" && (!errors.As(err, &ne) || ne.Path != c.want || ne.Reader != "inputs-test-engine"):
				t.Errorf("got %v, want a *format.NoEngineError for %s", err, c.want)
			}
		})
	}

	// Read after Unlinked: the file is sniffed once, and its read says
	// what is missing without running the reader.
	engineSniffs.Store(0)
	engineReads.Store(0)
	e := Expand([]string{engine}, "")
	if err := e.Unlinked(""); err == nil {
		t.Fatal("got nil, want the missing engine")
	}
	run := e.Read(Options{})
	var ne *format.NoEngineError
	if err := run.Inputs[0].Err; !errors.As(err, &ne) {
		t.Errorf("read: got %v, want a *format.NoEngineError", err)
	}
	if got := engineSniffs.Load(); got != 1 {
		t.Errorf("got %d sniffs of the file, want 1", got)
	}
	if got := engineReads.Load(); got != 0 {
		t.Errorf("the reader ran %d times without its engine, want 0", got)
	}
}
