package hrxserial

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/gen/hrxgen"
)

// A gzip kept trace cut short says the gzip stream ended early, not only
// that the file ends inside a line or without its end record; a whole gzip
// trace, and a plain one cut, say nothing of gzip.
func TestGzipCut(t *testing.T) {
	clean, _ := generate(t, hrxgen.Options{Seed: 3, Decode: 2})
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(clean)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	read := func(name string, data []byte) *capture.Capture {
		t.Helper()
		c, err := Read(format.BytesInput(name, data), &format.Options{Manifests: []string{manifest}}, nil)
		if err != nil {
			t.Fatalf("%s: got error %v, want none", name, err)
		}
		return c
	}
	const said = "the gzip stream ended early"
	gzipItem := func(c *capture.Capture) string {
		if g := c.Accounting.Find(capture.TruncatedInput); g != nil {
			for _, it := range g.Items {
				if strings.HasPrefix(it.What, said) {
					return it.What
				}
			}
		}
		return ""
	}
	for _, cut := range []struct {
		name string
		data []byte
	}{
		{"half", z.Bytes()[:z.Len()/2]},
		{"trailer", z.Bytes()[:z.Len()-4]}, // every line inflated, the stream's end missing
	} {
		c := read(cut.name+".kept.gz", cut.data)
		g := c.Accounting.Find(capture.TruncatedInput)
		if g == nil || !strings.HasPrefix(g.Summary, said) || !strings.HasPrefix(gzipItem(c), said+", after ") {
			t.Errorf("%s: got gap %+v, want truncated_input saying %q", cut.name, g, said)
		}
	}
	if c := read("whole.kept.gz", z.Bytes()); !c.Accounting.Complete() || gzipItem(c) != "" {
		t.Errorf("whole gzip: got complete %v, item %q; want complete, no gzip item", c.Accounting.Complete(), gzipItem(c))
	}
	c := read("cut.kept", clean[:len(clean)/2])
	if g := c.Accounting.Find(capture.TruncatedInput); g == nil || strings.Contains(g.Summary, "gzip") || gzipItem(c) != "" {
		t.Errorf("plain cut: got %+v, want truncated_input without gzip", g)
	}
}
