package nsys

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// nullableKernels rebuilds the generated kernel table without NOT NULL on
// start and end (nsys declares them NOT NULL; a damaged or hand-made
// export need not), with a gridId column.
var nullableKernels = []string{
	`ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO k_old`,
	`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, graphId INTEGER, gridId INTEGER)`,
	`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT *, correlationId FROM k_old`,
	`DROP TABLE k_old`,
}

// wantSkip requires the skip of unit for reason to count n units of class
// cls under gap kind (none for not_device_work).
func wantSkip(t *testing.T, c *capture.Capture, unit, reason string, n int64, cls capture.SkipClass, kind capture.Kind) {
	t.Helper()
	s := c.Accounting.FindSkip(unit, reason)
	if s == nil {
		t.Errorf("%s: no skip %q, want %d (%s)\n%s", unit, reason, n, cls, gapText(c))
		return
	}
	if s.Count != n || s.Class != cls || s.Gap != kind {
		t.Errorf("%s skipped %q: got %d %s under %q, want %d %s under %q", unit, reason, s.Count, s.Class, s.Gap, n, cls, kind)
	}
}

// TestSkipClasses: every device row or launch kept out of the tables is
// lost input under the gap that lists it; host rows are not device work.
func TestSkipClasses(t *testing.T) {
	path := genDB(t, genOpts{kernels: 20, reversed: 1, unlaunched: 3, graphs: 2, nvtx: true})
	fixture.SQLite(t, path, nullableKernels...)
	fixture.SQLite(t, path,
		// A NULL start; an end at the int64 maximum; a launch at a
		// negative time. Correlation ids 1, 2 and 3 are kernels 0..2.
		`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = NULL WHERE correlationId = 1`,
		`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = 9223372036854775807 WHERE correlationId = 2`,
		`UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = -100 WHERE correlationId = 3`,
	)
	r := readPath(t, path)
	if got := len(r.disp); got != 20-3 {
		t.Errorf("dispatches: got %d, want %d (20 less the NULL, endless and negative-launch rows; the reversed one is extra)", got, 20-3)
	}
	c := r.c
	const lost, host = capture.DeviceWorkLost, capture.NotDeviceWork
	wantSkip(t, c, "activity rows", "no start or end", 1, lost, capture.InvalidEvent)
	wantSkip(t, c, "activity rows", "end before start", 1, lost, capture.InvalidEvent)
	wantSkip(t, c, "activity rows", "longer than the ceiling", 1, lost, capture.InvalidEvent)
	wantSkip(t, c, "activity rows", "negative time", 1, lost, capture.InvalidEvent)
	wantSkip(t, c, "runtime rows", "launch without GPU work in the export", 3, lost, capture.LaunchWithoutGPUEvent)
	wantSkip(t, c, "runtime rows", "graph launch whose kernels are not in the export", 2, lost, capture.GraphKernelsUntraced)
	wantSkip(t, c, "runtime rows", "not a launch call", 1, host, "")
	wantSkip(t, c, "NVTX rows", "marks, domain rows and ranges without an end", 1, host, "")
	if n := c.Accounting.CountOf(capture.InvalidEvent); n != 4 {
		t.Errorf("invalid_event: got %d, want 4\n%s", n, gapText(c))
	}
	for _, d := range r.disp {
		if d.Device.End == math.MaxInt64 || d.Launch.Begin < 0 {
			t.Errorf("got an impossible time in the tables: %+v, want it left out", d)
		}
	}

	// The ceiling is --max-duration's: raised, the endless row is still
	// past it, an hour-and-a-bit kernel is not.
	fixture.SQLite(t, path, `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = start + 4000000000000 WHERE correlationId = 2`)
	var col capture.Collect
	c2, err := format.ReadFile(path, Name, &format.Options{MaxDuration: 2 * 3600e9}, &col)
	if err != nil {
		t.Fatal(err)
	}
	if s := c2.Accounting.FindSkip("activity rows", "longer than the ceiling"); s != nil {
		t.Errorf("a 4000 s kernel under a 2 h ceiling: got lost %+v, want kept", s)
	}
	if got := len(col.Dispatches); got != 20-2 {
		t.Errorf("dispatches under a 2 h ceiling: got %d, want %d", got, 20-2)
	}
}

// TestRepeatedRows: a device row written twice is counted once, under
// duplicate_event; rows that only share a correlation id (graph nodes),
// and untimed rows without a grid id, are not repeats.
func TestRepeatedRows(t *testing.T) {
	path := genDB(t, genOpts{kernels: 10, nodeGraph: 2})
	fixture.SQLite(t, path, nullableKernels...)
	fixture.SQLite(t, path,
		`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 5`,
		// Two untimed rows of one graph launch, identical but for nothing
		// nsys wrote: no grid id, so not provably one record.
		`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName, shortName) VALUES (0, 0, 0, 1, 7, 7, `+itoa(gpid)+`, 10, 10), (0, 0, 0, 1, 7, 7, `+itoa(gpid)+`, 10, 10)`,
	)
	r := readPath(t, path)
	c := r.c
	// 10 launches, 2 graph nodes, 2 untimed rows; the repeat is not one.
	if got := len(r.disp); got != 14 {
		t.Errorf("dispatches: got %d, want 14\n%s", got, gapText(c))
	}
	if n := c.Accounting.CountOf(capture.DuplicateEvent); n != 1 {
		t.Errorf("duplicate_event: got %d, want 1\n%s", n, gapText(c))
	}
	wantSkip(t, c, "activity rows", "repeats the row before it", 1, capture.DeviceWorkLost, capture.DuplicateEvent)
	if g := c.Accounting.Find(capture.DuplicateEvent); g != nil {
		if ns, _ := g.Figure("repeated_ns"); ns != 100+4 {
			t.Errorf("repeated_ns: got %d, want 104 (kernel 4's duration)", ns)
		}
	}
	// The graph's kernels share their launch's id: still a graph launch
	// of 3 kernels, not repeats.
	if g := c.Accounting.Find(capture.GraphLaunch); g == nil {
		t.Errorf("want a graph_launch note, got:\n%s", gapText(c))
	} else if m, _ := g.Figure("max_kernels_per_launch"); m != 3 {
		t.Errorf("max_kernels_per_launch: got %d, want 3", m)
	}

	// With grid ids, identical untimed rows are one record written twice.
	fixture.SQLite(t, path, `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridId = 999 WHERE start = 0 AND "end" = 0`)
	r = readPath(t, path)
	if n := r.c.Accounting.CountOf(capture.DuplicateEvent); n != 2 || len(r.disp) != 13 {
		t.Errorf("with grid ids: got %d repeats and %d dispatches, want 2 and 13\n%s", n, len(r.disp), gapText(r.c))
	}
	// The sample has no repeated row.
	if g := readPath(t, sample).c.Accounting.Find(capture.DuplicateEvent); g != nil {
		t.Errorf("sample: want no duplicate_event, got:\n%s", gapText(readPath(t, sample).c))
	}
}

// TestCutAtPageBoundary: an export cut cleanly, between pages, is refused
// at the byte it ends, from its header's page count — not read as a
// smaller, complete capture.
func TestCutAtPageBoundary(t *testing.T) {
	good := fixture.Read(t, sample)
	p := fixture.Write(t, t.TempDir(), "cut.sqlite", good[:len(good)-4096])
	_, err := format.ReadFile(p, "", nil, nil)
	var fe *format.Error
	if !errors.As(err, &fe) || fe.Offset != int64(len(good)-4096) || !strings.Contains(err.Error(), "the database is cut") {
		t.Fatalf("got %v, want a format.Error at byte %d saying the database is cut", err, len(good)-4096)
	}
	// Negative arm: the whole file is read (its header's size is its own).
	if r := readPath(t, sample); len(r.disp) == 0 {
		t.Fatal("sample: got no dispatch, want some")
	}
}
