package probereader

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/probefile"
)

// Counts taken from the file are clamped and summed saturating: a corrupt
// or absurd one never wraps a total negative (or to zero), and never hides
// dispatches.
func TestCountsSaturate(t *testing.T) {
	t.Run("summary counts", func(t *testing.T) {
		// 1024 summaries of 2^53 dispatches sum to 2^63, past int64.
		b := newBuilder(probefile.FamilySummaries).defs()
		for i := 0; i < 1024; i++ {
			b.rec(probefile.TypeSummary, u32(1), u64(40), u32(0), u64(1), u64(1<<53), u64(10))
		}
		// A count past int64 is clamped, not read as negative and dropped.
		b.rec(probefile.TypeSummary, u32(1), u64(40), u32(0), u64(1), u64(math.MaxUint64), u64(10))
		c, ds := readOK(t, b.end(1, 1, 0).b)
		if g := c.Accounting.Find(capture.EmptyCapture); g != nil {
			t.Errorf("got empty_capture: %s, want none", g.Summary)
		}
		if len(ds) != 1025 || ds[1024].Aggregate == nil || ds[1024].Aggregate.Count != maxCount {
			t.Errorf("got %d aggregates, last %+v; want 1025, the last clamped to %d", len(ds), ds[len(ds)-1].Aggregate, int64(maxCount))
		}
	})
	t.Run("end record", func(t *testing.T) {
		b := newBuilder(probefile.FamilyDispatchEvents).defs().end(math.MaxUint64, math.MaxUint64, math.MaxUint64)
		c, _ := readOK(t, b.b)
		g := c.Accounting.Find(capture.EmptyCapture)
		if g == nil || strings.Contains(g.Summary, "-") {
			t.Errorf("got empty_capture %+v, want one with no negative number", g)
		}
		if g := c.Accounting.Find(capture.DroppedRecords); g == nil || g.Count != maxCount {
			t.Errorf("got dropped_records %+v, want %d", g, int64(maxCount))
		}
	})
	t.Run("dropped over queues", func(t *testing.T) {
		// 2048 queues each dropping 2^53 sum to 2^64: wrapped, zero.
		b := newBuilder(probefile.FamilyDispatchEvents).defs()
		for q := uint32(1); q <= 2048; q++ {
			b.rec(probefile.TypeQueue, u32(q), s(fmt.Sprint("q", q)), s("dev"))
			b.rec(probefile.TypeCheckpoint, u64(50), u32(q), u64(0), u64(math.MaxUint64), u32(0))
		}
		c, _ := readOK(t, b.b)
		g := c.Accounting.Find(capture.DroppedRecords)
		if g == nil || g.Count != math.MaxInt64 {
			t.Fatalf("got dropped_records %+v, want %d", g, int64(math.MaxInt64))
		}
		if v, _ := g.Figure("dropped_dispatches"); v != math.MaxInt64 {
			t.Errorf("got dropped_dispatches %d, want %d", v, int64(math.MaxInt64))
		}
	})
}
