package timeline

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// orderFormat reads "order-test T [rank R]" files: one dispatch at time T,
// on a queue "GPU 0 · stream 7" of rank R when one is given. The
// reader of a file whose T is small waits (bounded) for a reader of another
// file to stream first, the schedule under which parallel reads let a later
// input's epoch time become Chrome's time base.
const orderFormat = "timeline-order-test"

var streamed = make(chan struct{}, 8)

func init() {
	format.Register(format.Format{
		Name:        orderFormat,
		Description: "timeline tests: one dispatch at a given time",
		Sniff:       func([]byte) format.Confidence { return format.No },
		Read: func(in *format.Input, _ *format.Options, sink capture.Sink) (*capture.Capture, error) {
			r, err := in.Reader()
			if err != nil {
				return nil, err
			}
			b, err := io.ReadAll(r)
			if err != nil {
				return nil, err
			}
			fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(string(b)), "order-test "))
			if len(fields) == 0 {
				return nil, format.FileError(in.Path, nil, "", "not an order-test file")
			}
			ts, err := strconv.ParseInt(fields[0], 10, 64)
			if err != nil {
				return nil, format.FileError(in.Path, err, "", "not an order-test file")
			}
			if ts < 1<<52 {
				select {
				case <-streamed:
				case <-time.After(300 * time.Millisecond):
				}
			}
			c := &capture.Capture{Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true}}
			c.Accounting.InputFor("bytes").Read = int64(len(b))
			c.Accounting.InputFor("bytes").Used = int64(len(b))
			p := c.AddProgram(capture.Program{Name: "p", Instances: 1})
			q := capture.NoQueue
			if len(fields) == 3 && fields[1] == "rank" {
				q = c.AddQueue(capture.Queue{Device: "GPU 0", Name: "stream 7", Rank: fields[2]})
			}
			// A name of its own per input, so that interned ids depend on
			// which input is written first.
			k := c.AddKernel(capture.Kernel{Program: p, Name: "k" + strconv.FormatInt(ts, 10), Resolved: true, Category: "kernel"})
			sink.Dispatch(c, &capture.Dispatch{Program: p, Queue: q, Kernel: k, Instance: 0, Index: -1, Ordinal: -1,
				Device: capture.Interval{Begin: ts, End: ts + 10, Valid: true}})
			if ts >= 1<<52 {
				streamed <- struct{}{}
			}
			return c, nil
		},
	})
}

// Chrome's time base is the first time written: the same command must
// write the same file, with the base of the first input in argument order,
// whatever order parallel readers reach their first dispatch in. Read in
// parallel, the epoch-time second input set the base and the first input's
// dispatches were dropped as "before the base" on some runs only.
func TestChromeBaseFollowsArgumentOrder(t *testing.T) {
	dir := t.TempDir()
	boot, epoch := filepath.Join(dir, "boot.t"), filepath.Join(dir, "epoch.t")
	os.WriteFile(boot, []byte("order-test 1000"), 0o644)
	os.WriteFile(epoch, []byte("order-test 1764547200000000000"), 0o644)
	var buf bytes.Buffer
	sum, err := Run([]string{boot, epoch}, &buf, Options{As: Chrome, Format: orderFormat, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stats.Negative != 0 || sum.Stats.Slices != 2 {
		t.Fatalf("got %d slices, %d before the base; want 2 and 0 (the later input set the time base)", sum.Stats.Slices, sum.Stats.Negative)
	}
}

// A Perfetto file of many inputs is written as the parallel readers reach
// them (docs/timeline.md): its bytes may differ between runs, its trace may
// not. Here one run writes the first input first, the other the second
// (its reader waits for the other to stream), and both decode to the same
// tracks, slices and metadata.
func TestPerfettoSameTraceInAnyOrder(t *testing.T) {
	dir := t.TempDir()
	boot, epoch := filepath.Join(dir, "boot.t"), filepath.Join(dir, "epoch.t")
	os.WriteFile(boot, []byte("order-test 1000"), 0o644)
	os.WriteFile(epoch, []byte("order-test 1764547200000000000"), 0o644)
	write := func(workers int) []byte {
		for len(streamed) > 0 {
			<-streamed // a token an earlier read left
		}
		var buf bytes.Buffer
		if _, err := Run([]string{boot, epoch}, &buf, Options{As: Perfetto, Format: orderFormat, Workers: workers}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	inOrder, reversed := write(1), write(2)
	if bytes.Equal(inOrder, reversed) {
		t.Fatal("got both runs writing the inputs in the same order, want different orders: the test compares nothing")
	}
	a, b := decode(t, Perfetto, inOrder), decode(t, Perfetto, reversed)
	for _, d := range []*decoded{a, b} {
		sort.Slice(d.slices, func(i, j int) bool { return d.slices[i].track+d.slices[i].name < d.slices[j].track+d.slices[j].name })
		sort.Slice(d.instants, func(i, j int) bool {
			return d.instants[i].track+d.instants[i].name < d.instants[j].track+d.instants[j].name
		})
	}
	if !reflect.DeepEqual(a.tracks, b.tracks) {
		t.Errorf("tracks differ:\ngot  %v\nwant %v", b.tracks, a.tracks)
	}
	if !reflect.DeepEqual(a.slices, b.slices) {
		t.Errorf("slices differ:\ngot  %+v\nwant %+v", b.slices, a.slices)
	}
	if !reflect.DeepEqual(a.instants, b.instants) {
		t.Errorf("instants differ:\ngot  %+v\nwant %+v", b.instants, a.instants)
	}
	if !reflect.DeepEqual(a.meta, b.meta) {
		t.Errorf("metadata differs:\ngot  %v\nwant %v", b.meta, a.meta)
	}
	if len(a.slices) != 2 {
		t.Errorf("got %d slices, want 2", len(a.slices))
	}
}

// The same command writes the same file: by default the inputs are read
// one at a time in argument order, so when two inputs of one rank both
// have a queue "GPU 0 · stream 7", the first input's track takes the plain
// name and the second's is numbered, every run. Read in parallel, the
// second input here streams first and took the plain name.
func TestSameCommandSameFile(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.t"), filepath.Join(dir, "second.t")
	os.WriteFile(first, []byte("order-test 1000 rank 0"), 0o644)
	os.WriteFile(second, []byte("order-test 1764547200000000000 rank 0"), 0o644)
	var files [][]byte
	for range 2 {
		for len(streamed) > 0 {
			<-streamed
		}
		var buf bytes.Buffer
		if _, err := Run([]string{first, second}, &buf, Options{As: Perfetto, Format: orderFormat}); err != nil {
			t.Fatal(err)
		}
		files = append(files, buf.Bytes())
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("got two runs of the same command writing different files, want the same bytes")
	}
	want := map[string]string{
		"k1000":                "rank 0 · GPU 0 · stream 7",
		"k1764547200000000000": "rank 0 · GPU 0 · stream 7 (2)",
	}
	d := decode(t, Perfetto, files[0])
	for _, s := range d.slices {
		if name, ok := want[s.name]; ok && d.tracks[s.track] != name {
			t.Errorf("slice %s: got track %q, want %q", s.name, d.tracks[s.track], name)
		}
	}
	if len(d.slices) != 2 {
		t.Errorf("got %d slices, want 2", len(d.slices))
	}
}
