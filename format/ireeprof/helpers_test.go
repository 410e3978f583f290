package ireeprof

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// samples are the bundles in testdata with golden iree-profile output.
var samples = []string{"smoke", "smoke_no_dispatch", "dispatch_mode", "no_dispatch_events", "unfinalized", "cut_mid_record"}

func sampleBytes(t testing.TB, name string) []byte {
	t.Helper()
	b := fixture.Read(t, filepath.Join("testdata", name+".ireeprof"))
	return b
}

// goldenPath is the iree-profile output of kind (dispatch_events,
// summary, dispatch) for sample name.
func goldenPath(name, kind string) string {
	return filepath.Join("testdata", "golden", name+"."+kind+".jsonl")
}

// result is one read: the capture, the dispatches and the decoded events.
type result struct {
	c    *capture.Capture
	sink *capture.Collect
	rows []eventRow
}

func readBundle(t testing.TB, data []byte) (*result, error) {
	t.Helper()
	in := inputOf(data)
	res := &result{sink: &capture.Collect{}}
	chk := &capture.Checked{Next: res.sink}
	r := newReader(in, chk)
	r.onEvent = func(row *eventRow) { res.rows = append(res.rows, *row) }
	c, err := r.read()
	res.c = c
	if err == nil {
		chk.Finish(c) // as format.ReadInput does: Checked's gaps are the capture's
		c.Accounting.SortGaps()
		if verr := checkCapture(c); verr != "" {
			t.Fatalf("got %s, want a valid capture", verr)
		}
		if chk.Err != nil {
			t.Fatalf("a dispatch breaks the model: got %v, want no error", chk.Err)
		}
	}
	return res, err
}

func mustRead(t testing.TB, data []byte) *result {
	t.Helper()
	res, err := readBundle(t, data)
	if err != nil {
		t.Fatalf("read: got error %v, want none", err)
	}
	return res
}

func (r *result) gap(kind capture.Kind) *capture.Gap { return r.c.Accounting.Find(kind) }

func (r *result) count(kind capture.Kind) int64 { return r.c.Accounting.CountOf(kind) }

// items joins every item text of every gap of kind.
func (r *result) items(kind capture.Kind) string {
	var parts []string
	for _, g := range r.c.Accounting.Gaps {
		if g.Kind == kind {
			for _, it := range g.Items {
				parts = append(parts, it.What+" @"+it.Where)
			}
		}
	}
	return strings.Join(parts, "\n")
}

func (r *result) field(section, key string) any {
	for _, s := range r.c.Sections() {
		if s.Title != section {
			continue
		}
		for _, f := range s.Fields {
			if f.Key == key {
				return f.Value
			}
		}
	}
	return nil
}

func (r *result) kernelName(d capture.Dispatch) string { return r.c.Kernels[d.Kernel].Name }

func (r *result) programName(d capture.Dispatch) string { return r.c.Programs[d.Program].Name }

func (r *result) skipped(unit, reason string) int64 {
	if s := r.c.Accounting.FindSkip(unit, reason); s != nil {
		return s.Count
	}
	return 0
}

// lost counts the units of unit skipped for reason as lost device work
// accounted for by a gap of kind; a skip of another class counts 0.
func (r *result) lost(unit, reason string, kind capture.Kind) int64 {
	return lostIn(r.c, unit, reason, kind)
}

func lostIn(c *capture.Capture, unit, reason string, kind capture.Kind) int64 {
	var n int64
	for _, in := range c.Accounting.Input {
		if in.Unit != unit {
			continue
		}
		for _, s := range in.Skipped {
			if s.Reason == reason && s.Class == capture.DeviceWorkLost && s.Gap == kind {
				n += s.Count
			}
		}
	}
	return n
}

func inputOf(data []byte) *format.Input {
	return &format.Input{Path: "test.ireeprof", ReaderAt: bytes.NewReader(data), Size: int64(len(data))}
}

// checkCapture checks what every capture must satisfy: valid accounting and
// a summary sentence on every gap.
func checkCapture(c *capture.Capture) string {
	if err := c.CheckValid(); err != nil {
		return "model invalid: " + err.Error()
	}
	for _, g := range c.Accounting.Gaps {
		if g.Count > 0 && g.Summary == "" {
			return "gap " + string(g.Kind) + " has no summary"
		}
	}
	return ""
}
