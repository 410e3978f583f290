package htmlreport

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/countio"
	"github.com/tallyprof/tally/internal/testfile"
	"github.com/tallyprof/tally/render"
)

// TestNamesAreEscaped checks the page's bytes: no name reaches it as markup,
// whatever the browser would do with it.
func TestNamesAreEscaped(t *testing.T) {
	page := string(sampleCapture().page(t))
	noMarkup(t, page)
	if !strings.Contains(page, "&lt;img src=x onerror=") {
		t.Error("got no hostile kernel name on the page, want it shown escaped")
	}
	if !strings.Contains(page, `&#39;run&lt;1&gt;.kept&#39;`) {
		t.Error("got no quoted command line on the page, want 'run<1>.kept' shown escaped")
	}
}

// TestSelfContained: nothing on the page names another resource.
func TestSelfContained(t *testing.T) {
	page := sampleCapture().page(t)
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:|//)|url\(|@import`).Find(page); m != nil {
		t.Fatalf("got the page loading %q, want it self-contained", m)
	}
}

// TestSize: 50 programs of 500 kernels stay under 4 MB.
func TestSize(t *testing.T) {
	n := len(bigCapture(50, 500).page(t))
	t.Logf("50 programs × 500 kernels: %d bytes", n)
	if n > 4<<20 {
		t.Fatalf("got a page of %d bytes, want at most 4 MiB", n)
	}
}

func TestVerdicts(t *testing.T) {
	f := sampleCapture()
	if p := string(f.page(t)); !strings.Contains(p, `data-verdict="incomplete"`) || !strings.Contains(p, "INCOMPLETE: 1 gap — ") {
		t.Fatal("got an incomplete capture not called incomplete, want verdict incomplete and \"INCOMPLETE: 1 gap — \"")
	}
	f.c.Accounting.Gaps = nil
	if p := string(f.page(t)); !strings.Contains(p, `data-verdict="complete"`) || !strings.Contains(p, "COMPLETE: every input unit") {
		t.Fatal("got a complete capture not called complete, want verdict complete and \"COMPLETE: every input unit\"")
	}
	// An empty capture says so first and draws no timeline; then, as the
	// text report, the verdict with what its gaps touch, a gap beside the
	// empty one (an input that did not parse) named.
	c := &capture.Capture{Source: capture.Source{Path: "empty.log", Format: "unknown"}}
	g := c.Accounting.Gap(capture.EmptyCapture, "")
	g.Summary = "the file is empty"
	g.Add(capture.Item{What: "empty file"})
	c.Accounting.Gap(capture.SkippedInput, "").Add(capture.Item{What: "records.json did not parse"})
	p := string(writePage(t, oneInput(c, analysis.NewAggregator().Tables(c)), Options{Timelines: []*Timeline{NewTimeline()}}))
	if !strings.Contains(p, `data-verdict="empty"`) || !strings.Contains(p, "No timeline: no dispatch carries a device time") {
		t.Fatalf("empty capture: got no empty verdict or no-timeline line, want both in:\n%s", p)
	}
	if want := "NO DISPATCH RECORDED: the file is empty. INCOMPLETE: 2 gaps — "; !strings.Contains(p, want) || !strings.Contains(p, "(empty_capture, skipped_input)") {
		t.Errorf("empty capture: headline lacks %q and the gaps' kinds:\n%s", want, p)
	}
	// A summary that ends its sentence gets no second period (the Kineto
	// reader's "… to get kernel times."; the fourth sweep).
	g.Summary = "the file is empty."
	p = string(writePage(t, oneInput(c, analysis.NewAggregator().Tables(c)), Options{Timelines: []*Timeline{NewTimeline()}}))
	if want := "NO DISPATCH RECORDED: the file is empty. INCOMPLETE: 2 gaps — "; !strings.Contains(p, want) {
		t.Errorf("empty capture, summary ending in a period: got no %q in:\n%s", want, p)
	}
}

// TestTimelineBounded: the sample keeps PerQueue per queue, counts the
// rest, and the strip says it shows the first ones only.
func TestTimelineBounded(t *testing.T) {
	f := bigCapture(2, 10)
	tl := &Timeline{PerQueue: 25, Max: 1000}
	c := f.c
	for i := range 60 {
		tl.Dispatch(c, &capture.Dispatch{Program: 0, Queue: 0, Kernel: 0, Device: capture.Interval{Begin: int64(i * 10), End: int64(i*10 + 5), Valid: true}})
	}
	tl.Dispatch(c, &capture.Dispatch{Program: 0, Queue: 0, Kernel: 0, Aggregate: &capture.Aggregate{Count: 7}})
	if len(tl.samples) != 25 || tl.queues[0].seen != 60 || tl.aggregated != 7 {
		t.Fatalf("got kept %d of %d, aggregated %d; want 25 of 60, aggregated 7", len(tl.samples), tl.queues[0].seen, tl.aggregated)
	}
	p := string(writePage(t, oneInput(c, f.t), Options{Timelines: []*Timeline{tl}}))
	if !strings.Contains(p, "first 25 of 60 dispatches shown") || !strings.Contains(p, "7 dispatches are known only from aggregated records") {
		t.Fatal("got a capped strip that does not say it is a sample, want \"first 25 of 60 dispatches shown\" and the aggregated count")
	}
	if n := strings.Count(p, "data-k="); n != 25 {
		t.Fatalf("%d rectangles, want 25", n)
	}
	// Max bounds all queues together.
	tl = &Timeline{PerQueue: 100, Max: 10}
	for i := range 30 {
		tl.Dispatch(c, &capture.Dispatch{Queue: capture.QueueID(i % 3), Device: capture.Interval{Valid: true}})
	}
	if len(tl.samples) != 10 {
		t.Fatalf("Max 10: got %d kept, want 10", len(tl.samples))
	}
}

// TestWriteErrorReturned: a failing writer is an error, wherever it fails.
func TestWriteErrorReturned(t *testing.T) {
	f := bigCapture(3, 50)
	for _, at := range []int{0, 5000, 40000} {
		if err := Write(&testfile.FailAfter{N: at}, oneInput(f.c, f.t), Options{Timelines: []*Timeline{f.tl}}); err == nil {
			t.Fatalf("write failing after %d bytes: got nil, want an error", at)
		}
	}
	if err := Write(io.Discard, oneInput(f.c, f.t), Options{}); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkWrite50x500(b *testing.B) {
	f := bigCapture(50, 500)
	var n int64
	for b.Loop() {
		cw := &countio.Writer{}
		if err := Write(cw, oneInput(f.c, f.t), Options{Timelines: []*Timeline{f.tl}}); err != nil {
			b.Fatal(err)
		}
		n = cw.N
	}
	b.SetBytes(n)
	b.ReportMetric(float64(n)/(1<<20), "MiB/page")
}

// The verdict counts notes apart from gaps: a complete capture with one
// note says so in its headline; an incomplete one counts only its gaps.
func TestVerdictCountsNotesApart(t *testing.T) {
	c := &capture.Capture{Source: capture.Source{Path: "a.kept", Format: "test"}}
	c.Accounting.Gap(capture.GraphLaunch, "").AddN(2)
	ja := render.Accounting(c)
	if v := accounting(c, &ja, "g"); v.Verdict != "complete" || !strings.HasSuffix(v.Headline, " (1 note)") {
		t.Errorf("complete with a note: got verdict %q, headline %q; want complete, ending \" (1 note)\"", v.Verdict, v.Headline)
	}
	c.Accounting.Gap(capture.TruncatedInput, "").AddN(1)
	ja = render.Accounting(c)
	if v := accounting(c, &ja, "g"); v.Verdict != "incomplete" || !strings.HasPrefix(v.Headline, "INCOMPLETE: 1 gap") {
		t.Errorf("a gap and a note: got verdict %q, headline %q; want incomplete, \"INCOMPLETE: 1 gap…\"", v.Verdict, v.Headline)
	}
}
