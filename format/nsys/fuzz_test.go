package nsys

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/format"
)

// FuzzRead mutates small generated exports: whatever the bytes, the reader
// ends in a capture whose model holds, or in a format.Error naming the
// file — never a panic (format.ReadInput checks the model).
//
//	go test -run '^$' -fuzz FuzzRead -fuzztime 60s ./format/nsys/
func FuzzRead(f *testing.F) {
	for _, o := range []genOpts{{kernels: 3, nvtx: true}, {kernels: 2, graphs: 1, reversed: 1, nullName: 1}} {
		data, err := os.ReadFile(genDB(f, o))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("SQLite format 3\x00"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "fuzz.sqlite")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := format.ReadFile(p, Name, nil, nil)
		if err != nil {
			var fe *format.Error
			if !errors.As(err, &fe) && len(data) > 0 {
				t.Fatalf("not a format.Error: %v", err)
			}
			if errors.Is(err, format.ErrModel) {
				t.Fatal(err)
			}
			return
		}
		if c == nil {
			t.Fatal("no capture and no error")
		}
	})
}
