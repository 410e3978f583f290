package rocprof

import (
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

type repeatByte byte

func (c repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

// A 32 MiB kernel name in rocprofv3 JSON reaches encoding/json cut to
// capture.MaxName (format/internal/jsoncap): memory stays bounded, the
// cut is in the long_name note, and every byte is still accounted for.
func TestJSONHugeName(t *testing.T) {
	const n = 32 << 20
	at := strings.Index(miniJSON, `"formatted_kernel_name": "k"`) + len(`"formatted_kernel_name": "`)
	input := func() io.Reader {
		return io.MultiReader(strings.NewReader(miniJSON[:at]), io.LimitReader(repeatByte('k'), n), strings.NewReader(miniJSON[at+1:]))
	}
	readJSON(input(), "warm.json", nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var col capture.Collect
	c, err := readJSON(input(), "huge.json", &col)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("reading a %d-byte name allocated %d bytes, want under 8 MiB", n, got)
	}
	checkModel(t, c, col.Dispatches)
	if len(col.Dispatches) != 2 {
		t.Fatalf("%d dispatches, want 2 (as without the long name)", len(col.Dispatches))
	}
	name := c.Kernels[col.Dispatches[0].Kernel].Name
	if len(name) > capture.MaxName || !strings.HasPrefix(name, "kkkk") || !strings.HasSuffix(name, "…[truncated from "+strconv.Itoa(n)+" bytes]") {
		t.Errorf("kernel name of %d bytes ending %q, want at most %d ending with the marker", len(name), name[max(0, len(name)-40):], capture.MaxName)
	}
	g := c.Accounting.Find(capture.LongName)
	if g == nil || g.Count != 1 || !strings.HasPrefix(g.Items[0].Where, "byte ") {
		t.Fatalf("long_name gap %+v, want one cut with its byte offset", g)
	}
	if in := c.Accounting.InputFor("bytes"); in.Read != int64(len(miniJSON)-1+n) || in.Used != in.Read {
		t.Errorf("bytes %+v, want %d read and all used", in, len(miniJSON)-1+n)
	}
}
