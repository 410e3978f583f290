package kineto

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/internal/gen/kinetogen"
)

// oneLoop reads traceEvents in one loop; splitIn splits it into chunks of
// n bytes, whatever the input's size and the cores.
var oneLoop = config{bufSize: 1 << 16, logRecords: 1 << 10, split: splitNever}

func splitIn(n int64, workers int) config {
	return config{bufSize: 1 << 16, logRecords: 1 << 10, split: splitAlways, chunk: n, workers: workers}
}

// readBoth reads data in one loop and split with cfg: the whole result
// must be the same — every dispatch the sink was given, in order, the
// capture (tables, gaps, inventory, notes) and the tables. It returns the
// chunks used and missed.
func readBoth(t testing.TB, data string, opts *format.Options, cfg config) (used, missed int64) {
	t.Helper()
	want := readWith(t, data, opts, oneLoop)
	u0, m0 := splitUsed.Load(), splitMissed.Load()
	got := readWith(t, data, opts, cfg)
	used, missed = splitUsed.Load()-u0, splitMissed.Load()-m0
	if d := diffResults(got, want); d != "" {
		t.Fatalf("chunks of %d bytes: split read vs one loop (got vs want): %s", cfg.chunk, d)
	}
	if i := firstDiff(got.disp, want.disp); i >= 0 {
		t.Fatalf("chunks of %d bytes: dispatch %d: got %+v, want the one loop's %+v", cfg.chunk, i, got.disp[i], want.disp[i])
	}
	if !reflect.DeepEqual(got.c, want.c) {
		t.Fatalf("chunks of %d bytes: got capture\n%+v\nwant the one loop's\n%+v", cfg.chunk, got.c, want.c)
	}
	if !reflect.DeepEqual(got.tables, want.tables) {
		t.Fatalf("chunks of %d bytes: got tables that differ from the one loop's, want the same", cfg.chunk)
	}
	return used, missed
}

// firstDiff is the index of the first dispatch of a that b's differs from
// (both of the same length), or -1.
func firstDiff(a, b []capture.Dispatch) int {
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			return i
		}
	}
	return -1
}

// Every sample reads the same split as in one loop, chunk boundaries
// falling everywhere (tiny chunks for the small samples).
func TestSplitSamples(t *testing.T) {
	for _, path := range samples(t) {
		data := string(decompress(t, path))
		chunks := []int64{64, 97, 300, 1000, 4096}
		if len(data) > 2<<20 {
			chunks = []int64{4096, 65536, splitChunk}
			if testing.Short() {
				chunks = chunks[1:]
			}
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			var used int64
			for i, n := range chunks {
				u, _ := readBoth(t, data, nil, splitIn(n, 1+i%3))
				used += u
			}
			if used == 0 && strings.Count(data, "\n") > 10 {
				t.Errorf("no chunk's batch was used: got 0, want the events parsed on the workers")
			}
		})
	}
}

// A generated trace, whole, cut, malformed, with elements that are not
// events and with keys after traceEvents, reads the same split.
func TestSplitGenerated(t *testing.T) {
	var b bytes.Buffer
	if _, err := kinetogen.Write(&b, kinetogen.Config{Seed: 5, TargetBytes: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	data := b.String()
	for _, d := range []string{
		data,
		data[:len(data)/2], // cut
		data[:len(data)/3] + `"x": 1}` + data[len(data)/3:],          // malformed
		strings.Replace(data, "\n  {", "\n  7, \"x\", [],\n  {", 50), // not events
		strings.Replace(data, `"traceEvents": [`, `"traceEvents": [7, `, 1),
		strings.TrimRight(data, "}\n ") + `, "baseTimeNanoseconds": 1751410836000000000, "traceEvents": [{"ph": "X"}]}`,
		data + "\n{} trailing",
	} {
		for _, n := range []int64{200, 4096, 100000} {
			if used, _ := readBoth(t, d, nil, splitIn(n, 2)); used == 0 {
				t.Fatalf("chunks of %d: got no batch used, want the workers' events", n)
			}
		}
	}
}

// The guess of a chunk's start is wrong when a line begins with '{' inside
// an event: in a string with a raw newline (read leniently), or a nested
// object. Its batch, parsed from there, is thrown away and the one loop
// reads the chunk: the result is the one loop's.
func TestSplitMisguess(t *testing.T) {
	inner := kernel("bogus", "99", "5000", "7") // what a worker would parse
	for name, ev := range map[string]string{
		// What follows the newline parses as empty events up to the
		// string's end.
		"raw newline in a string": `{"ph": "X", "cat": "cpu_op", "name": "op` + "\n" + `{}, {}, {},` + "\n" + `{}", "pid": 1, "tid": 1, "ts": 10, "dur": 1}`,
		"nested object":           `{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 30, "dur": 2, "args": {"correlation": 3, "x": [` + "\n" + inner + ",\n" + inner + "]}}",
		"nested, kernel args":     `{"ph": "X", "cat": "kernel", "name": "n", "pid": 0, "tid": 7, "ts": 40, "dur": 2, "args": {"x":` + "\n" + `{"correlation": 1}, "correlation": 4}}`,
	} {
		t.Run(name, func(t *testing.T) {
			var evs []string
			for i := range 12 {
				corr := fmt.Sprint(i + 10)
				evs = append(evs, call("cudaLaunchKernel", corr, fmt.Sprint(100*i+1), "1"), kernel(fmt.Sprintf("k%d", i), corr, fmt.Sprint(100*i+50), "5"))
				if i%4 == 1 {
					evs = append(evs, ev)
				}
			}
			data := trace(evs)
			var missed int64
			for n := int64(16); n < 700; n += 7 {
				_, m := readBoth(t, data, nil, splitIn(n, 2))
				missed += m
			}
			if missed == 0 {
				t.Fatal("no chunk's start was guessed wrong: got 0 missed, want some (the test does not test the check)")
			}
		})
	}
}

// A small file cut at every byte reads the same split as in one loop: the
// same stop, at the same offset, with the same events before it.
func TestSplitCutEverywhere(t *testing.T) {
	var evs []string
	for i := range 6 {
		corr := fmt.Sprint(i + 1)
		evs = append(evs, call("cudaLaunchKernel", corr, fmt.Sprint(100*i+1), "1"), kernel(fmt.Sprintf("k%d", i), corr, fmt.Sprint(100*i+50), "5"), cpuOp("op", fmt.Sprint(100*i+2), "1"))
	}
	data := trace(evs)
	step := 1
	if testing.Short() {
		step = 7
	}
	for n := 0; n < len(data); n += step {
		readBoth(t, data[:n], nil, splitIn([]int64{50, 333}[n%2], 2))
	}
}

// A long event crossing many chunks, and strings cut at capture.MaxName
// inside chunks, read the same split.
func TestSplitLongEvents(t *testing.T) {
	long := strings.Repeat("x", capture.MaxName+500)
	evs := []string{
		kernel(long, "1", "10", "1"),
		call("cudaLaunchKernel", "1", "5", "1"),
		`{"ph": "X", "cat": "cpu_op", "name": "big", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"pad": "` + strings.Repeat("y", 9000) + `"}}`,
		kernel("k"+long, "2", "20", "1"),
		call("cudaLaunchKernel", "2", "15", "1"),
	}
	data := trace(evs)
	for _, n := range []int64{64, 500, 2000} {
		readBoth(t, data, nil, splitIn(n, 2))
	}
}

// Collective kernels' args and times written as strings travel with their
// events.
func TestSplitCollectives(t *testing.T) {
	var evs []string
	for i := range 20 {
		corr := fmt.Sprint(i + 1)
		evs = append(evs, call("cudaLaunchKernel", corr, fmt.Sprint(100*i+1), "1"),
			fmt.Sprintf(`{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 7, "ts": "%d.0001", "dur": 2, "args": {"correlation": %s, "Collective name": "allreduce", "In msg nelems": %d, "dtype": "Float", "Process Group Name": "pg%d", "Seq": %d}}`, 100*i+50, corr, 1000+i, i%3, i))
	}
	data := `{"distributedInfo": {"rank": 3},` + trace(evs)[1:]
	for _, n := range []int64{64, 400, 1500} {
		readBoth(t, data, nil, splitIn(n, 3))
	}
}

// A tally block before traceEvents is read back while the events are
// parsed, and host ops (--by op) read their args into the reader's tables:
// both read in one loop, with the same result.
func TestSplitNotWith(t *testing.T) {
	for _, data := range []string{
		tallyTrace(tallyBlockV2, tallyEvents),
		tallyTrace("", tallyEvents, `"tally": `+tallyBlockV2), // after: split
	} {
		for _, n := range []int64{32, 200} {
			readBoth(t, data, nil, splitIn(n, 2))
		}
	}
	var b bytes.Buffer
	if _, err := kinetogen.Write(&b, kinetogen.Config{Seed: 3, TargetBytes: 200 << 10}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{500, 4096} {
		if used, _ := readBoth(t, b.String(), &format.Options{Ops: true}, splitIn(n, 2)); used != 0 {
			t.Fatalf("host ops: got %d chunks split, want none", used)
		}
	}
}

// An event whose times are written as strings (or rounded) more often than
// a batch counts per event (a repeated key) is left to the one loop.
func TestSplitRepeatedTimes(t *testing.T) {
	for _, v := range []string{`"5"`, `5.0001`} {
		many := strings.Repeat(`"ts": `+v+`, `, 1<<16+3)
		data := trace([]string{kernel("a", "1", "2", "1"), `{"ph": "X", "cat": "kernel", "name": "k", ` + many + `"dur": 1, "pid": 0, "tid": 7, "args": {"correlation": 2}}`, kernel("b", "3", "9", "1")})
		readBoth(t, data, nil, splitIn(1<<20, 2))
	}
}

// An input handed over part read is split only from its start: offsets
// into it would not be the scanner's. Such a reader reads in one loop.
func TestSplitReaderNotAtStart(t *testing.T) {
	data := trace([]string{call("cudaLaunchKernel", "1", "10", "1"), kernel("k", "1", "20", "5"), kernel("l", "2", "30", "5")})
	want := readWith(t, data, nil, oneLoop)
	const junk = "0123456789\n"
	src := strings.NewReader(junk + data)
	if _, err := src.Seek(int64(len(junk)), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	var col capture.Collect
	u0 := splitUsed.Load()
	c, err := readFrom(src, "test.json", &format.Options{}, &col, splitIn(40, 2))
	if err != nil {
		t.Fatal(err)
	}
	if splitUsed.Load() != u0 {
		t.Errorf("got %d chunks split, want none", splitUsed.Load()-u0)
	}
	if len(col.Dispatches) != len(want.disp) || gapText(c) != gapText(want.c) {
		t.Fatalf("got %d dispatches, gaps\n%s\nwant %d, gaps\n%s", len(col.Dispatches), gapText(c), len(want.disp), gapText(want.c))
	}
}

// Read splits a large plain file on more than one core, and reads it on
// one core, gzipped, or while another Kineto read runs (a directory of
// ranks, read one per core) in one loop; every way gives the same.
func TestReadSplits(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 20 MiB trace")
	}
	var b bytes.Buffer
	if _, err := kinetogen.Write(&b, kinetogen.Config{Seed: 7, TargetBytes: splitMinBytes + 4<<20}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "big.json")
	if err := os.WriteFile(plain, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "big.json.gz")
	if err := os.WriteFile(gz, fixture.Gzip(t, b.Bytes()), 0o644); err != nil {
		t.Fatal(err)
	}
	type read struct {
		c    *capture.Capture
		disp []capture.Dispatch
	}
	var want *read
	for _, tc := range []struct {
		path  string
		procs int
		other bool // another Kineto read runs
		split bool
	}{{plain, 1, false, false}, {plain, 2, false, true}, {gz, 2, false, false}, {plain, 2, true, false}} {
		prev := runtime.GOMAXPROCS(tc.procs)
		if tc.other {
			reads.Add(1)
		}
		var col capture.Collect
		u0 := splitUsed.Load()
		c, err := format.ReadFile(tc.path, Name, &format.Options{}, &col)
		runtime.GOMAXPROCS(prev)
		if tc.other {
			reads.Add(-1)
		}
		if err != nil {
			t.Fatal(err)
		}
		if split := splitUsed.Load() > u0; split != tc.split {
			t.Errorf("%s, GOMAXPROCS=%d, another read %v: got split %v, want %v", filepath.Base(tc.path), tc.procs, tc.other, split, tc.split)
		}
		c.Source = capture.Source{}
		got := &read{c, col.Dispatches}
		if want == nil {
			want = got
			continue
		}
		if !reflect.DeepEqual(got.disp, want.disp) {
			t.Errorf("%s, GOMAXPROCS=%d: got %d dispatches, want the one loop's %d", filepath.Base(tc.path), tc.procs, len(got.disp), len(want.disp))
		}
		if !reflect.DeepEqual(got.c, want.c) {
			t.Errorf("%s, GOMAXPROCS=%d: got capture\n%+v\nwant the one loop's\n%+v", filepath.Base(tc.path), tc.procs, got.c, want.c)
		}
	}
	if reads.Load() != 0 {
		t.Fatalf("got %d reads still counted as running, want 0", reads.Load())
	}
}

// A fatal error of handle (a spill file that cannot be written) ends a
// split read with that error, its workers stopped.
func TestSplitFatal(t *testing.T) {
	var b bytes.Buffer
	if _, err := kinetogen.Write(&b, kinetogen.Config{Seed: 2, TargetBytes: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	g0 := runtime.NumGoroutine()
	r := newReader(strings.NewReader(b.String()), "t.json", byAnnotation, 1<<16, 4, t.TempDir())
	r.src, r.split, r.chunk, r.workers = strings.NewReader(b.String()), splitAlways, 4096, 3
	f, err := os.Open(os.DevNull) // read-only: every write fails
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r.log.file.f, r.log.file.w = f, bufio.NewWriterSize(f, 64)
	err = r.scan()
	if err == nil || !strings.Contains(err.Error(), "writing the temporary spill file") {
		t.Fatalf("got scan error %v, want the spill file's write error", err)
	}
	if g := runtime.NumGoroutine(); g > g0 {
		t.Fatalf("got %d goroutines after the read, want at most %d: workers left running", g, g0)
	}
}

// FuzzSplit reads arbitrary input in one loop and split into chunks of a
// size the input picks: the results must be the same.
//
//	go test -run '^$' -fuzz FuzzSplit ./format/kineto/
func FuzzSplit(f *testing.F) {
	inner := kernel("bogus", "99", "5000", "7")
	f.Add(uint16(40), []byte(trace([]string{call("cudaLaunchKernel", "1", "10", "1"), kernel("k", "1", "20", "5"), cpuOp("x", "1", "1")})))
	f.Add(uint16(30), []byte(trace([]string{kernel("a", "1", "20", "5"), `{"ph": "X", "cat": "cpu_op", "name": "op` + "\n" + inner + `"}`, kernel("b", "2", "30", "5")})))
	f.Add(uint16(25), []byte(trace([]string{kernel("a", "1", "20", "5"), `{"ph": "X", "args": {"x": [` + "\n" + inner + `]}}`, kernel("b", "2", "30", "5")})))
	f.Add(uint16(20), []byte("[\n{\"ph\": \"X\"},\n7,\n{\"ph\": \"X\", \"cat\": \"kernel\"}\n"))
	for _, name := range []string{"hta__triton_example", "hta__cuda_event_sync"} {
		f.Add(uint16(100), decompress(f, "testdata/"+name+".json.gz"))
	}
	f.Fuzz(func(t *testing.T, chunk uint16, data []byte) {
		read := func(cfg config) (*capture.Capture, []capture.Dispatch, error) {
			var col capture.Collect
			cfg.bufSize, cfg.logRecords = 64, 3
			c, err := readFrom(bytes.NewReader(data), "fuzz.json", &format.Options{}, &capture.Checked{Next: &col}, cfg)
			return c, col.Dispatches, err
		}
		wc, wd, werr := read(config{split: splitNever})
		gc, gd, gerr := read(config{split: splitAlways, chunk: int64(chunk%2048) + 1, workers: 2})
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("got error %v split, want %v", gerr, werr)
		}
		if werr != nil {
			return
		}
		if len(gd) != len(wd) {
			t.Fatalf("got %d dispatches split, want the one loop's %d", len(gd), len(wd))
		}
		if i := firstDiff(gd, wd); i >= 0 {
			t.Fatalf("dispatch %d: got %+v split, want the one loop's %+v", i, gd[i], wd[i])
		}
		if g, w := gapText(gc), gapText(wc); g != w {
			t.Fatalf("got gaps split\n%s\nwant the one loop's\n%s", g, w)
		}
		if !reflect.DeepEqual(gc, wc) {
			t.Fatalf("got capture split\n%+v\nwant\n%+v", gc, wc)
		}
	})
}

// Data after the document is counted whole, however far the buffers had
// read when the document ended (a split read jumps, so its buffers end
// elsewhere): in one loop and split, the same count.
func TestTrailingBytesCounted(t *testing.T) {
	data := trace([]string{kernel("k", "1", "20", "5")}) + " garbage" + strings.Repeat("x", 5000)
	for _, cfg := range []config{{bufSize: 64, logRecords: 4, split: splitNever}, oneLoop, splitIn(100, 2)} {
		r := readWith(t, data, nil, cfg)
		if got := r.c.Accounting.InputFor("bytes").Read; got != int64(len(data)) {
			t.Errorf("buffer %d, split %v: got %d bytes read, want the input's %d", cfg.bufSize, cfg.split, got, len(data))
		}
	}
}
