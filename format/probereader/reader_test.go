package probereader

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/internal/probefile"
)

// samples are files the probe package wrote: testdata/PROVENANCE.md.
var samples = []string{"testdata/matmul.probe", "testdata/killed.probe"}

func sample(t testing.TB, name string) []byte {
	b := fixture.Read(t, name)
	return b
}

// readBytes reads data through format.ReadInput, so the model checks run.
func readBytes(t testing.TB, data []byte) (*capture.Capture, []capture.Dispatch, error) {
	var all capture.Collect
	c, err := format.ReadInput(format.BytesInput("test.probe", data), Name, nil, &all)
	return c, all.Dispatches, err
}

// readOK is readBytes for an input that must read: an error ends the test.
func readOK(t testing.TB, data []byte) (*capture.Capture, []capture.Dispatch) {
	t.Helper()
	c, ds, err := readBytes(t, data)
	if err != nil {
		t.Fatalf("read: got %v, want no error", err)
	}
	return c, ds
}

// builder writes records by hand, for inputs the probe package never writes.
type builder struct{ b []byte }

func newBuilder(families uint32) *builder {
	return &builder{b: probefile.AppendHeader(nil, families, 0, 1_700_000_000_000_000_000)}
}

func (b *builder) rec(typ byte, body ...[]byte) *builder {
	n := 0
	for _, p := range body {
		n += len(p)
	}
	b.b = probefile.AppendRecord(b.b, typ, n)
	for _, p := range body {
		b.b = append(b.b, p...)
	}
	return b
}

func u32(v uint32) []byte { return appendLE(nil, uint64(v), 4) }
func u64(v uint64) []byte { return appendLE(nil, v, 8) }
func s(v string) []byte   { return append(u32(uint32(len(v))), v...) }

func appendLE(b []byte, v uint64, n int) []byte {
	for i := 0; i < n; i++ {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

// defs: program 0 "p", kernel 0 "k", queue 0 "q".
func (b *builder) defs() *builder {
	return b.rec(probefile.TypeProgram, u32(0), s("p")).
		rec(probefile.TypeKernel, u32(0), u32(0), s("k")).
		rec(probefile.TypeQueue, u32(0), s("q"), s("dev"))
}

func (b *builder) events(kernel uint32, pairs ...int64) *builder {
	body := [][]byte{u32(0), u32(uint32(len(pairs) / 2))}
	for i := 0; i+1 < len(pairs); i += 2 {
		body = append(body, u32(kernel), u64(uint64(pairs[i])), u64(uint64(pairs[i+1])))
	}
	return b.rec(probefile.TypeEvents, body...)
}

func (b *builder) end(launches, recorded, dropped uint64) *builder {
	return b.rec(probefile.TypeEnd, u64(100), u64(launches), u64(recorded), u64(dropped), u32(0), u32(0), u32(0), u32(0))
}

func TestSamples(t *testing.T) {
	c, ds := readOK(t, sample(t, "testdata/matmul.probe"))
	if len(ds) != 160 || !c.Accounting.Complete() || len(c.Programs) != 2 || len(c.Queues) != 4 {
		t.Fatalf("got %d dispatches, %d programs, %d queues, gaps %+v; want 160, 2, 4 and complete", len(ds), len(c.Programs), len(c.Queues), c.Accounting.Gaps)
	}
	c, ds = readOK(t, sample(t, "testdata/killed.probe"))
	if len(ds) != 98 || c.Accounting.CountOf(capture.UnfinishedDispatch) != 2 || c.Accounting.CountOf(capture.UnfinalizedCapture) != 1 {
		t.Fatalf("got %d dispatches, gaps %+v; want 98, 2 unfinished_dispatch and 1 unfinalized_capture", len(ds), c.Accounting.Gaps)
	}
	// Each unfinished dispatch names the queue it was in flight on, so a
	// timeline draws it there: killed.probe has one in flight on cpu0 and
	// one on cpu2 at their last checkpoints.
	var on []string
	for _, g := range c.Accounting.Gaps {
		if g.Kind != capture.UnfinishedDispatch {
			continue
		}
		for _, it := range g.Items {
			if it.Queue == nil {
				t.Fatalf("unfinished %s: got no queue, want its queue", it.Kernel)
			}
			on = append(on, c.Queues[*it.Queue].Name)
		}
	}
	sort.Strings(on)
	if strings.Join(on, ",") != "cpu0,cpu2" {
		t.Errorf("unfinished dispatches on queues %v, want cpu0 and cpu2", on)
	}
}

// TestCutEverywhere cuts every sample at every byte: inside the header it is
// a positioned error; after it, a capture that is never complete and says
// why (a cut record, or no end record).
func TestCutEverywhere(t *testing.T) {
	for _, name := range samples {
		data := sample(t, name)
		for n := 1; n < len(data); n++ {
			c, _, err := readBytes(t, data[:n])
			if n < probefile.HeaderLen {
				var fe *format.Error
				if !errors.As(err, &fe) {
					t.Fatalf("%s cut at %d: got %v, want a *format.Error", name, n, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s cut at %d: got error %v, want none", name, n, err)
			}
			if c.Accounting.Complete() {
				t.Fatalf("%s cut at %d: got complete, want incomplete", name, n)
			}
			if c.Accounting.CountOf(capture.TruncatedInput)+c.Accounting.CountOf(capture.UnfinalizedCapture) == 0 {
				t.Fatalf("%s cut at %d: got neither truncated_input nor unfinalized_capture, want one", name, n)
			}
		}
	}
}

func TestSkippedRecords(t *testing.T) {
	b := newBuilder(probefile.FamilyDispatchEvents).defs().
		events(0, 10, 20, 30, 25).                         // the second one runs backwards
		events(7, 1, 2).                                   // an undefined kernel
		rec(99, []byte("future")).                         // an unknown record type
		rec(probefile.TypeEvents, u32(0), u32(5), u64(1)). // count and length disagree
		end(4, 3, 0).
		events(0, 40, 50) // after the end
	c, ds := readOK(t, b.b)
	if len(ds) != 1 {
		t.Fatalf("got %d dispatches, want 1", len(ds))
	}
	ev := c.Accounting.InputFor("dispatch events")
	if ev.Read != 3 || ev.Used != 1 || ev.SkippedTotal() != 2 {
		t.Fatalf("got events %+v, want 3 read, 1 used, 2 skipped", ev)
	}
	rec := c.Accounting.InputFor("records")
	if rec.Read != 9 || rec.SkippedTotal() != 3 {
		t.Fatalf("got records %+v %v, want 9 read, 3 skipped", rec, rec.Skipped)
	}
	// Each skipped record or event may have held dispatches: the event of
	// an undefined kernel, the unknown record, the malformed one and the
	// one after the end are skipped_input items, the reversed event an
	// invalid_event; none is a bare count.
	if c.Accounting.CountOf(capture.InvalidEvent) != 1 || c.Accounting.CountOf(capture.SkippedInput) != 4 {
		t.Fatalf("got gaps %+v, want 1 invalid_event and 4 skipped_input", c.Accounting.Gaps)
	}
	for _, in := range []*capture.InputCount{ev, rec, c.Accounting.InputFor("bytes")} {
		for _, sk := range in.Skipped {
			if sk.Class != capture.DeviceWorkLost || sk.Gap == "" {
				t.Errorf("%s skipped (%s): class %s, gap %q; want device_work_lost with its gap", in.Unit, sk.Reason, sk.Class, sk.Gap)
			}
		}
	}
}

// A length field beyond the format's limit allocates nothing: the rest of
// the file is counted as skipped.
func TestCorruptLength(t *testing.T) {
	b := newBuilder(probefile.FamilyDispatchEvents).defs().events(0, 1, 2)
	b.b = probefile.AppendRecord(b.b, probefile.TypeEvents, probefile.MaxBody+1)
	b.b = append(b.b, "tail"...)
	c, ds, err := readBytes(t, b.b)
	if err != nil || len(ds) != 1 {
		t.Fatalf("got %v %d, want no error and 1 dispatch", err, len(ds))
	}
	by := c.Accounting.InputFor("bytes")
	if by.Read != int64(len(b.b)) || by.SkippedTotal() != 9 {
		t.Fatalf("got %+v, want all %d bytes read, 9 skipped", by, len(b.b))
	}
}

func TestNothingRecordedSaysSo(t *testing.T) {
	b := newBuilder(probefile.FamilyDispatchEvents).defs().end(5, 0, 0)
	c, _ := readOK(t, b.b)
	g := c.Accounting.Find(capture.EmptyCapture)
	if g == nil || !strings.Contains(g.Summary, "asked for dispatch events") || !strings.Contains(g.Summary, "5 launches") {
		t.Fatalf("got gaps %+v, want an empty_capture saying dispatch events were asked for, 5 launches", c.Accounting.Gaps)
	}
	b = newBuilder(probefile.FamilySummaries).defs().end(5, 5, 0)
	c, _, _ = readBytes(t, b.b)
	if g := c.Accounting.Find(capture.EmptyCapture); g == nil || !strings.Contains(g.Summary, "no summary written") {
		t.Fatalf("got gaps %+v, want an empty_capture saying no summary written", c.Accounting.Gaps)
	}
}

func TestHeaderErrors(t *testing.T) {
	for name, data := range map[string][]byte{
		"magic":   []byte("NOTPROBE" + strings.Repeat("\x00", 24)),
		"version": append([]byte(probefile.Magic), 2, 0, 32, 0, 0, 0),
		"short":   []byte(probefile.Magic + "\x01\x00"),
	} {
		_, _, err := readBytes(t, data)
		var fe *format.Error
		if !errors.As(err, &fe) || fe.Offset < 0 {
			t.Errorf("%s: got %v, want a *format.Error with an offset", name, err)
		}
	}
	if Sniff([]byte(probefile.Magic)) != format.Certain || Sniff([]byte("TLYPROB")) != format.No {
		t.Fatal("sniff: got the magic not Certain or a short prefix not No, want both")
	}
}

// With dispatch events, summaries add nothing to the tables: a file whose
// every event was skipped is empty even when it holds summary records.
func TestEveryEventSkippedDespiteSummaries(t *testing.T) {
	b := newBuilder(probefile.FamilyDispatchEvents|probefile.FamilySummaries).defs().
		events(0, 30, 25). // runs backwards: skipped
		rec(probefile.TypeSummary, u32(1), u64(40), u32(0), u64(1), u64(1), u64(5)).
		end(1, 1, 0)
	c, ds := readOK(t, b.b)
	if len(ds) != 0 {
		t.Fatalf("got %d dispatches, want 0", len(ds))
	}
	if g := c.Accounting.Find(capture.EmptyCapture); g == nil || !strings.Contains(g.Summary, "every event was skipped") {
		t.Fatalf("got gaps %+v, want an empty_capture saying every event was skipped", c.Accounting.Gaps)
	}
}

// A summaries-only file is tabled from its summaries; an events record in
// it (a corrupt header or a foreign writer) is skipped as malformed, never
// counted on top of the summaries that already stand for its dispatches.
func TestEventsInSummariesOnlyFile(t *testing.T) {
	b := newBuilder(probefile.FamilySummaries).defs().
		events(0, 10, 20).
		rec(probefile.TypeSummary, u32(1), u64(40), u32(0), u64(1), u64(1), u64(10)).
		end(1, 1, 0)
	c, ds := readOK(t, b.b)
	var n int64
	for _, d := range ds {
		if d.Aggregate != nil {
			n += d.Aggregate.Count
		} else {
			n++
		}
	}
	if n != 1 || c.Accounting.CountOf(capture.SkippedInput) != 1 {
		t.Fatalf("got %d dispatches counted, gaps %+v; want 1 and one skipped_input", n, c.Accounting.Gaps)
	}
}
