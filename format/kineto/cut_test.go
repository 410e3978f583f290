package kineto

import (
	"bytes"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// TestCuts cuts every sample at many offsets — inside strings, inside
// numbers, between tokens — and checks that no cut file is ever reported
// complete, that nothing panics, and that the events before the cut are
// still reported. The number of cuts per sample shrinks with its size to
// keep the test at a few seconds.
func TestCuts(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, path := range samples(t) {
		data := decompress(t, path)
		full := readWith(t, string(data), nil, defaultConfig)
		last := bytes.LastIndexByte(data, '}') // a cut before it leaves the object open
		n := max(2, min(120, (60<<20)/len(data)))
		if testing.Short() {
			n = min(n, 10)
		}
		var offs []int
		for len(offs) < n {
			o := rng.Intn(last)
			switch len(offs) % 3 {
			case 1: // inside a string
				if q := bytes.IndexByte(data[o:last], '"'); q >= 0 && o+q+2 < last {
					o += q + 2
				}
			case 2: // inside a number
				for k := o; k < last-1; k++ {
					if isDigit(data[k]) && isDigit(data[k+1]) {
						o = k + 1
						break
					}
				}
			}
			offs = append(offs, o)
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			for _, o := range offs {
				r := readWith(t, string(data[:o]), nil, config{bufSize: 4096, logRecords: 256})
				if r.c.Accounting.Complete() {
					t.Fatalf("cut at byte %d of %d: got a complete capture, want incomplete", o, len(data))
				}
				g := r.c.Accounting.Find(capture.TruncatedInput)
				if g == nil && r.c.Accounting.CountOf(capture.EmptyCapture) == 0 {
					t.Fatalf("cut at byte %d: got neither a truncated_input nor an empty_capture gap, want one:\n%s", o, gapText(r.c))
				}
				// A prefix of valid JSON is diagnosed as cut, never as
				// malformed.
				if g != nil && !strings.Contains(g.Summary, "ends early") {
					t.Fatalf("cut at byte %d: got %q, want it to say \"ends early\"", o, g.Summary)
				}
				if len(r.disp) > len(full.disp) {
					t.Fatalf("cut at byte %d: got %d dispatches, want at most the whole file's %d", o, len(r.disp), len(full.disp))
				}
			}
		})
	}
}

// TestCutGzip cuts the compressed bytes: the gzip stream ends early, which
// is a truncation too.
func TestCutGzip(t *testing.T) {
	path := "testdata/tracelens__h100_qwen1.5-0.5b.json.gz"
	gz := fixture.Read(t, path)
	for _, o := range []int{len(gz) / 3, len(gz) / 2, len(gz) - 9, len(gz) - 1} {
		p := fixture.Write(t, t.TempDir(), "cut.json.gz", gz[:o])
		var col capture.Collect
		c, err := format.ReadFile(p, Name, &format.Options{}, &col)
		if err != nil {
			t.Fatalf("cut at %d: got error %v, want none", o, err)
		}
		g := c.Accounting.Find(capture.TruncatedInput)
		if c.Accounting.Complete() || g == nil {
			t.Fatalf("cut gzip at %d: got a complete capture or no truncated_input gap, want an incomplete one with that gap", o)
		}
		if n, _ := g.Figure("events_read"); n == 0 || c.Accounting.InputFor("events").Read != n {
			t.Errorf("cut at %d: got events_read %d, want the events before the cut: more than 0, as many as the events input read", o, n)
		}
	}
}
