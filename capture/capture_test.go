package capture

import (
	"math"
	"strings"
	"testing"
)

func TestAccountingInvariant(t *testing.T) {
	a, in := oneInput("lines", 10, 7)
	in.Ignore("comment", 2, "line 1")
	if err := a.CheckValid(); err == nil {
		t.Fatal("10 read, 7 used + 2 skipped: got no error, want the invariant broken")
	}
	in.Ignore("comment", 1, "line 9")
	if err := a.CheckValid(); err != nil {
		t.Fatal(err)
	}
	if in.Skipped[0].First != "line 1" || in.Skipped[0].Count != 3 || len(in.Skipped) != 1 {
		t.Fatalf("skips: got %d, first %+v; want one of 3 from line 1 (merged by reason)", len(in.Skipped), in.Skipped[0])
	}
	in.Ignore("blank", 0, "") // zero counts are not listed
	if len(in.Skipped) != 1 {
		t.Fatalf("after a zero skip: got %d skips, want 1 (zero counts are not listed)", len(in.Skipped))
	}
}

func TestCompleteAndNotes(t *testing.T) {
	var a Accounting
	if !a.Complete() {
		t.Fatal("empty accounting: got incomplete, want complete")
	}
	a.Gap(GraphLaunch, "").AddN(3)
	if !a.Complete() {
		t.Fatal("with a note: got incomplete, want complete")
	}
	g := a.Gap(UnfinishedDispatch, "p1")
	if a.Complete() != true {
		t.Fatal("with a gap of count 0: got incomplete, want complete")
	}
	g.Add(Item{What: "x"})
	if a.Complete() {
		t.Fatal("with an unfinished dispatch: got complete, want incomplete")
	}
	a.SortGaps()
	if a.Gaps[0].Kind != UnfinishedDispatch {
		t.Fatalf("first after SortGaps: got %s, want %s (gaps before notes)", a.Gaps[0].Kind, UnfinishedDispatch)
	}
	if a.Gap(UnfinishedDispatch, "p1") != g || a.Gap(UnfinishedDispatch, "p2") == g {
		t.Fatal("Gap(kind, program): got the same gap for another program or a new one for the same, want one per kind and program")
	}
	if got := a.CountOf(UnfinishedDispatch); got != 1 {
		t.Fatalf("CountOf: got %d, want 1", got)
	}
	// CountOf sums every program scope of the kind.
	a.Gap(UnfinishedDispatch, "p2").AddN(4)
	a.Gap(UnfinishedDispatch, "").AddN(2)
	if got := a.CountOf(UnfinishedDispatch); got != 7 {
		t.Fatalf("CountOf over programs p1, p2 and the whole: got %d, want 7", got)
	}
}

func TestGapItemsCapped(t *testing.T) {
	g := &Gap{Kind: InvalidEvent}
	for i := 0; i < MaxItems+5; i++ {
		g.Add(Item{What: "x"})
	}
	if g.Count != MaxItems+5 || len(g.Items) != MaxItems || g.ItemsOmitted != 5 {
		t.Fatalf("got count %d, %d items, %d omitted; want %d, %d, 5", g.Count, len(g.Items), g.ItemsOmitted, MaxItems+5, MaxItems)
	}
	var a Accounting
	a.Gaps = append(a.Gaps, &Gap{Kind: InvalidEvent, Count: 1, Items: []Item{{}, {}}})
	if err := a.CheckValid(); err == nil || !strings.Contains(err.Error(), "lists 2") {
		t.Fatalf("2 items for a count of 1: got error %v, want one saying it lists 2", err)
	}
	g.SetFigure("total_ns", 5)
	g.SetFigure("total_ns", 7)
	if v, ok := g.Figure("total_ns"); !ok || v != 7 || len(g.Figures) != 1 {
		t.Fatalf("after SetFigure 5 then 7: got %d (%v) among %d figures, want 7, the only one", v, ok, len(g.Figures))
	}
}

func TestIntervalAndClock(t *testing.T) {
	if _, ok := (Interval{Begin: 1, End: 5}).Duration(); ok {
		t.Fatal("an invalid interval: got a duration, want none")
	}
	if d, ok := (Interval{Begin: 1, End: 5, Valid: true}).Duration(); !ok || d != 4 {
		t.Fatalf("duration of [1, 5]: got %d (%v), want 4", d, ok)
	}
	c := &Capture{Clock: Clock{Unit: "ns"}}
	p := c.AddProgram(Program{Name: "a", Clock: &Clock{Unit: "ticks"}})
	q := c.AddProgram(Program{Name: "b"})
	if c.ProgramClock(p).Unit != "ticks" || c.ProgramClock(q).Unit != "ns" {
		t.Fatalf("program clocks: got %q and %q, want ticks (its own) and ns (the capture's)", c.ProgramClock(p).Unit, c.ProgramClock(q).Unit)
	}
}

// Counts can come from the input (a producer's dropped-record count): a sum
// that would wrap saturates, so a gap never turns into a negative count that
// reads as no gap.
func TestGapCountSaturates(t *testing.T) {
	g := &Gap{Kind: DroppedRecords}
	g.AddN(math.MaxInt64 - 1)
	g.Add(Item{What: "x"})
	g.Add(Item{What: "y"})
	g.AddN(math.MaxInt64)
	if g.Count != math.MaxInt64 {
		t.Fatalf("count: got %d, want math.MaxInt64", g.Count)
	}
	var a Accounting
	a.Gaps = append(a.Gaps, g)
	if a.Complete() {
		t.Fatal("with a saturated gap: got complete, want incomplete")
	}
	// The same kind saturated in two program scopes: the sum over them
	// saturates too (a wrapped CountOf reads as no gap to its callers).
	a.Gap(DroppedRecords, "p2").AddN(math.MaxInt64)
	if got := a.CountOf(DroppedRecords); got != math.MaxInt64 {
		t.Fatalf("CountOf over two saturated scopes: got %d, want math.MaxInt64", got)
	}
}

func TestSatAdd(t *testing.T) {
	for _, c := range []struct{ a, b, want int64 }{
		{1, 2, 3},
		{math.MaxInt64, 1, math.MaxInt64},
		{math.MaxInt64 - 1, math.MaxInt64 - 1, math.MaxInt64},
		{-5, 3, 3},
		{7, math.MinInt64, 7},
		{7, -1, 7}, // a negative term never lowers a total
		{math.MaxInt64, -1, math.MaxInt64},
		{-1, -1, 0},
	} {
		if got := SatAdd(c.a, c.b); got != c.want {
			t.Errorf("SatAdd(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestQueueRank(t *testing.T) {
	c := &Capture{Source: Source{Rank: "3"}, Queues: []Queue{{Name: "q0", Rank: "7"}, {Name: "q1"}}}
	for _, tc := range []struct {
		q    QueueID
		want string
	}{{0, "7"}, {1, "3"}, {NoQueue, "3"}, {2, "3"}} {
		if got := c.QueueRank(tc.q); got != tc.want {
			t.Errorf("QueueRank(%d) = %q, want %q", tc.q, got, tc.want)
		}
	}
	c.Source.Rank = ""
	if got := c.QueueRank(1); got != "" {
		t.Errorf("QueueRank of a queue without rank in an input without rank = %q, want \"\"", got)
	}
}

func TestSections(t *testing.T) {
	inv := []Section{{Title: "a"}, {Title: "b"}}
	titles := func(ss []Section) string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Title)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		comments []Field
		at       int
		want     string
	}{
		{nil, 0, "a,b"},
		{[]Field{{Key: "k", Value: "v"}}, 0, "report,a,b"},
		{[]Field{{Key: "k", Value: "v"}}, 1, "a,report,b"},
		{[]Field{{Key: "k", Value: "v"}}, 2, "a,b,report"},
		{[]Field{{Key: "k", Value: "v"}}, 9, "a,b,report"},
		{[]Field{}, 2, "a,b,report"},
	} {
		c := &Capture{Inventory: inv, Comments: tc.comments, CommentsAt: tc.at}
		if got := titles(c.Sections()); got != tc.want {
			t.Errorf("comments %v at %d: got sections %s, want %s", tc.comments, tc.at, got, tc.want)
		}
	}
	// An empty, non-nil Comments is an empty section: fields null in JSON,
	// as readers have always written it for a bundle with nothing to say.
	c := &Capture{Inventory: inv, Comments: []Field{}, CommentsAt: 2}
	if got := c.Sections()[2].Fields; got != nil {
		t.Errorf("empty comments: got fields %#v, want nil", got)
	}
	if got := titles(c.Inventory); got != "a,b" {
		t.Errorf("Sections changed the inventory: got %s, want a,b", got)
	}
}

func TestCommentLines(t *testing.T) {
	var c Capture
	c.Comment("programs", "one per stream")
	c.Comment("rank", 3)
	got := strings.Join(c.CommentLines(), "|")
	if want := "programs: one per stream|rank: 3"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestGapSet(t *testing.T) {
	items := func(n int, what string) []Item {
		var out []Item
		for range n {
			out = append(out, Item{What: what})
		}
		return out
	}
	var g Gap
	g.Set(MaxItems+7, items(3, "a"), items(MaxItems, "b"))
	if g.Count != MaxItems+7 || len(g.Items) != MaxItems || g.ItemsOmitted != 7 {
		t.Fatalf("got count %d, %d items, %d omitted; want %d, %d, 7", g.Count, len(g.Items), g.ItemsOmitted, MaxItems+7, MaxItems)
	}
	if g.Items[0].What != "a" || g.Items[3].What != "b" {
		t.Errorf("items in order: got %q then %q at 3, want a then b", g.Items[0].What, g.Items[3].What)
	}
	g.Set(2, items(2, "c"))
	if g.Count != 2 || len(g.Items) != 2 || g.ItemsOmitted != 0 {
		t.Errorf("reset: got count %d, %d items, %d omitted; want 2, 2, 0", g.Count, len(g.Items), g.ItemsOmitted)
	}
}
