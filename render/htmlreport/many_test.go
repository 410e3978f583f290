package htmlreport

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/countio"
	"github.com/tallyprof/tally/internal/testfile"
)

// manyPage renders two copies of the hostile sample capture and an input
// that failed with a hostile path and error, as a page of many.
func manyPage(t *testing.T) string {
	t.Helper()
	a, b := sampleCapture(), sampleCapture()
	bad := "<img src=x onerror=alert(1)>.json"
	run := analysis.NewRun([]analysis.Input{{Path: "a<1>.kept", Capture: a.c, Tables: a.t}, {Path: "b.kept", Capture: b.c, Tables: b.t},
		{Path: bad, Err: errors.New("open " + bad + ": <b>denied</b>")}}, nil, true)
	return string(writePage(t, run, Options{Command: []string{"tally", "report", "--html", "-", bad}, Timelines: []*Timeline{a.tl, b.tl}}))
}

func TestManyEscapedAndUnique(t *testing.T) {
	page := manyPage(t)
	noMarkup(t, page)
	// Every id once: gap anchors and program sections of several inputs
	// must not collide.
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if seen[m[1]] {
			t.Errorf("got id %q used twice, want each id once", m[1])
		}
		seen[m[1]] = true
	}
	for _, id := range []string{"merged", "input-0", "input-1", "input-2", "input-0-gap-0", "input-1-program-1", "program-1"} {
		if !seen[id] {
			t.Errorf("got no element with id %q, want one", id)
		}
	}
	// Program links point at their own input's gap.
	if !strings.Contains(page, `href="#input-1-gap-0"`) {
		t.Error("got no link from input 2's program to its own gap, want href=\"#input-1-gap-0\"")
	}
	// Each program section indexes its own table in the data.
	idx := regexp.MustCompile(`data-program="(\d+)"`).FindAllStringSubmatch(page, -1)
	if len(idx) != 6 { // 2 merged + 2 × 2
		t.Fatalf("%d program sections, want 6", len(idx))
	}
	for i, m := range idx {
		if want := strconv.Itoa(i); m[1] != want {
			t.Errorf("program section %d: got table index %s, want %s", i, m[1], want)
		}
	}
	for _, want := range []string{`data-verdict="failed"`, "NOT READ", "input 3/3", "&lt;b&gt;denied&lt;/b&gt;", `class="tlabel"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestManyWriteErrorReturned(t *testing.T) {
	a := sampleCapture()
	run := analysis.NewRun([]analysis.Input{{Path: "a", Capture: a.c, Tables: a.t}}, nil, true)
	w := &testfile.FailAfter{N: 100}
	if err := Write(w, run, Options{}); err == nil {
		t.Fatal("got nil from a failed write, want its error")
	}
}

// TestManyTimelineBudget: inputs share the timeline's budget, each cut
// evenly over its queues, and a cut strip says so.
func TestManyTimelineBudget(t *testing.T) {
	const n = 40 // inputs: DefaultMax/40 = 250, under minPerInput
	var ins []analysis.Input
	var tls []*Timeline
	for i := range n {
		c := &capture.Capture{Source: capture.Source{Path: fmt.Sprintf("r%d", i)}, Clock: capture.Clock{Unit: "ns", Timed: true}}
		p := c.AddProgram(capture.Program{Name: "p"})
		k := c.AddKernel(capture.Kernel{Program: p, Name: "k", Resolved: true, Category: "kernel"})
		q0, q1 := c.AddQueue(capture.Queue{Name: "a"}), c.AddQueue(capture.Queue{Name: "b"})
		agg, tl := analysis.NewAggregator(), NewTimeline()
		for j := range 3000 {
			d := &capture.Dispatch{Program: p, Queue: []capture.QueueID{q0, q1}[j%2], Kernel: k, Device: capture.Interval{Begin: int64(j * 10), End: int64(j*10 + 5), Valid: true}}
			agg.Dispatch(c, d)
			tl.Dispatch(c, d)
		}
		tb := agg.Tables(c)
		ins = append(ins, analysis.Input{Path: c.Source.Path, Capture: c, Tables: tb})
		tls = append(tls, tl)
	}
	run := analysis.NewRun(ins, nil, true)
	page := string(writePage(t, run, Options{Timelines: tls}))
	if got := strings.Count(page, "data-k="); got != n*minPerInput {
		t.Errorf("%d rectangles, want %d per input", got, minPerInput)
	}
	if got := strings.Count(page, "first 250 of 1500 dispatches shown"); got != 2*n {
		t.Errorf("%d strips say they are cut, want every one of %d", got, 2*n)
	}
	if len(tls[0].samples) != 3000 {
		t.Errorf("got the caller's timeline cut to %d samples, want 3000", len(tls[0].samples))
	}
}

// BenchmarkWriteMany64 writes the page of 64 ranks of 2 programs × 100
// kernels each, with their timelines.
func BenchmarkWriteMany64(b *testing.B) {
	run, tls := ranks64()
	var w countio.Writer
	for b.Loop() {
		w.N = 0
		if err := Write(&w, run, Options{Timelines: tls}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(w.N)/(1<<20), "MiB/page")
}

func ranks64() (*analysis.Run, []*Timeline) {
	var ins []analysis.Input
	var tls []*Timeline
	for i := range 64 {
		f := bigCapture(2, 100)
		f.c.Source.Rank = strconv.Itoa(i)
		ins = append(ins, analysis.Input{Path: fmt.Sprintf("rank%d.json", i), Capture: f.c, Tables: f.t})
		tls = append(tls, f.tl)
	}
	return analysis.NewRun(ins, nil, true), tls
}
