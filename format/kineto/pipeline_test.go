package kineto

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/gen/kinetogen"
)

// samePiped fails unless reading data on two goroutines (batches of each
// size) gives what one loop gives: dispatches, tables, gaps, inventory.
func samePiped(t testing.TB, data string, batches ...int) {
	t.Helper()
	want := readWith(t, data, nil, defaultConfig)
	for _, n := range batches {
		cfg := defaultConfig
		cfg.pipeline, cfg.batchLen = true, n
		got := readWith(t, data, nil, cfg)
		if d := diffResults(want, got); d != "" {
			t.Fatalf("batches of %d: the pipeline changes the result: %s", n, d)
		}
		if !reflect.DeepEqual(want.c.Inventory, got.c.Inventory) {
			t.Fatalf("batches of %d: the pipeline changes the inventory:\n%v\nvs\n%v", n, got.c.Inventory, want.c.Inventory)
		}
	}
}

// Every sample, a generated trace, and cut and malformed ones (the stop
// mid-array drains the pipe) read the same on two goroutines as in one
// loop. go test -race checks that the two halves share nothing else.
func TestPipelineSame(t *testing.T) {
	for _, path := range samples(t) {
		if testing.Short() && strings.Contains(path, "mtia") {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) { samePiped(t, string(decompress(t, path)), 1, 3, batchLen) })
	}
	var b bytes.Buffer
	if _, err := kinetogen.Write(&b, kinetogen.Config{Seed: 5, TargetBytes: 2 << 20}); err != nil {
		t.Fatal(err)
	}
	data := b.String()
	samePiped(t, data, 7, batchLen)
	samePiped(t, data[:len(data)/2], 7)                                                           // cut
	samePiped(t, data[:len(data)/3]+`"x": 1}`+data[len(data)/3:], 7)                              // malformed
	samePiped(t, strings.Replace(data, `"traceEvents": [`, `"traceEvents": [7, "x", [], `, 1), 2) // elements that are not events
}

// A fatal error of the handling goroutine (a spill file that cannot be
// written) ends the read with that error, as in one loop.
func TestPipelineFatal(t *testing.T) {
	var b bytes.Buffer
	if _, err := kinetogen.Write(&b, kinetogen.Config{Seed: 2, TargetBytes: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	for _, piped := range []bool{false, true} {
		r := newReader(strings.NewReader(b.String()), "t.json", byAnnotation, 1<<16, 4, t.TempDir())
		r.pipeline, r.batchLen = piped, 16
		f, err := os.Open(os.DevNull) // read-only: every write fails
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r.log.f, r.log.w = f, bufio.NewWriterSize(f, 64)
		err = r.scan()
		if err == nil || !strings.Contains(err.Error(), "writing the temporary spill file") {
			t.Fatalf("pipeline %v: scan error %v, want the spill file's write error", piped, err)
		}
	}
}

// BenchmarkReadBigPiped is BenchmarkReadBig with traceEvents parsed and
// handled on two goroutines: run both with -cpu 2 (and 1) to compare.
//
//	TALLY_KINETO_BIG=FILE go test -run '^$' -bench 'ReadBig' -cpu 1,2 ./format/kineto/
func BenchmarkReadBigPiped(b *testing.B) {
	path := os.Getenv("TALLY_KINETO_BIG")
	if path == "" {
		b.Skip("set TALLY_KINETO_BIG to a generated trace")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		in, err := format.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		src, err := in.Reader()
		if err != nil {
			b.Fatal(err)
		}
		cfg := defaultConfig
		cfg.pipeline = true
		if _, err := readFrom(src, path, &format.Options{}, nil, cfg); err != nil {
			b.Fatal(fmt.Errorf("%s: %w", path, err))
		}
		in.Close()
	}
	reportCPU(b, cpu0, st.Size())
}

// Read takes the pipeline (and reads ahead) for a large plain file on two
// cores, and gives what one loop gives.
func TestReadPiped(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 20 MiB trace")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var b bytes.Buffer
	if _, err := kinetogen.Write(&b, kinetogen.Config{Seed: 7, TargetBytes: pipeMinBytes * 5 / 4}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := readWith(t, b.String(), nil, defaultConfig)
	var col capture.Collect
	before := pipes.Load()
	c, err := format.ReadFile(path, Name, &format.Options{}, &col)
	if pipes.Load() != before+1 {
		t.Fatalf("%d pipes started for a %d-byte plain file on two cores, want 1", pipes.Load()-before, b.Len())
	}
	if err != nil {
		t.Fatal(err)
	}
	got := &result{c: c, disp: col.Dispatches}
	if len(got.disp) != len(want.disp) || gapText(got.c) != gapText(want.c) || !reflect.DeepEqual(got.c.Inventory, want.c.Inventory) {
		t.Fatalf("a piped read of a file differs: %d vs %d dispatches, gaps\n%s\nvs\n%s", len(got.disp), len(want.disp), gapText(got.c), gapText(want.c))
	}
	if reads.Load() != 0 {
		t.Fatalf("%d reads still counted as running", reads.Load())
	}
}
