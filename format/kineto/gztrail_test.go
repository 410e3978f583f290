package kineto

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

func gz(t *testing.T, s string) []byte { return fixture.Gzip(t, []byte(s)) }

func readGz(t *testing.T, data []byte) *capture.Capture {
	t.Helper()
	c, err := Read(format.BytesInput("t.json.gz", data), nil, nil)
	if err != nil {
		t.Fatalf("read: got error %v, want none", err)
	}
	return c
}

// Bytes after the end of a complete gzip stream (padding, an appended
// file) are skipped input with their position, not a cut JSON, and are
// counted in their own unit.
func TestGzipTrailingGarbage(t *testing.T) {
	doc := trace([]string{call("cudaLaunchKernel", "1", "0", "1"), kernel("k", "1", "1", "1")})
	z := gz(t, doc)
	for _, junk := range []string{"\x00\x00\x00", strings.Repeat("\x00", 512), "garbage after the stream"} {
		c := readGz(t, append(append([]byte(nil), z...), junk...))
		if g := gap(c, capture.TruncatedInput); g != nil {
			t.Errorf("%d junk bytes: got a truncated_input gap, want none: %s", len(junk), g.Summary)
		}
		g := mustGap(t, c, capture.SkippedInput)
		if !strings.Contains(g.Summary, "after its gzip stream ends") || fig(t, g, "bytes") != int64(len(junk)) {
			t.Errorf("%d junk bytes: got gap %+v, want it to say \"after its gzip stream ends\" and count %d bytes", len(junk), g, len(junk))
		}
		cb := c.Accounting.InputFor("compressed bytes")
		if cb.Read != int64(len(z)+len(junk)) || cb.Used != int64(len(z)) || cb.Read != cb.Used+cb.SkippedTotal() {
			t.Errorf("%d junk bytes: got compressed bytes %+v, want %d read, %d used, the rest skipped", len(junk), cb, len(z)+len(junk), len(z))
		} else if s := cb.Skipped[0]; s.First != "compressed byte "+itoa(int64(len(z))) {
			t.Errorf("got first skipped %q, want %q", s.First, "compressed byte "+itoa(int64(len(z))))
		}
		if by := c.Accounting.InputFor("bytes"); by.Read != int64(len(doc)) || by.Used != by.Read {
			t.Errorf("got bytes %+v, want %d read, all used", by, len(doc))
		}
	}
	// The negative arms: a clean file, and two gzip members (as gzip
	// writes for concatenated files), read whole with no gap.
	for name, data := range map[string][]byte{
		"clean":   z,
		"members": append(gz(t, doc[:40]), gz(t, doc[40:])...),
	} {
		c := readGz(t, data)
		if !c.Accounting.Complete() {
			t.Errorf("%s: got an incomplete capture, want complete: %s", name, gapText(c))
		}
		for _, in := range c.Accounting.Input {
			if in.Unit == "compressed bytes" {
				t.Errorf("%s: got compressed bytes counted (%+v), want none", name, in)
			}
		}
		if by := c.Accounting.InputFor("bytes"); by.Read != int64(len(doc)) {
			t.Errorf("%s: got bytes %+v, want %d read", name, by, len(doc))
		}
	}
	// A JSON cut at the end of its gzip stream and followed by junk is
	// both: cut, and the junk counted.
	c := readGz(t, append(gz(t, doc[:len(doc)-10]), "junk"...))
	mustGap(t, c, capture.TruncatedInput)
	if cb := c.Accounting.InputFor("compressed bytes"); cb.SkippedTotal() != 4 {
		t.Errorf("cut and junk: got compressed bytes %+v, want 4 skipped", cb)
	}
}
