package all

import (
	"errors"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// TestProgramByEveryReader reads every reader's promise base, and each of
// its arms with a gap (a record unreadable, an impossible time, a repeat,
// a cut), with each --program-by value: the model holds (ReadPath checks
// it: a regrouping that renamed a gap's program once left the lost units
// it accounts for pointing at no gap), the tables keep every dispatch and
// the device time, and a grouping by device or stream either names where
// dispatches ran or says the reader records none of it. gpu-annotation is
// Kineto's alone: any other reader refuses it, naming itself.
func TestProgramByEveryReader(t *testing.T) {
	eachFixture(t, func(t *testing.T, reader string, fx promiseFixture) {
		for _, arm := range []struct {
			name  string
			write func(*testing.T, string) string
		}{{"base", fx.base}, {"unreadable", fx.unreadable}, {"impossible", fx.impossible}, {"repeated", fx.repeated}, {"cut", fx.cut}} {
			if arm.write != nil {
				programByArm(t, reader, fx, arm.name, arm.write(t, t.TempDir()))
			}
		}
	})
}

// programByArm reads the input at path, the fixture's arm, with each
// --program-by value.
func programByArm(t *testing.T, reader string, fx promiseFixture, arm, path string) {
	t.Helper()
	read := func(by string) (*capture.Capture, *analysis.Tables, error) {
		opts := format.Options{}
		if fx.opts != nil {
			opts = *fx.opts
		}
		opts.ProgramBy = by
		agg := analysis.NewAggregator()
		c, err := format.ReadPath(path, "", &opts, agg)
		if err != nil {
			return nil, nil, err
		}
		return c, agg.Tables(c), nil
	}
	base, bt, err := read(format.ByAnnotation)
	switch {
	case err != nil && (arm == "base" || errors.Is(err, format.ErrModel)):
		t.Fatalf("%s: got error %v, want none", arm, err)
	case err != nil:
		return // an arm the reader refuses with a positioned error (a cut database), whatever the grouping
	}
	want, wantNS := bt.Dispatches(), deviceNS(bt)
	for _, by := range []string{"auto", "device", "stream", "none", "annotation,device", "annotation,stream"} {
		c, tb, err := read(by)
		if err != nil {
			t.Errorf("%s, --program-by %s: got error %v, want none", arm, by, err)
			continue
		}
		if got := tb.Dispatches(); got != want || deviceNS(tb) != wantNS {
			t.Errorf("%s, --program-by %s: got %d dispatches, %d ns; want annotation's %d, %d", arm, by, got, deviceNS(tb), want, wantNS)
		}
		if err := c.CheckValid(); err != nil {
			t.Errorf("%s, --program-by %s: got CheckValid error %v, want none", arm, by, err)
		}
		if by == "device" || by == "stream" {
			checkWhere(t, c, by, len(base.Queues) > 0)
		}
	}
	if arm != "base" {
		return
	}
	_, _, err = read(format.ByGPUAnnotation)
	if reader == "kineto" && err != nil {
		t.Errorf("gpu-annotation: got error %v, want none", err)
	}
	if reader != "kineto" && (err == nil || !strings.Contains(err.Error(), "the "+reader+" reader has no GPU annotations")) {
		t.Errorf("gpu-annotation: got %v, want the %s reader to refuse it", err, reader)
	}
}

// checkWhere: every program of a grouping by device or stream is named
// after where its dispatches ran, or — when the input records no queue —
// is the one "(no device)"/"(no stream)" program with a note saying so.
func checkWhere(t *testing.T, c *capture.Capture, by string, queues bool) {
	t.Helper()
	for _, p := range c.Programs {
		unknown := p.Name == "(no "+by+")"
		if !queues && !unknown {
			t.Errorf("--program-by %s, no queues: got program %q, want (no %s)", by, p.Name, by)
		}
		if unknown && !queues && !strings.Contains(strings.Join(p.Notes, "|"), "records no "+by) {
			t.Errorf("--program-by %s: program %q has notes %q, want it said that the input records no %s", by, p.Name, p.Notes, by)
		}
	}
}

func deviceNS(t *analysis.Tables) int64 {
	var ns int64
	for _, p := range t.Programs {
		ns += p.Total
	}
	return ns
}
