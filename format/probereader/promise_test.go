package probereader

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/probefile"
)

func (b *builder) checkpoint(recorded uint64) *builder {
	return b.rec(probefile.TypeCheckpoint, u64(50), u32(0), u64(recorded), u64(0), u32(0))
}

// An event naming a kernel (or queue) the file never defined ran and
// cannot be named: it is lost, listed in skipped_input, and the capture is
// incomplete — never a complete report with one dispatch fewer.
func TestUndefinedKernelOrQueue(t *testing.T) {
	b := newBuilder(probefile.FamilyDispatchEvents).defs().
		events(0, 10, 20).
		events(7, 30, 40).
		rec(probefile.TypeEvents, u32(9), u32(1), u32(0), u64(50), u64(60)).
		end(3, 3, 0)
	c, ds := readOK(t, b.b)
	g := c.Accounting.Find(capture.SkippedInput)
	if len(ds) != 1 || g == nil || g.Count != 2 || c.Accounting.Complete() {
		t.Fatalf("%d dispatches, skipped_input %+v; want 1 and 2", len(ds), g)
	}
	if !strings.Contains(g.Items[0].What, "kernel #7, which the file never defined") || !strings.Contains(g.Items[1].What, "queue #9, which the file never defined") {
		t.Errorf("got items %+v, want kernel #7 and queue #9, which the file never defined", g.Items)
	}
	ev := c.Accounting.InputFor("dispatch events")
	if ev.LostTotal() != 2 || ev.Skipped[0].Gap != capture.SkippedInput {
		t.Errorf("got dispatch events %+v %+v, want 2 lost to skipped_input", ev, ev.Skipped[0])
	}
}

// Identity: an events record repeating its queue's previous one, or an
// event repeating its queue's previous event, is a duplicate_event counted
// once; the checkpoint that follows then agrees with the file.
func TestRepeatedEvents(t *testing.T) {
	b := newBuilder(probefile.FamilyDispatchEvents).defs().
		events(0, 10, 20, 30, 40).
		events(0, 10, 20, 30, 40). // the record written twice
		checkpoint(2).
		events(0, 50, 60, 50, 60). // one event written twice
		end(3, 3, 0)
	c, ds := readOK(t, b.b)
	if len(ds) != 3 {
		t.Errorf("%d dispatches, want 3", len(ds))
	}
	if n := c.Accounting.CountOf(capture.DuplicateEvent); n != 3 || c.Accounting.Find(capture.InconsistentTrace) != nil || c.Accounting.Complete() {
		t.Errorf("duplicate_event %d, gaps %v; want 3 and no inconsistent_trace", n, gapKinds(c))
	}

	// Not repeats: the next drain starting with another dispatch, and an
	// event of the same kernel and begin with another end.
	b = newBuilder(probefile.FamilyDispatchEvents).defs().
		events(0, 10, 20, 30, 40).
		events(0, 30, 45, 50, 60).
		events(0, 50, 61).
		end(5, 5, 0)
	c, ds, err := readBytes(t, b.b)
	if err != nil || len(ds) != 5 || !c.Accounting.Complete() {
		t.Errorf("distinct events: err %v, %d dispatches, gaps %v; want 5 and complete", err, len(ds), gapKinds(c))
	}
}

// Impossible times: an event ending at the int64 maximum (the ceiling
// holds while the events pass the model check), and summaries whose total
// is negative or whose mean is longer than the ceiling.
func TestImpossibleTimes(t *testing.T) {
	b := newBuilder(probefile.FamilyDispatchEvents).defs().
		events(0, 10, 20, 30, 1<<63-1).
		end(2, 2, 0)
	c, ds, err := readBytes(t, b.b)
	if err != nil || len(ds) != 1 || c.Accounting.CountOf(capture.InvalidEvent) != 1 {
		t.Fatalf("err %v, %d dispatches, gaps %v; want 1 and invalid_event", err, len(ds), gapKinds(c))
	}
	summary := func(completed, total int64) []byte {
		return append(append(append(append(append(u32(1), u64(40)...), u32(0)...), u64(uint64(completed))...), u64(uint64(completed))...), u64(uint64(total))...)
	}
	b = newBuilder(probefile.FamilySummaries).defs().
		rec(probefile.TypeSummary, summary(2, 100)).
		rec(probefile.TypeSummary, summary(1, -5)).
		rec(probefile.TypeSummary, summary(2, 2*int64(capture.MaxDuration)+2)).
		end(5, 5, 0)
	c, ds, err = readBytes(t, b.b)
	if err != nil || len(ds) != 1 || c.Accounting.CountOf(capture.InvalidEvent) != 2 || c.Accounting.CountOf(capture.SkippedInput) != 0 {
		t.Fatalf("err %v, %d records, gaps %v; want 1 record and 2 invalid_event", err, len(ds), gapKinds(c))
	}
	for _, sk := range c.Accounting.InputFor("records").Skipped {
		if sk.Class != capture.DeviceWorkLost || sk.Gap != capture.InvalidEvent {
			t.Errorf("records skipped %+v, want lost to invalid_event", sk)
		}
	}
}

// The bytes of a record cut short are lost with truncated_input.
func TestCutBytesLost(t *testing.T) {
	b := newBuilder(probefile.FamilyDispatchEvents).defs().events(0, 10, 20, 30, 40)
	c, _ := readOK(t, b.b[:len(b.b)-3])
	by := c.Accounting.InputFor("bytes")
	if len(by.Skipped) != 1 || by.Skipped[0].Class != capture.DeviceWorkLost || by.Skipped[0].Gap != capture.TruncatedInput || by.Skipped[0].Count != 50 {
		t.Errorf("bytes %+v %+v, want the 50 bytes read of it lost to truncated_input", by, by.Skipped[0])
	}
}

func gapKinds(c *capture.Capture) []string {
	if c == nil {
		return nil
	}
	var ks []string
	for _, g := range c.Accounting.Gaps {
		ks = append(ks, string(g.Kind))
	}
	return ks
}
