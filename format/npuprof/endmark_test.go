package npuprof

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// A log cut inside a window (after some of its rows) leaves a window whose
// rows do not add up to W launches: inconsistent_trace naming its lines.
func TestWindowCutInside(t *testing.T) {
	log := (&engine{}).window(40, 60).window(30, 0).String() // the second window's decode row is missing
	r := readLog(t, log)
	g := r.gap(capture.InconsistentTrace)
	if g == nil || g.Count != 1 || g.Items[0].What != "a window of 1 row holds 30 launches, not 100" || g.Items[0].Where != "run.log:3" {
		t.Fatalf("got %+v, want one inconsistent window at run.log:3", r.c.Accounting.Gaps)
	}
	if r.c.Accounting.Complete() {
		t.Fatal("got a log cut inside a window reading complete, want it incomplete")
	}
	// The negative arm: whole windows, however split between families.
	r = readLog(t, (&engine{}).window(40, 60).window(100, 0).window(0, 100).String())
	if g := r.gap(capture.InconsistentTrace); g != nil {
		t.Fatalf("whole windows: got inconsistent_trace %+v, want none", g)
	}
}

// A log cut right after a window's rows cannot be told from a whole one:
// raw, it is complete with a no_end_marker note (the verdict says
// "up to the last line"); kept by tally record, the end record decides.
func TestWindowCutAtBoundary(t *testing.T) {
	rows := (&engine{}).window(40, 60).window(100, 0).String()
	r := readLog(t, rows)
	if !r.c.Accounting.Complete() || r.c.Accounting.CutUnit != "line" {
		t.Fatalf("raw log: got complete %v, cut unit %q, want complete up to the last line", r.c.Accounting.Complete(), r.c.Accounting.CutUnit)
	}
	if g := r.gap(capture.NoEndMarker); g == nil || !g.Note || !strings.Contains(g.Summary, "right after a window's rows") {
		t.Fatalf("raw log: got %+v, want the no_end_marker note", r.c.Accounting.Gaps)
	}

	var stamped strings.Builder
	for i, l := range strings.SplitAfter(rows, "\n") {
		if l != "" {
			stamped.WriteString(string(rune('1'+i)) + "00 " + l)
		}
	}
	head := "# tally kept trace v1 clock=monotonic unit=ns end=1 pid=7 cmd=\"./engine\"\n"
	// Kept, with its end record: complete, and no note.
	r = readLog(t, head+stamped.String()+"# tally kept trace end exit=0 at=900\n")
	if !r.c.Accounting.Complete() || r.gap(capture.NoEndMarker) != nil || r.c.Accounting.CutUnit != "" {
		t.Fatalf("kept with its end record: got %+v, want complete without a note", r.c.Accounting.Gaps)
	}
	// Kept, cut at the same boundary (no end record): truncated_input.
	r = readLog(t, head+stamped.String())
	if g := r.gap(capture.TruncatedInput); g == nil || !strings.Contains(g.Items[0].What, "no end record") || g.Items[0].Where != "run.log:4" {
		t.Fatalf("kept without its end record: got %+v, want truncated_input after line 4", r.c.Accounting.Gaps)
	}
	// Kept, and the engine was stopped: a gap naming the signal.
	r = readLog(t, head+stamped.String()+"# tally kept trace end signal=SIGINT forwarded=SIGINT at=900\n")
	if g := r.gap(capture.InterruptedRecording); g == nil || !strings.Contains(g.Items[0].What, "killed by SIGINT") || r.c.Accounting.Complete() {
		t.Fatalf("kept, stopped by SIGINT: got %+v, want interrupted_recording", r.c.Accounting.Gaps)
	}
	// An older kept trace (no end=1): the note says so.
	r = readLog(t, strings.Replace(head, " end=1", "", 1)+stamped.String())
	if g := r.gap(capture.NoEndMarker); g == nil || !strings.Contains(g.Summary, "without end records") || !r.c.Accounting.Complete() {
		t.Fatalf("older kept trace: got %+v, want complete with the note", r.c.Accounting.Gaps)
	}
}
