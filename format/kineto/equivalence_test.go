package kineto

import (
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/internal/testfile"
)

func decompress(t testing.TB, path string) []byte { t.Helper(); return testfile.Gunzip(t, path) }

// TestBufferSizes reads every sample with buffers so small that every
// token crosses a refill, and a dispatch log that spills every few
// records, and checks the result is identical to the default read. Large
// samples use moderately small sizes to keep the test fast.
func TestBufferSizes(t *testing.T) {
	for _, path := range samples(t) {
		data := decompress(t, path)
		sizes := []config{{bufSize: 16, logRecords: 2}, {bufSize: 37, logRecords: 7}, {bufSize: 1000, logRecords: 64}}
		if len(data) > 2<<20 {
			sizes = []config{{bufSize: 4093, logRecords: 1000}}
			if testing.Short() {
				continue
			}
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := readWith(t, string(data), nil, defaultConfig)
			for _, cfg := range sizes {
				cfg.tmpDir = t.TempDir()
				got := readWith(t, string(data), nil, cfg)
				if d := diffResults(want, got); d != "" {
					t.Fatalf("buffer %d, log %d: got a result that differs from the default read, want the same: %s", cfg.bufSize, cfg.logRecords, d)
				}
				if v, ok := field(got.c, "launch linkage", "device records spilled to a temporary file"); len(want.disp) > 2*cfg.logRecords && (!ok || v.(int64) == 0) {
					t.Errorf("log of %d records: got spilled %v, want a spill", cfg.logRecords, v)
				}
			}
		})
	}
}

// TestGzipInput reads a sample through format.ReadFile (gzip) and from the
// decompressed bytes, and expects the same result.
func TestGzipInput(t *testing.T) {
	path := "testdata/hta__amd_mi250_minitoy_train_rocm6.2.json.gz"
	s := readSample(t, path, nil)
	plain := readWith(t, string(decompress(t, path)), nil, defaultConfig)
	if d := diffResults(&result{c: s.c, disp: s.disp}, plain); d != "" {
		t.Fatalf("got a gzip read that differs from the plain bytes' read, want the same: %s", d)
	}
	// A plain file is sniffed and read the same way.
	dir := t.TempDir()
	p := fixture.Write(t, dir, "trace.json", decompress(t, path))
	c, err := format.ReadFile(p, "", &format.Options{}, nil)
	if err != nil {
		t.Fatalf("plain JSON: got error %v, want none", err)
	}
	if c.Source.Format != Name {
		t.Fatalf("plain JSON: got format %q, want %q", c.Source.Format, Name)
	}
}
