package format

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// A directory reader's capture gets the same model check as a file
// reader's, and the same bug message, naming the directory.
func TestModelCheckedForDirectories(t *testing.T) {
	const name = "test-broken-dir"
	if _, ok := Lookup(name); !ok {
		Register(Format{Name: name, Sniff: func([]byte) Confidence { return No }, Read: brokenReader(func(_ *capture.Capture, d *capture.Dispatch) { d.Kernel = 7 })})
		RegisterDir(DirFormat{Name: name, SniffDir: func(string) Confidence { return No },
			ReadDir: func(path string, opts *Options, sink capture.Sink) (*capture.Capture, error) {
				return brokenReader(func(_ *capture.Capture, d *capture.Dispatch) { d.Kernel = 7 })(nil, opts, sink)
			}})
	}
	dir := t.TempDir()
	var got capture.Collect
	c, err := ReadPath(dir, name, nil, &got)
	want := dir + ": internal error: the " + name + " reader broke tally's model: "
	if err == nil || c != nil || !errors.Is(err, ErrModel) || !strings.HasPrefix(err.Error(), want) ||
		!strings.HasSuffix(err.Error(), "This is a bug in tally: please report it with the input directory") || !strings.Contains(err.Error(), "the capture has 2 kernels") {
		t.Fatalf("got %v, want %q… naming the fault and the directory", err, want)
	}
	if len(got.Dispatches) != 0 {
		t.Errorf("got %d dispatches past the check, want 0", len(got.Dispatches))
	}
	// The file reader's message names the file.
	_, err = ReadInput(BytesInput("trace.bin", []byte("x")), name, nil, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "trace.bin: internal error: the "+name) || !strings.HasSuffix(err.Error(), "please report it with the input file") {
		t.Errorf("got %v, want the file named", err)
	}
}

// ReadPath watches every read it makes: the opened file, and, with no
// opened input, a directory and a file that cannot be opened.
func TestReadPathWatch(t *testing.T) {
	dir := t.TempDir()
	file := fixture.Write(t, dir, "empty.log", nil)
	for _, c := range []struct {
		name, path string
		opened     bool
	}{
		{"file", file, true},
		{"directory", dir, false},
		{"missing file", filepath.Join(dir, "missing"), false},
	} {
		var started, stopped int
		var in *Input
		opts := &Options{Watch: func(path string, i *Input) func() {
			started++
			if path != c.path {
				t.Errorf("%s: watched %q, want %q", c.name, path, c.path)
			}
			in = i
			return func() { stopped++ }
		}}
		ReadPath(c.path, "", opts, nil)
		if started != 1 || stopped != 1 || (in != nil) != c.opened {
			t.Errorf("%s: got %d started, %d stopped, opened %v; want 1, 1, %v", c.name, started, stopped, in != nil, c.opened)
		}
	}
}
