package all

import (
	"bytes"
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/render"
)

// The promise's rules, held against every registered reader: a device unit
// made unreadable, an impossible time, a repeated record and a cut at the
// last record boundary each leave a gap (or, for a cut a format cannot
// show, the no_end_marker note and a verdict that says so) — never a
// complete report with less in it.
//
// Each reader supplies its inputs in promise_<reader>_test.go by adding to
// promiseFixtures from an init function; a reader without fixtures fails
// this test, so a new reader cannot be added without them.

// promiseFixture makes the inputs of one reader (or one variant of a
// reader that reads several layouts, e.g. rocprof CSV and JSON). Each
// function writes its input under dir and returns its path (a file, or a
// directory for a directory reader).
type promiseFixture struct {
	// variant names the layout, for messages ("csv", "json"); may be "".
	variant string
	// base is a small input the reader reads completely: at least two
	// dispatches, no gap (notes allowed).
	base func(t *testing.T, dir string) string
	// unreadable is base with one dispatch's record made unreadable (a
	// NULL time, an unknown kind, a field that does not parse, an id the
	// file never defined): one dispatch fewer and a gap.
	unreadable func(t *testing.T, dir string) string
	// impossible is base with one dispatch's time made impossible (a
	// negative start, an end of the int64 maximum): one dispatch fewer and
	// an invalid_event gap.
	impossible func(t *testing.T, dir string) string
	// repeated is base with one dispatch record written twice. Where the
	// format's records carry identity, the repeat is a repeatKind gap and
	// the tables hold base's dispatches. Where they carry none, repeated is
	// nil and noIdentity says why (the format's doc says so too).
	repeated   func(t *testing.T, dir string) string
	repeatKind capture.Kind
	noIdentity string
	// cut is base cut at its last record boundary (the last whole record
	// or line dropped, nothing cut mid-record). When the format has an end
	// marker (endMarker), that is a gap; when it has none, the capture
	// carries the no_end_marker note and the verdict says so.
	cut       func(t *testing.T, dir string) string
	endMarker bool
	// records, when set, writes base with its records picked by pick:
	// given their count, pick returns the indices to write, in order (an
	// index may repeat). The adversarial arms repeat and swap records
	// through it. A record is what the format writes one after another:
	// a line, a trace event, a row, an event of an events record.
	records func(t *testing.T, dir string, pick func(n int) []int) string
	// ordered, when set, says why records swapped are another valid
	// input, which the reader cannot tell from a whole one (running
	// totals whose decrease starts a new run): the swap arm then checks
	// only that it reads.
	ordered string
	// lastFieldNote: the format accepts a last line without its line
	// ending (rocprofv3 writes its CSVs so), so a cut inside that line's
	// last field, leaving a value, reads whole but for this note: what
	// the adversarial cut arm allows there.
	lastFieldNote capture.Kind
	// cutIsError: the cut input is refused with a positioned *format.Error
	// (a database file cut at a page boundary) — never a report.
	cutIsError bool
	// opts, when set, are the options every input is read with (e.g. the
	// hrx kernel manifests, without which every kernel is unresolved).
	opts *format.Options
	// unitDispatches is how many dispatches the record made unreadable or
	// impossible stands for (an aggregated record: its count); 0 means 1.
	unitDispatches int64
	// inherent are gap kinds every input of the format carries, whatever
	// it holds (iree-jsonl: losses_unknown, as the JSONL cannot show the
	// bundle's losses). The base may have them; every arm must show a gap
	// beyond them.
	inherent []capture.Kind
}

var promiseFixtures = map[string][]promiseFixture{}

// promiseRead reads path with detection (as a user would) and returns the
// capture, its tables and the dispatch count.
func promiseRead(t *testing.T, reader, path string, opts *format.Options) (*capture.Capture, *analysis.Tables) {
	t.Helper()
	agg := analysis.NewAggregator()
	c, err := format.ReadPath(path, "", opts, agg)
	if err != nil {
		t.Fatalf("%s: read: got error %v, want none", path, err)
	}
	if c.Source.Format != reader {
		t.Fatalf("%s: detected as %s, want %s", path, c.Source.Format, reader)
	}
	if err := c.CheckValid(); err != nil {
		t.Fatalf("%s: got CheckValid error %v, want none", path, err)
	}
	return c, agg.Tables(c)
}

// complete is Accounting.Complete, less the format's inherent gaps.
func complete(c *capture.Capture, inherent []capture.Kind) bool {
	for _, g := range c.Accounting.Gaps {
		if g.Note || g.Count == 0 || slices.Contains(inherent, g.Kind) {
			continue
		}
		return false
	}
	return true
}

func gapKinds(c *capture.Capture) string {
	var ks []string
	for _, g := range c.Accounting.Gaps {
		if g.Count > 0 {
			k := string(g.Kind)
			if g.Note {
				k += "(note)"
			}
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

func verdict(t *testing.T, c *capture.Capture, tb *analysis.Tables) string {
	t.Helper()
	var buf bytes.Buffer
	if err := render.Text(&buf, c, tb, render.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(line, "COMPLETE") || strings.HasPrefix(line, "INCOMPLETE") {
			return line
		}
	}
	t.Fatalf("got no verdict line, want one, in:\n%s", buf.String())
	return ""
}

func TestPromiseFixturesCoverEveryReader(t *testing.T) {
	for _, f := range format.Formats() {
		if len(promiseFixtures[f.Name]) == 0 {
			t.Errorf("reader %s: got no promise fixture, want one: add promise_%s_test.go (see promise_test.go)", f.Name, strings.ReplaceAll(f.Name, "-", ""))
		}
	}
}

func TestPromise(t *testing.T) { eachFixture(t, checkPromise) }

func checkPromise(t *testing.T, reader string, fx promiseFixture) {
	dir := t.TempDir()
	base, baseTables := promiseRead(t, reader, fx.base(t, subdir(t, dir, "base")), fx.opts)
	n := baseTables.Dispatches()
	if n < 2 {
		t.Fatalf("base holds %d dispatches, want at least 2", n)
	}
	if !complete(base, fx.inherent) {
		t.Fatalf("got base incomplete: gaps %s; want complete", gapKinds(base))
	}
	for _, in := range base.Accounting.Input {
		if in.LostTotal() != 0 {
			t.Fatalf("got base losing %d %s, want none", in.LostTotal(), in.Unit)
		}
	}

	unit := max(fx.unitDispatches, 1)
	t.Run("unreadable", func(t *testing.T) {
		c, tb := promiseRead(t, reader, fx.unreadable(t, subdir(t, dir, "unreadable")), fx.opts)
		if got := tb.Dispatches(); got != n-unit {
			t.Errorf("dispatches = %d, want %d (base less the unreadable one)", got, n-unit)
		}
		if complete(c, fx.inherent) {
			t.Errorf("a dispatch record made unreadable: got complete (gaps: %s), want incomplete", gapKinds(c))
		}
	})
	t.Run("impossible", func(t *testing.T) {
		c, tb := promiseRead(t, reader, fx.impossible(t, subdir(t, dir, "impossible")), fx.opts)
		if got := tb.Dispatches(); got != n-unit {
			t.Errorf("dispatches = %d, want %d (the impossible one is not a measurement)", got, n-unit)
		}
		if c.Accounting.CountOf(capture.InvalidEvent) == 0 || complete(c, fx.inherent) {
			t.Errorf("impossible time: gaps %s, want invalid_event", gapKinds(c))
		}
	})
	t.Run("repeated", func(t *testing.T) {
		if fx.repeated == nil {
			if fx.noIdentity == "" {
				t.Fatal("got no repeated input and no reason why the format has no record identity, want one of them")
			}
			t.Skipf("no record identity: %s", fx.noIdentity)
		}
		c, tb := promiseRead(t, reader, fx.repeated(t, subdir(t, dir, "repeated")), fx.opts)
		if got := tb.Dispatches(); got != n {
			t.Errorf("dispatches = %d, want %d (a repeat is counted once)", got, n)
		}
		if c.Accounting.CountOf(fx.repeatKind) == 0 || complete(c, fx.inherent) {
			t.Errorf("repeated record: gaps %s, want %s", gapKinds(c), fx.repeatKind)
		}
	})
	t.Run("cut", func(t *testing.T) {
		if fx.cutIsError {
			path := fx.cut(t, subdir(t, dir, "cut"))
			_, err := format.ReadPath(path, "", fx.opts, nil)
			var fe *format.Error
			if !errors.As(err, &fe) {
				t.Errorf("cut input: err %v, want a positioned *format.Error", err)
			}
			return
		}
		c, tb := promiseRead(t, reader, fx.cut(t, subdir(t, dir, "cut")), fx.opts)
		v := verdict(t, c, tb)
		if fx.endMarker {
			if complete(c, fx.inherent) {
				t.Errorf("cut at the last record boundary: got complete (gaps: %s), want incomplete", gapKinds(c))
			}
			return
		}
		if c.Accounting.CountOf(capture.NoEndMarker) == 0 {
			t.Errorf("a format without an end marker: want the no_end_marker note, got gaps: %s", gapKinds(c))
		}
		if v == "COMPLETE: every input unit is accounted for and no gap was found" || strings.HasPrefix(v, "COMPLETE: ") {
			t.Errorf("got verdict %q, want no bare COMPLETE for a format that cannot show a cut", v)
		}
	})
}
