package npuprof

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// An engine log gzipped and cut short is read up to the cut and says the
// gzip stream ended early (it failed with "unexpected EOF" before); the
// whole gzip log says nothing of the kind.
func TestGzipCut(t *testing.T) {
	one := fixture.Read(t, "testdata/stall-unindented.log")
	z := bytes.NewBuffer(fixture.Gzip(t, bytes.Repeat(one, 50)))
	const said = "the gzip stream ended early"
	for _, c := range []struct {
		name string
		data []byte
		cut  bool
	}{{"whole.log.gz", z.Bytes(), false}, {"half.log.gz", z.Bytes()[:z.Len()/2], true}, {"trailer.log.gz", z.Bytes()[:z.Len()-4], true}} {
		capt, err := Read(format.BytesInput(c.name, c.data), &format.Options{}, nil)
		if err != nil {
			t.Fatalf("%s: got %v, want the log read up to the cut", c.name, err)
		}
		g := capt.Accounting.Find(capture.TruncatedInput)
		got := g != nil && strings.HasPrefix(g.Summary, said) && strings.HasPrefix(g.Items[len(g.Items)-1].What, said+", after ")
		if got != c.cut {
			t.Errorf("%s: got gap %+v, want %q said: %v", c.name, g, said, c.cut)
		}
	}
}
