package nsys

import (
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// FuzzRead mutates small generated exports: whatever the bytes, the reader
// ends in a capture whose model holds, or in a format.Error naming the
// file — never a panic (format.ReadInput checks the model).
//
//	go test -run '^$' -fuzz FuzzRead -fuzztime 60s ./format/nsys/
func FuzzRead(f *testing.F) {
	for _, o := range []genOpts{{kernels: 3, nvtx: true}, {kernels: 2, graphs: 1, reversed: 1, nullName: 1}} {
		data := fixture.Read(f, genDB(f, o))
		f.Add(data)
	}
	f.Add([]byte("SQLite format 3\x00"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fixture.Write(t, dir, "fuzz.sqlite", data)
		c, err := format.ReadFile(p, Name, nil, nil)
		if err != nil {
			var fe *format.Error
			if !errors.As(err, &fe) && len(data) > 0 {
				t.Fatalf("got %v, want a format.Error", err)
			}
			if errors.Is(err, format.ErrModel) {
				t.Fatal(err)
			}
			return
		}
		if c == nil {
			t.Fatal("got no capture and no error, want one")
		}
		// With host-op attribution: the model's checks hold too (format
		// checks every dispatch's op ids and the op table).
		if _, err := format.ReadFile(p, Name, &format.Options{Ops: true}, nil); err != nil && errors.Is(err, format.ErrModel) {
			t.Fatalf("with ops: got %v, want no ErrModel", err)
		}
	})
}

// TestMutatedExports is the fuzz property on fixed random mutations: the
// -fuzz instrumentation of the SQLite engine makes fuzzing slow (a few
// executions a second), so 300 deterministic byte mutations of a generated
// export run with every `go test`.
func TestMutatedExports(t *testing.T) {
	data := fixture.Read(t, genDB(t, genOpts{kernels: 3, nvtx: true, graphs: 1}))
	rng := rand.New(rand.NewSource(2))
	p := filepath.Join(t.TempDir(), "m.sqlite")
	for i := 0; i < 300; i++ {
		d := append([]byte(nil), data...)
		for range 1 + rng.Intn(8) {
			d[rng.Intn(len(d))] = byte(rng.Intn(256))
		}
		if i%10 == 0 {
			d = d[:rng.Intn(len(d))] // and some cut ones
		}
		if err := os.WriteFile(p, d, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := format.ReadFile(p, Name, nil, nil)
		if err != nil {
			var fe *format.Error
			if !errors.As(err, &fe) && len(d) > 0 {
				t.Fatalf("mutation %d: got %v, want a format.Error", i, err)
			}
			continue
		}
		if c == nil {
			t.Fatalf("mutation %d: got no capture and no error, want one", i)
		}
	}
}
