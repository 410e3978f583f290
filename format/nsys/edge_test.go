package nsys

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

func TestGeneratedPrograms(t *testing.T) {
	r := readPath(t, genDB(t, genOpts{kernels: 250, nvtx: true}))
	if len(r.disp) != 250 || !r.c.Accounting.Complete() {
		t.Fatalf("got %d dispatches, want 250 and complete:\n%s", len(r.disp), gapText(r.c))
	}
	// The outermost range names the program, without its instance
	// number: one program "step" with 3 instances, never one per op.
	if len(r.c.Programs) != 1 || r.c.Programs[0].Name != "step" || r.c.Programs[0].Instances != 3 {
		t.Fatalf("got programs %+v, want one, step, with 3 instances", r.c.Programs)
	}
	for _, d := range r.disp {
		if d.Link != capture.LinkLaunched || !d.Launch.Valid || d.Launch.End-d.Launch.Begin != 300 {
			t.Fatalf("got launch %+v, want launched and 300 ns long", d)
		}
		// Launch i is in step#(i/100): the dispatch's instance.
		if want := (d.Launch.Begin - 10000) / 1000 / 100; d.Instance != want {
			t.Fatalf("launch at %d: instance %d, want %d", d.Launch.Begin, d.Instance, want)
		}
	}
	if nv := r.c.Accounting.InputFor("NVTX rows"); nv.Read != 254 || nv.Used != 253 {
		t.Fatalf("got nvtx %+v, want 254 read, 253 used", nv)
	}
	// Two devices × two streams.
	if len(r.c.Queues) != 4 {
		t.Fatalf("got queues %+v, want 4", r.c.Queues)
	}
}

func TestGeneratedGaps(t *testing.T) {
	r := readPath(t, genDB(t, genOpts{kernels: 20, reversed: 1, nullName: 2, orphans: 3, unlaunched: 4, untimedRows: 1, outOfOrder: true, nodeGraph: 2, window: true}))
	a := &r.c.Accounting
	want := map[capture.Kind]int64{
		capture.InvalidEvent: 1, capture.UnresolvedName: 1, capture.GPUEventWithoutLaunch: 3,
		capture.LaunchWithoutGPUEvent: 4, capture.UntimedInput: 1, capture.ClockDecrease: 1,
		capture.GraphLaunch: 1, capture.WindowedExport: 1,
	}
	for k, n := range want {
		if a.CountOf(k) != n {
			t.Errorf("%s: %d, want %d\n%s", k, a.CountOf(k), n, gapText(r.c))
		}
	}
	if g := a.Find(capture.GraphLaunch); g != nil {
		if m, _ := g.Figure("max_kernels_per_launch"); m != 3 {
			t.Errorf("got max per launch %d, want 3", m)
		}
	}
	if !strings.Contains(a.Find(capture.WindowedExport).Summary, "window 5-6 ns") {
		t.Errorf("got %q, want a window 5-6 ns", a.Find(capture.WindowedExport).Summary)
	}
	if rt := a.InputFor("runtime rows"); rt.Read != 29 || rt.Used != 24 || rt.SkippedTotal() != 5 {
		t.Errorf("got runtime rows %+v, want 29 read, 24 used, 5 skipped", rt)
	}
	// Reversed rows are kept out, never swapped.
	for _, d := range r.disp {
		if d.Device.Begin == 800 || d.Device.Begin == 900 {
			t.Fatalf("got a reversed row in the tables (%+v), want it left out", d)
		}
	}
}

func TestNoKernelTable(t *testing.T) {
	r := readPath(t, genDB(t, genOpts{kernels: 5, noKernels: true, graphs: 3, graphTrace: 2}))
	g := r.c.Accounting.Find(capture.EmptyCapture)
	if g == nil || g.Summary != noKernelTable || !strings.Contains(g.Items[0].What, "traced Cuda") {
		t.Fatalf("want an EmptyCapture of noKernelTable naming traced Cuda, got:\n%s", gapText(r.c))
	}
	gr := r.c.Accounting.Find(capture.GraphKernelsUntraced)
	if gr == nil || gr.Count != 3 || !strings.Contains(gr.Summary, "--cuda-graph-trace=node") {
		t.Fatalf("want 3 graph_kernels_untraced suggesting --cuda-graph-trace=node, got:\n%s", gapText(r.c))
	}
	if n, _ := gr.Figure("graph_executions"); n != 2 {
		t.Fatalf("got graph executions %d, want 2", n)
	}
}

func TestUnknownTablesNamed(t *testing.T) {
	r := readPath(t, genDB(t, genOpts{kernels: 3, extraTable: true}))
	if len(r.disp) != 3 {
		t.Fatalf("got %d dispatches, want 3:\n%s", len(r.disp), gapText(r.c))
	}
	var got []string
	for _, s := range r.c.Inventory {
		for _, f := range s.Fields {
			if strings.Contains(f.Key, "not read") {
				got = append(got, f.Value.(string))
			}
		}
	}
	if strings.Join(got, "|") != "CUPTI_ACTIVITY_KIND_FUTURE|futureColumn" {
		t.Fatalf("got %q, want CUPTI_ACTIVITY_KIND_FUTURE|futureColumn", got)
	}
}

func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	good := fixture.Read(t, sample)
	cases := map[string][]byte{
		"text.sqlite":    []byte("hello, not a database\n"),
		"header.sqlite":  append([]byte("SQLite format 3\x00"), make([]byte, 4000)...),
		"garbage.sqlite": append(append([]byte(nil), good[:100]...), []byte(strings.Repeat("\xde\xad\xbe\xef", 1024))...),
		"cut.sqlite":     good[:len(good)/3],
		"page1.sqlite":   good[:4096],
	}
	for name, data := range cases {
		p := fixture.Write(t, dir, name, data)
		c, err := format.ReadFile(p, Name, nil, nil)
		if err == nil {
			// A cut file may still open: then it must not look complete.
			if c.Accounting.Complete() && len(c.Kernels) > 0 {
				t.Errorf("%s: got complete with kernels, want an error or an incomplete capture", name)
			}
			continue
		}
		var fe *format.Error
		if !errorsAs(err, &fe) || !strings.HasPrefix(err.Error(), p) {
			t.Errorf("%s: got %v, want a *format.Error starting with the path", name, err)
		}
	}
}

// Any other SQLite database is evidence of SQLite, not of nsys: detection
// refuses it with the list of formats. Given --format nsys, the reader
// reads it and says what it lacks.
func TestForeignSQLite(t *testing.T) {
	p := fixture.SQLite(t, filepath.Join(t.TempDir(), "other.db"), `CREATE TABLE t (x INTEGER)`)
	if c, err := format.ReadFile(p, "", nil, nil); !errors.Is(err, format.ErrUnknownFormat) || !strings.Contains(err.Error(), "an SQLite database") {
		t.Fatalf("detected: got %v, %+v, want no reader to recognise it", err, c)
	}
	c, err := format.ReadFile(p, Name, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := c.Accounting.Find(capture.EmptyCapture)
	if c.Source.Format != Name || g == nil || !strings.Contains(g.Items[0].What, "is it an Nsight Systems export?") {
		t.Fatalf("want an EmptyCapture asking is it an Nsight Systems export?, got:\n%s", gapText(c))
	}
}

// SQLite opens databases by path: input that is not a plain file (bytes in
// memory, gzip, a pipe) is copied to a temporary file, read the same, and
// the copy removed; a character device, which may never end, is refused.
func TestNotAPlainFile(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	good := fixture.Read(t, sample)
	want := len(readPath(t, sample).disp)
	count := func(in *format.Input) int {
		t.Helper()
		var col capture.Collect
		if _, err := format.ReadInput(in, "", nil, &col); err != nil {
			t.Fatal(err)
		}
		return len(col.Dispatches)
	}
	if n := count(format.BytesInput("mem.sqlite", good)); n != want {
		t.Errorf("in memory: %d dispatches, want %d", n, want)
	}
	gzPath := fixture.Write(t, t.TempDir(), "x.sqlite.gz", fixture.Gzip(t, good))
	if n := len(readPath(t, gzPath).disp); n != want {
		t.Errorf("gzip: %d dispatches, want %d", n, want)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := mkfifo(fifo); err == nil {
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				f.Write(good)
				f.Close()
			}
		}()
		if n := len(readPath(t, fifo).disp); n != want {
			t.Errorf("pipe: %d dispatches, want %d", n, want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "tally-*")); len(left) > 0 {
		t.Errorf("got temporary copies left behind: %v, want none", left)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		in, err := format.Open("/dev/zero")
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		if _, err := format.ReadInput(in, Name, nil, nil); err == nil || !strings.Contains(err.Error(), "device") {
			t.Errorf("/dev/zero: got %v, want an error naming a device", err)
		}
	}
}
