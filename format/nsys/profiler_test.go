package nsys

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// earlyRows counts, from the raw tables, timed rows starting at or after
// zero and before the session start, and those starting below zero.
func earlyRows(t *testing.T, path string, before int64) (device, runtime, negative int64) {
	t.Helper()
	db := openRaw(t, path)
	for _, tb := range []string{"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME"} {
		var n, neg int64
		err := db.QueryRow(`SELECT coalesce(sum(start >= 0 AND start < ?), 0), coalesce(sum(start < 0), 0) FROM `+tb+` WHERE NOT (start = 0 AND "end" = 0) AND "end" >= start`, before).Scan(&n, &neg)
		if err != nil {
			if strings.Contains(err.Error(), "no such table") {
				continue
			}
			t.Fatal(err)
		}
		if tb == "CUPTI_ACTIVITY_KIND_RUNTIME" {
			runtime += n
		} else {
			device += n
		}
		negative += neg
	}
	return
}

// TestBeforeSession: rows timed before the session start are a note and
// stay in the tables; rows at negative times are never measurements
// (capture's rule): invalid_event, lost input, not in the tables.
func TestBeforeSession(t *testing.T) {
	path := genDB(t, genOpts{kernels: 10, preSession: 4, untimedRows: 2})
	r := readPath(t, path)
	g := r.c.Accounting.Find(BeforeSession)
	if g == nil {
		t.Fatalf("want a BeforeSession note, got:\n%s", gapText(r.c))
	}
	dev, rt, neg := earlyRows(t, path, 1000)
	if dev != 2 || neg != 2 {
		t.Fatalf("independent count: %d early device rows, %d negative; want 2 and 2", dev, neg)
	}
	for name, want := range map[string]int64{"device_rows": dev, "runtime_rows": rt} {
		if got, _ := g.Figure(name); got != want {
			t.Errorf("%s: got %d, want %d\n%s", name, got, want, gapText(r.c))
		}
	}
	if _, has := g.Figure("negative"); has {
		t.Errorf("got negative rows in the note, want them left to invalid_event:\n%s", gapText(r.c))
	}
	// A note (the rows are in the tables); the untimed rows (0, 0) are
	// not early, they are untimed.
	if g.Count != dev+rt || !g.Note || r.c.Accounting.CountOf(capture.UntimedInput) != 2 {
		t.Errorf("count %d note %v, want %d and a note\n%s", g.Count, g.Note, dev+rt, gapText(r.c))
	}
	// The early rows are in the tables as timed; the negative ones are not.
	n, negIn := 0, 0
	for _, d := range r.disp {
		if d.Device.Valid && d.Device.Begin < 1000 {
			n++
		}
		if d.Device.Valid && d.Device.Begin < 0 {
			negIn++
		}
	}
	if int64(n) != dev || negIn != 0 {
		t.Errorf("%d early and %d negative dispatches in the tables, want %d and 0", n, negIn, dev)
	}
	checkNegative(t, r, neg)

	// A normalised export's times are on another timeline than
	// ANALYSIS_DETAILS: nothing is early, and negative times are invalid
	// all the same.
	path = genDB(t, genOpts{kernels: 10, preSession: 4, normalized: true})
	r = readPath(t, path)
	_, _, neg = earlyRows(t, path, 0)
	if g := r.c.Accounting.Find(BeforeSession); g != nil || neg != 2 {
		t.Errorf("normalised: got before_session %v and %d negative rows, want none and 2\n%s", g != nil, neg, gapText(r.c))
	}
	checkNegative(t, r, neg)
	// And the sample, all inside its session, has none.
	r = readPath(t, sample)
	dev, rt, neg = earlyRows(t, sample, 35255823190)
	if dev+rt+neg != 0 || r.c.Accounting.Find(BeforeSession) != nil || r.c.Accounting.Find(capture.InvalidEvent) != nil {
		t.Errorf("sample: got %d+%d early rows, %d negative; want none and no BeforeSession or InvalidEvent:\n%s", dev, rt, neg, gapText(r.c))
	}
}

// checkNegative requires the negative rows to be invalid_event items and
// lost activity rows.
func checkNegative(t *testing.T, r result, neg int64) {
	t.Helper()
	if got := r.c.Accounting.CountOf(capture.InvalidEvent); got != neg {
		t.Errorf("invalid_event count: got %d, want %d (the negative rows)\n%s", got, neg, gapText(r.c))
	}
	s := r.c.Accounting.FindSkip("activity rows", "negative time")
	if s == nil || s.Count != neg || s.Class != capture.DeviceWorkLost || s.Gap != capture.InvalidEvent {
		t.Errorf("activity rows skipped for a negative time: got %+v, want %d lost under invalid_event", s, neg)
	}
}

func TestDiagnostics(t *testing.T) {
	r := readPath(t, genDB(t, genOpts{kernels: 5, diagnostics: true}))
	g := r.c.Accounting.Find(capture.ProducerWarnings)
	if g == nil || g.Count != 3 || len(g.Items) != 3 {
		t.Fatalf("want 3 producer warnings, got:\n%s", gapText(r.c))
	}
	if g.Items[0].What != "Warning: CUPTI buffer was full: events dropped" || g.Items[2].What != "Error: Failed to collect CPU samples" {
		t.Errorf("got items %+v, want the CUPTI buffer full warning first and Failed to collect CPU samples third", g.Items)
	}
	if w, _ := g.Figure("warning"); w != 2 {
		t.Errorf("got warning figure %d, want 2", w)
	}
	if in := r.c.Accounting.InputFor("diagnostic rows"); in.Read != 4 || in.Used != 4 {
		t.Errorf("got rows %+v, want 4 read, 4 used", in)
	}
	if r.c.Accounting.Complete() {
		t.Error("warnings: got complete, want incomplete")
	}
	// Negative arm: info rows alone are no warning.
	r = readPath(t, genDB(t, genOpts{kernels: 5}))
	if r.c.Accounting.Find(capture.ProducerWarnings) != nil {
		t.Errorf("want no producer warnings, got:\n%s", gapText(r.c))
	}
}

func TestOverhead(t *testing.T) {
	path := genDB(t, genOpts{kernels: 5, overhead: true})
	r := readPath(t, path)
	g := r.c.Accounting.Find(ProfilerOverhead)
	if g == nil || !g.Note {
		t.Fatalf("want a ProfilerOverhead note, got:\n%s", gapText(r.c))
	}
	// Reversed rows count as rows but add no time.
	want := []string{
		"CUPTI_ACTIVITY_KIND_OVERHEAD: Buffer flush (Profiler): 2 rows, 10 ns",
		"CUPTI_ACTIVITY_KIND_OVERHEAD: Command buffer full (CUDA): 2 rows, 600 ns",
		"PROFILER_OVERHEAD: cudaStreamSynchronize_v3020: 1 rows, 70 ns",
	}
	if len(g.Items) != len(want) {
		t.Fatalf("got %d items, want %d:\n%s", len(g.Items), len(want), gapText(r.c))
	}
	for i, w := range want {
		if g.Items[i].What != w {
			t.Errorf("item %d: %q, want %q", i, g.Items[i].What, w)
		}
	}
	if ns, _ := g.Figure("total_ns"); g.Count != 5 || ns != 680 {
		t.Errorf("got count %d total %d, want 5 and 680", g.Count, ns)
	}

	// The sample: 198 COMMAND_BUFFER_FULL rows; their time from SQL.
	r = readPath(t, sample)
	var n, ns int64
	if err := openRaw(t, sample).QueryRow(`SELECT count(*), sum("end" - start) FROM CUPTI_ACTIVITY_KIND_OVERHEAD WHERE overheadType = 8`).Scan(&n, &ns); err != nil {
		t.Fatal(err)
	}
	g = r.c.Accounting.Find(ProfilerOverhead)
	if g == nil || g.Count != n || n != 198 || len(g.Items) != 1 {
		t.Fatalf("sample overhead: want one item of 198 rows (SQL: %d), got:\n%s", n, gapText(r.c))
	}
	if got, _ := g.Figure("total_ns"); got != ns || !strings.Contains(g.Items[0].What, "Command buffer full (CUDA): 198 rows") {
		t.Errorf("got total %d; %s; want the SQL's %d and Command buffer full (CUDA): 198 rows", got, g.Items[0].What, ns)
	}
	// Negative arm: no overhead tables, no note.
	r = readPath(t, genDB(t, genOpts{kernels: 5}))
	if r.c.Accounting.Find(ProfilerOverhead) != nil {
		t.Errorf("want no ProfilerOverhead, got:\n%s", gapText(r.c))
	}
}
