package all

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// What the adversarial arms (adversary_*_test.go) share: reading an input
// the way a user does, without failing on what a reader may say, and
// comparing what two reads hold.

// advRead is one read of an adversarial input.
type advRead struct {
	c   *capture.Capture
	err error
	tb  *analysis.Tables
	// seen is every dispatch the reader gave.
	seen []advDispatch
}

// advDispatch is what a dispatch is, for telling whether a dispatch of a
// damaged input is one of base's: its kernel's name, its clock and what it
// measured. Its program and absolute times are left out: a cut may leave
// out what names a program or anchors a clock, which a gap or note states.
type advDispatch struct {
	kernel string
	clock  string
	dur    int64
	agg    capture.Aggregate
}

func (d advDispatch) String() string {
	return fmt.Sprintf("%s (%s, %d, aggregate %+v)", d.kernel, d.clock, d.dur, d.agg)
}

// unresolved says whether the kernel's name is the program:#id (or #?) a
// reader shows when the name is not in the input: never a name read wrong.
func (d advDispatch) unresolved() bool { return strings.Contains(d.kernel, "#") }

// is says whether d may be base dispatch b: the same name (or none), and
// on the same clock the same measurement. On another clock (the fit that
// turns ticks into ns cut off), or untimed (a time the reader could not
// pair), only the name can be compared.
func (d advDispatch) is(b advDispatch) bool {
	if d.kernel != b.kernel && !d.unresolved() {
		return false
	}
	untimed := d.dur < 0 && d.agg == capture.Aggregate{}
	return d.clock != b.clock || untimed || d.dur == b.dur && d.agg == b.agg
}

// advReadPath reads path with detection, collecting the dispatches.
func advReadPath(path string, opts *format.Options) advRead {
	agg := analysis.NewAggregator()
	var seen []advDispatch
	sink := capture.SinkFunc(func(c *capture.Capture, d *capture.Dispatch) {
		agg.Dispatch(c, d)
		a := advDispatch{kernel: fmt.Sprintf("#%d", d.Kernel), dur: -1}
		if int(d.Kernel) >= 0 && int(d.Kernel) < len(c.Kernels) {
			a.kernel = c.Kernels[d.Kernel].Name
		}
		ck := c.ProgramClock(d.Program)
		a.clock = ck.Domain + "/" + ck.Unit
		if dur, ok := d.Device.Duration(); ok {
			a.dur = dur
		}
		if d.Aggregate != nil {
			a.agg = *d.Aggregate
		}
		seen = append(seen, a)
	})
	c, err := format.ReadPath(path, "", opts, sink)
	r := advRead{c: c, err: err, seen: seen}
	if err == nil && c != nil {
		r.tb = agg.Tables(c)
	}
	return r
}

// tablesSig is the tables as text: per program, per kernel, the counts and
// times, so that two reads can be compared.
func tablesSig(tb *analysis.Tables) string {
	if tb == nil {
		return "<no tables>"
	}
	var lines []string
	for _, p := range tb.Programs {
		for _, k := range p.Kernels {
			lines = append(lines, fmt.Sprintf("%s/%s dispatches=%d timed=%d total=%d min=%d max=%d launched=%d launch=%d aggregated=%d",
				p.Program.Name, k.Kernel.Name, k.Dispatches, k.Timed, k.Total, k.Min, k.Max, k.Launched, k.LaunchTotal, k.Aggregated))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// subset says whether every dispatch of got may be one of want's, each
// standing for a different one; the first that may not, when not.
func subset(got, want []advDispatch) (advDispatch, bool) {
	used := make([]bool, len(want))
next:
	for _, g := range got {
		for i, w := range want {
			if !used[i] && g.is(w) {
				used[i] = true
				continue next
			}
		}
		return g, false
	}
	return advDispatch{}, true
}

// advFiles are the files of input path: itself, or a directory's regular
// files in name order.
func advFiles(t *testing.T, path string) []string {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !st.IsDir() {
		return []string{path}
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// advBase reads fx's base input (written under a fresh directory): the
// path and the read, checked whole.
func advBase(t *testing.T, reader string, fx promiseFixture) (string, advRead) {
	t.Helper()
	path := fx.base(t, t.TempDir())
	r := advReadPath(path, fx.opts)
	if r.err != nil {
		t.Fatalf("base: got error %v, want none", r.err)
	}
	if r.c.Source.Format != reader || !complete(r.c, fx.inherent) {
		t.Fatalf("base read as %s, gaps %s; want %s, complete", r.c.Source.Format, gapKinds(r.c), reader)
	}
	return path, r
}
