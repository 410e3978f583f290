package all

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// Cut everywhere: every reader's promise base, each of its files in turn
// cut at every byte offset (a sample for the bigger files, always with
// every line boundary and its neighbours). A prefix is a positioned error
// or a capture that says it is not whole: a gap, or — for a format with no
// end marker cut exactly at a line's end — the no_end_marker note. Its
// dispatches are base's, never one read from half a record.

// cutEvery is the size up to which a file is cut at every offset; past it,
// at every line boundary ±1, at every 4 KiB multiple ±1 (a database page's
// edge) and at cutSamples offsets spread over the file. -short cuts less.
const (
	cutEvery   = 2 << 10
	cutSamples = 300
)

// cutOffsets are the lengths file data is cut to (0 included, len(data)
// not), in order.
func cutOffsets(data []byte, short bool) []int {
	every, samples := cutEvery, cutSamples
	if short {
		every, samples = cutEvery/4, cutSamples/4
	}
	if len(data) <= every {
		offs := make([]int, len(data))
		for i := range offs {
			offs[i] = i
		}
		return offs
	}
	set := map[int]bool{0: true}
	near := func(n int) {
		for _, m := range []int{n - 1, n, n + 1} {
			if m >= 0 && m < len(data) {
				set[m] = true
			}
		}
	}
	for i, b := range data {
		if b == '\n' {
			near(i + 1)
		}
	}
	for n := 4 << 10; n < len(data); n += 4 << 10 {
		near(n)
	}
	for i := range samples {
		set[i*len(data)/samples] = true
	}
	offs := make([]int, 0, len(set))
	for n := range set {
		offs = append(offs, n)
	}
	slices.Sort(offs)
	return offs
}

// atLineEnd says whether a cut to n bytes falls at a line's end: what a
// line format with no end marker cannot tell from a whole file.
func atLineEnd(data []byte, n int) bool { return n > 0 && data[n-1] == '\n' }

func TestAdversaryCutEverywhere(t *testing.T) {
	eachFixture(t, func(t *testing.T, reader string, fx promiseFixture) {
		t.Parallel()
		path, base := advBase(t, reader, fx)
		for _, file := range advFiles(t, path) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(filepath.Dir(path), file)
			failures := 0
			for _, n := range cutOffsets(data, testing.Short()) {
				if err := os.WriteFile(file, data[:n], 0o644); err != nil {
					t.Fatal(err)
				}
				if msg := checkCut(reader, fx, base, path, data, n); msg != "" {
					t.Errorf("%s cut to %d of %d bytes: %s", rel, n, len(data), msg)
					if failures++; failures == 5 {
						t.Errorf("%s: more cuts fail; stopping at five", rel)
						break
					}
				}
			}
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// checkCut reads path (the file, or the directory holding it) with its
// file cut to n bytes of data: "" when the read keeps the promise, else
// what is wrong.
func checkCut(reader string, fx promiseFixture, base advRead, path string, data []byte, n int) string {
	r := advReadPath(path, fx.opts)
	if r.err != nil {
		var fe *format.Error
		switch {
		case !errors.As(r.err, &fe):
			return "error " + r.err.Error() + ", want a positioned *format.Error"
		case fe.Path == "":
			return "error " + r.err.Error() + " names no file, want one naming it"
		case fe.Line <= 0 && fe.Offset < 0 && !errors.Is(r.err, format.ErrUnknownFormat):
			// A file no reader recognises is wrong as a whole; any other
			// error says where.
			return "error " + r.err.Error() + " has no line or byte offset, want one"
		}
		return ""
	}
	if k, ok := subset(r.seen, base.seen); !ok {
		return "dispatch " + k.String() + " is none of base's (read from half a record?), want only base's; gaps " + gapKinds(r.c)
	}
	inherent := fx.inherent
	if r.c.Source.Format != reader {
		inherent = nil // read by another reader: its gaps all count
	}
	if !complete(r.c, inherent) {
		return ""
	}
	if len(bytes.TrimSpace(data[n:])) == 0 && tablesSig(r.tb) == tablesSig(base.tb) {
		return "" // only the trailing white space cut: the input is whole
	}
	if tablesSig(r.tb) == tablesSig(base.tb) && newNote(r.c, base.c) {
		// A file that names or describes (a program marker) cut: the
		// tables lost nothing, and a note base lacks says what was cut.
		return ""
	}
	if fx.lastFieldNote != "" && inLastField(data, n) && r.c.Accounting.CountOf(fx.lastFieldNote) > 0 {
		// The format's nature: a last line without its line ending is
		// whole as its writer leaves it, so a cut inside its last field
		// (its value then short) cannot be told from it; the note says so.
		return ""
	}
	if !fx.endMarker && r.c.Source.Format == reader && atLineEnd(data, n) && r.c.Accounting.CountOf(capture.NoEndMarker) > 0 {
		// A line format with no end marker cut at a line's end reads as
		// a whole file would: the note is all it can say.
		return ""
	}
	return "read as " + r.c.Source.Format + ", complete (gaps: " + gapKinds(r.c) + "), " +
		tablesSig(r.tb) + "; want a gap"
}

// inLastField says whether a cut of comma-separated lines to n bytes falls
// inside a line's last field, leaving some of its value.
func inLastField(data []byte, n int) bool {
	if n == 0 || data[n-1] == '\n' || data[n-1] == ',' {
		return false
	}
	rest := data[n:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return !bytes.ContainsRune(rest, ',')
}

// newNote says whether c carries a note that base does not.
func newNote(c, base *capture.Capture) bool {
	for _, g := range c.Accounting.Gaps {
		if g.Note && g.Count > 0 && base.Accounting.CountOf(g.Kind) == 0 {
			return true
		}
	}
	return false
}
