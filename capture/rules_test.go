package capture

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// A lost unit must be accounted for by a counted, non-note gap; an
// ignored one needs none; an unclassified one is refused.
func TestSkipClassification(t *testing.T) {
	a, in := oneInput("rows", 5, 2)
	in.Ignore("header row", 1, "line 1")
	g := a.Gap(InvalidEvent, "")
	g.Summary = "rows without a start"
	in.Lose(g, "no start", 2, "line 4")
	if err := a.CheckValid(); err == nil || !strings.Contains(err.Error(), "held device work") {
		t.Fatalf("lost rows without a counted gap: err %v, want the device-work error", err)
	}
	g.Add(Item{What: "no start", Where: "line 4"})
	if err := a.CheckValid(); err != nil {
		t.Fatalf("lost rows with their gap: got %v, want valid accounting", err)
	}
	if got := in.LostTotal(); got != 2 {
		t.Fatalf("LostTotal = %d, want 2", got)
	}
	// A note cannot account for lost work: it never makes a capture incomplete.
	b, bin := oneInput("rows", 1, 0)
	note := b.Gap(GraphLaunch, "")
	note.AddN(1)
	bin.Lose(note, "lost", 1, "")
	if err := b.CheckValid(); err == nil {
		t.Fatal("lost unit accounted for by a note: accepted, want an error")
	}
	// An unclassified skip (built by hand) is refused.
	u, uin := oneInput("rows", 1, 0)
	uin.Skipped = append(uin.Skipped, &Skip{Reason: "?", Count: 1})
	if err := u.CheckValid(); err == nil || !strings.Contains(err.Error(), "without a class") {
		t.Fatalf("unclassified skip: err %v, want 'without a class'", err)
	}
	// JSON states the class and the gap.
	js, _ := json.Marshal(in.Skipped)
	if !strings.Contains(string(js), `"class":"device_work_lost","gap":"invalid_event"`) || !strings.Contains(string(js), `"class":"not_device_work"`) {
		t.Fatalf("skip JSON = %s, want class and gap fields", js)
	}
}

func TestImpossibleTimes(t *testing.T) {
	iv := func(b, e int64) Interval { return Interval{Begin: b, End: e, Valid: true} }
	for _, tc := range []struct {
		name      string
		dev, lnch Interval
		ceiling   int64
		bad       string
	}{
		{"fine", iv(10, 20), iv(1, 5), MaxDuration, ""},
		{"untimed", Interval{}, Interval{}, MaxDuration, ""},
		{"negative start", iv(-5, 342331000000000), Interval{}, MaxDuration, "negative"},
		{"negative end", iv(-9, -5), Interval{}, 0, "negative"},
		{"reversed", iv(20, 10), Interval{}, 0, "before it begins"},
		{"int64 end", iv(10, math.MaxInt64), Interval{}, MaxDuration, "ceiling"},
		{"just over", iv(0, MaxDuration+1), Interval{}, MaxDuration, "ceiling"},
		{"at ceiling", iv(0, MaxDuration), Interval{}, MaxDuration, ""},
		{"no ceiling", iv(10, math.MaxInt64), Interval{}, 0, ""},
		{"bad launch", iv(10, 20), iv(5, 1), MaxDuration, "launch interval"},
	} {
		d := &Dispatch{Device: tc.dev, Launch: tc.lnch}
		why, ok := ImpossibleTime(d, tc.ceiling)
		if ok != (tc.bad == "") || !strings.Contains(why, tc.bad) {
			t.Errorf("%s: ok=%v why=%q, want bad=%q", tc.name, ok, why, tc.bad)
		}
	}
}

// Checked keeps impossible times and repeats out of the tables and turns
// them into gaps with figures, scoped to the dispatch's program.
func TestCheckedGaps(t *testing.T) {
	c, d := validCapture()
	c.Clock = Clock{Unit: "ns", Timed: true}
	var got Collect
	s := &Checked{Next: &got}
	ok := *d
	ok.Key = KeyOf(1, 7)
	s.Dispatch(c, &ok)
	rep := ok
	s.Dispatch(c, &rep) // same key: a repeat
	other := ok
	other.Key = KeyOf(2, 7) // same id, other scope: not a repeat
	s.Dispatch(c, &other)
	huge := *d
	huge.Device = Interval{Begin: 10, End: math.MaxInt64, Valid: true}
	s.Dispatch(c, &huge)
	neg := *d
	neg.Device = Interval{Begin: -5, End: 100, Valid: true}
	s.Dispatch(c, &neg)
	s.Finish(c)
	if s.Err != nil {
		t.Fatal(s.Err)
	}
	if len(got.Dispatches) != 2 {
		t.Fatalf("passed %d dispatches, want 2 (the first, and the other scope's)", len(got.Dispatches))
	}
	inv := c.Accounting.Gap(InvalidEvent, "p")
	if inv.Count != 2 || len(inv.Items) != 2 || inv.Summary == "" {
		t.Fatalf("invalid_event gap = %+v, want 2 items", inv)
	}
	if v, _ := inv.Figure("claimed_ns"); v != math.MaxInt64 {
		t.Fatalf("claimed_ns = %d, want saturated %d", v, int64(math.MaxInt64))
	}
	dup := c.Accounting.Gap(DuplicateEvent, "p")
	if dup.Count != 1 || dup.Note {
		t.Fatalf("duplicate_event gap = %+v, want 1 non-note", dup)
	}
	if c.Accounting.Complete() {
		t.Fatal("capture with impossible times: got complete, want incomplete")
	}
	if err := c.CheckValid(); err != nil {
		t.Fatal(err)
	}
}

// Ticks of unknown length (and clocks a reader states only at the end of
// its read) are held to ten times the ns ceiling: no device clock ticks
// faster than 10 GHz. Negative and reversed times are refused whatever the
// unit.
func TestCheckedTicks(t *testing.T) {
	for _, unit := range []string{"ticks", ""} {
		c, d := validCapture()
		c.Clock = Clock{Unit: unit, Timed: unit != ""}
		var got Collect
		s := &Checked{Next: &got}
		long := *d // 1.5 h at 1 GHz, 9 min at 10 GHz: possible
		long.Device = Interval{Begin: 1, End: 1 + 54e11, Valid: true}
		s.Dispatch(c, &long)
		huge := *d // past 10 × the ceiling: over an hour at any rate
		huge.Device = Interval{Begin: 1, End: 2 + 10*MaxDuration, Valid: true}
		s.Dispatch(c, &huge)
		rev := *d
		rev.Device = Interval{Begin: 10, End: 9, Valid: true}
		s.Dispatch(c, &rev)
		s.Finish(c)
		if len(got.Dispatches) != 1 || c.Accounting.CountOf(InvalidEvent) != 2 {
			t.Fatalf("unit %q: passed %d, invalid %d; want 1 and 2", unit, len(got.Dispatches), c.Accounting.CountOf(InvalidEvent))
		}
	}
}

func TestKeySets(t *testing.T) {
	var s keySets
	order := []uint64{5, 6, 7, 1, 3, 2, 4, 100, 99, 101, 50}
	for _, id := range order {
		if !s.add(KeyOf(0, id)) {
			t.Fatalf("id %d on first sight: got a repeat, want new", id)
		}
	}
	for _, id := range order {
		if s.add(KeyOf(0, id)) {
			t.Fatalf("id %d seen again: got new, want a repeat", id)
		}
	}
	r := s.scopes[0]
	if len(r.lo) != 3 || r.lo[0] != 1 || r.hi[0] != 7 || r.lo[1] != 50 || r.lo[2] != 99 || r.hi[2] != 101 {
		t.Fatalf("ranges lo=%v hi=%v, want [1..7] [50] [99..101]", r.lo, r.hi)
	}
	if s.ranges != 3 {
		t.Fatalf("ranges counter %d, want 3", s.ranges)
	}
	for _, id := range []uint64{math.MaxUint64, 0} {
		if first, again := s.add(KeyOf(0, id)), s.add(KeyOf(0, id)); !first || again {
			t.Fatalf("id %d added twice: got new %v, then %v; want true, then false", id, first, again)
		}
	}
}

// Sequential ids cost one range whatever their number.
func BenchmarkKeySetsSequential(b *testing.B) {
	var s keySets
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.add(KeyOf(0, uint64(i)))
	}
	if s.ranges > 1 {
		b.Fatalf("%d ranges", s.ranges)
	}
}

// The items of both gaps the checks add name the dispatch's program and
// kernel, and its queue and device start where it has them (and only
// then).
func TestCheckedItems(t *testing.T) {
	c, d := validCapture()
	c.Clock = Clock{Unit: "ns", Timed: true}
	s := &Checked{Next: Discard}
	first := *d
	first.Key = KeyOf(1, 7)
	s.Dispatch(c, &first)
	rep := first
	rep.Device = Interval{Begin: 40, End: 50, Valid: true}
	s.Dispatch(c, &rep) // a repeat, on the queue, at 40
	neg := *d
	neg.Device = Interval{Begin: -5, End: 100, Valid: true}
	s.Dispatch(c, &neg) // invalid, on the queue, at -5
	bare := *d
	bare.Queue, bare.Device = NoQueue, Interval{}
	bare.Launch = Interval{Begin: 30, End: 20, Valid: true}
	s.Dispatch(c, &bare) // invalid, no queue and no device start
	s.Finish(c)
	text := func(p *int64) string {
		if p == nil {
			return "none"
		}
		return fmt.Sprint(*p)
	}
	for _, w := range []struct {
		gap         Kind
		item        int
		what        string
		queue, time string
	}{
		{DuplicateEvent, 0, "record 7 (scope 1) repeats one already read: counted once", "0", "40"},
		{InvalidEvent, 0, "device interval starts at -5, a negative time: not in the tables", "0", "-5"},
		{InvalidEvent, 1, "launch interval ends (20) before it begins (30): not in the tables", "none", "none"},
	} {
		it := c.Accounting.Gap(w.gap, "p").Items[w.item]
		if it.What != w.what || it.Program != "p" || it.Kernel != "k" {
			t.Errorf("%s item: got %+v, want %q of program p, kernel k", w.gap, it, w.what)
		}
		queue := "none"
		if it.Queue != nil {
			queue = fmt.Sprint(*it.Queue)
		}
		if queue != w.queue || text(it.Time) != w.time {
			t.Errorf("%s item %q: got queue %s, time %s; want queue %s, time %s", w.gap, it.What, queue, text(it.Time), w.queue, w.time)
		}
	}
}
