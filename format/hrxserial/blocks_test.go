package hrxserial

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
)

// The blocks a file is cut into, and how many workers scan them, change
// nothing: traces whose every line boundary, and every place inside a
// line, falls on a block's end in one block size or another — a command
// cut mid-record, one repeated across blocks, the end record, the lines
// after it, a cut last line — read the same as in one block, one line
// after the other the general way.
func TestBlockBoundaries(t *testing.T) {
	repeat := newKept().begin().command(0, 6).command(1, 6).command(1, 6).end().
		begin().command(0, 3).command(0, 6).command(1, 6).end()
	withEnd := newKept().begin().command(0, 6).command(1, 4)
	withEnd.b.WriteString("# tally kept trace end signal=SIGINT at=1900\n")
	withEnd.command(1, 6).end()
	// Command 1's first line ends in CR: the scan leaves it to the
	// parser, which opens command 1 with it; command 0's next line, which
	// the scan took for its continuation, must not continue command 1.
	cr := newKept().begin().command(0, 1).command(1, 1)
	crData := cr.bytes()
	crData = append(crData[:len(crData)-1], "\r\n"...)
	cr.b.Reset()
	cr.command(0, 2)
	crData = append(crData, cr.b.String()[bytes.IndexByte(cr.bytes(), '\n')+1:]...)
	for name, data := range map[string][]byte{
		"a first line with CR between": crData,
		"repeated commands":            repeat.bytes(),
		"end record inside":            withEnd.bytes(),
		"cut mid-line":                 repeat.bytes()[:len(repeat.bytes())-40],
		"CRLF":                         bytes.ReplaceAll(repeat.bytes(), []byte("\n"), []byte("\r\n")),
	} {
		read := func(o readOptions) (*capture.Capture, []capture.Dispatch) {
			var all capture.Collect
			c, err := readStream(bytes.NewReader(data), "blocks", catalog.New(), &all, o)
			if err != nil {
				t.Fatalf("%s, %+v: got error %v, want none", name, o, err)
			}
			return c, all.Dispatches
		}
		wc, wd := read(readOptions{})
		if len(wd) == 0 && (name == "repeated commands" || name == "end record inside") {
			t.Fatalf("%s: got no dispatch read, want some: the trace does not test much", name)
		}
		// Every size up to two lines, sparser above, and the whole file.
		for bs := 1; bs <= len(data)+1; bs = min(bs+1+bs/300*6, len(data)+1) {
			o := readOptions{fast: true, blockSize: bs, workers: 1 + bs%3}
			if c, d := read(o); !reflect.DeepEqual(c, wc) || !reflect.DeepEqual(d, wd) {
				t.Fatalf("%s in blocks of %d bytes (%d workers): got %d dispatches, gaps %s;\nwant %d, %s", name, bs, o.workers, len(d), gapList(c), len(wd), gapList(wc))
			}
			if bs == len(data)+1 {
				break
			}
		}
	}
}

// gapList names a capture's gaps and their items, for messages.
func gapList(c *capture.Capture) string {
	var b strings.Builder
	for _, g := range c.Accounting.Gaps {
		fmt.Fprintf(&b, "%s %d %v; ", g.Kind, g.Count, g.Items)
	}
	return b.String()
}

// A scan worker's detail caches stay bounded, and a detail read after a
// cache was emptied is parsed again, right.
func TestDetailCacheBounded(t *testing.T) {
	sc := newScanner(true)
	for i := 0; i < 3*maxDetails; i++ {
		line := fmt.Sprintf("x\n1 hrx debug serial: sync-begin phase=command-pre-dispatch list=main index=%d list_commands=9 ordinal=%d kind=Kernel kernel_id=7 bindings=3\n"+
			"2 hrx debug serial: begin phase=command-program main_commands=%d init_commands=0 transient_arena=0\n", i, i, i)
		_, _, toks, ps := sc.scan([]byte(line), nil, nil)
		if len(toks) != 2 || len(ps) != 2 || ps[0].d.index != uint64(i) || ps[1].d.main != uint64(i) {
			t.Fatalf("line %d: %d tokens, %d parsed (%+v); want 2, 2, index and main_commands %d", i, len(toks), len(ps), ps, i)
		}
		if sc.details.len() > maxDetails || sc.lines.len() > maxDetails {
			t.Fatalf("after %d details: %d and %d kept, want at most %d", i+1, sc.details.len(), sc.lines.len(), maxDetails)
		}
	}
}
