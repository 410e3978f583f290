package htmlreport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/render"
	"github.com/tallyprof/tally/report"
)

// twoRanks reads two real Kineto rank traces and a missing file as one run,
// each input with its own timeline, and returns the page and the JSON
// report of the same run.
func twoRanks(t *testing.T) (page []byte, doc render.JSONReport, tls []*Timeline) {
	t.Helper()
	paths := []string{"../../format/kineto/testdata/hta__sampled_rank-0.json.gz", "../../format/kineto/testdata/hta__sampled_rank-1.json.gz",
		filepath.Join(t.TempDir(), "missing.json")}
	e := inputs.Expand(paths, "")
	tls = make([]*Timeline, len(e.Paths))
	run := e.Read(inputs.Options{Workers: 2, Sink: func(i int, _ string) capture.Sink {
		tls[i] = NewTimeline()
		return tls[i]
	}})
	var js bytes.Buffer
	if err := report.Write(&js, run, true, render.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return writePage(t, run, Options{Command: append([]string{"tally", "report", "--html", "run.html"}, paths...), Timelines: tls}), doc, tls
}

// TestBrowserManyRanks loads the page of two ranks (and an input that
// failed) in a real browser: the whole's accounting, the merged tables and
// each rank's own accounting and tables show the JSON report's numbers.
func TestBrowserManyRanks(t *testing.T) {
	page, doc, tls := twoRanks(t)
	if len(doc.Sections) != 3 || len(doc.Programs) == 0 {
		t.Fatalf("JSON report: got %d sections, %d programs; want 3 sections and some programs", len(doc.Sections), len(doc.Programs))
	}
	ctx := openPage(t, page)

	// The whole first: its verdict and gaps (failed and incomplete inputs).
	if first := eval[string](t, ctx, `document.querySelector("section").id`); first != "accounting" {
		t.Fatalf("first section is %q, want the accounting of the whole", first)
	}
	if v := eval[string](t, ctx, `document.querySelector("#verdict").dataset.verdict`); v != verdictOf(&doc.Accounting) {
		t.Errorf("whole verdict: got %q, want %q (JSON complete=%v)", v, verdictOf(&doc.Accounting), doc.Accounting.Complete)
	}
	checkGaps(t, ctx, "#accounting", doc.Accounting.Gaps)
	checkCounts(t, ctx, "#accounting", doc.Accounting.Input)
	for i, p := range doc.Programs {
		checkProgram(t, ctx, fmt.Sprintf("#merged #program-%d", i), &p)
	}

	// Each input: its own accounting and tables, or why it was not read.
	if n := eval[int](t, ctx, `document.querySelectorAll("section.input").length`); n != len(doc.Sections) {
		t.Fatalf("got %d input sections, want %d as in the JSON", n, len(doc.Sections))
	}
	for si, s := range doc.Sections {
		sel := fmt.Sprintf("#input-%d", si)
		if s.Error != "" {
			if got := eval[string](t, ctx, `document.querySelector("`+sel+` .verdict").dataset.verdict + "|" + document.querySelector("`+sel+` .error").textContent`); got != "failed|"+s.Error {
				t.Errorf("failed input: got %q, want %q", got, "failed|"+s.Error)
			}
			continue
		}
		if got := eval[string](t, ctx, `document.querySelector("`+sel+`").dataset.rank`); got != s.Rank || s.Rank == "" {
			t.Errorf("%s: got rank %q, want %q as in the JSON (not empty)", sel, got, s.Rank)
		}
		if v := eval[string](t, ctx, `document.querySelector("`+sel+` .verdict").dataset.verdict`); v != verdictOf(s.Accounting) {
			t.Errorf("%s: got verdict %q, want %q (JSON complete=%v)", sel, v, verdictOf(s.Accounting), s.Accounting.Complete)
		}
		checkGaps(t, ctx, sel+" > .accounting", s.Accounting.Gaps)
		checkCounts(t, ctx, sel+" > .accounting", s.Accounting.Input)
		if n := eval[int](t, ctx, `document.querySelectorAll("`+sel+` section.program").length`); n != len(s.Programs) {
			t.Errorf("%s: got %d programs, want %d as in the JSON", sel, n, len(s.Programs))
		}
		for pi, p := range s.Programs {
			checkProgram(t, ctx, fmt.Sprintf("#input-%d-program-%d", si, pi), &p)
		}
		// The rank's own timeline block, on its own axis.
		tl := tls[si]
		rects := eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('#timeline .tinput[data-input="%d"] rect[data-k]').length`, si))
		if rects != len(tl.samples) || rects == 0 {
			t.Errorf("%s: got %d timeline rectangles, want %d (the dispatches sampled, not 0)", sel, rects, len(tl.samples))
		}
		if got := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('#timeline .tinput[data-input="%d"] .tlabel').textContent`, si)); got != fmt.Sprintf("input %d/3: rank %s · %s", si+1, s.Rank, s.Input.Path) {
			t.Errorf("got timeline block named %q, want %q", got, fmt.Sprintf("input %d/3: rank %s · %s", si+1, s.Rank, s.Input.Path))
		}
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#timeline .tinput").length`); n != 2 {
		t.Errorf("%d timeline blocks, want one per rank read", n)
	}
	// The viewport only: a full-page shot of this long page takes seconds.
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "ranks.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func verdictOf(a *render.JSONAccounting) string {
	if a.Complete {
		return "complete"
	}
	return "incomplete"
}

// checkGaps compares the gaps shown under sel with the JSON's.
func checkGaps(t *testing.T, ctx context.Context, sel string, gaps []render.JSONGap) {
	t.Helper()
	got := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("`+sel+` .gaps > .gap")).map(g => g.dataset.kind + "=" + g.dataset.count)`)
	var want []string
	for _, g := range gaps {
		want = append(want, fmt.Sprintf("%s=%d", g.Kind, g.Count))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(want) == 0 {
		t.Errorf("%s gaps %q, JSON %q", sel, got, want)
	}
}

// checkCounts compares the read/used/skipped table under sel with the JSON's.
func checkCounts(t *testing.T, ctx context.Context, sel string, in []*capture.InputCount) {
	t.Helper()
	got := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("`+sel+` table.input tbody tr")).map(r => Array.from(r.cells).slice(0, 4).map(c => c.textContent).join(" "))`)
	var want []string
	for _, c := range in {
		want = append(want, fmt.Sprintf("%s %d %d %d", c.Unit, c.Read, c.Used, c.SkippedTotal()))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s input counts %q, JSON %q", sel, got, want)
	}
}

// checkProgram compares one program section's head, chart bars and table
// rows with the JSON's program.
func checkProgram(t *testing.T, ctx context.Context, sel string, p *render.JSONProgram) {
	t.Helper()
	if name := eval[string](t, ctx, `document.querySelector("`+sel+` .pname").textContent`); name != p.Name {
		t.Errorf("%s: got program %q, want %q as in the JSON", sel, name, p.Name)
	}
	var want []string
	var rest int64
	for _, k := range p.Kernels {
		tot, _ := kernelTotal(&k)
		switch {
		case tot == nil:
		case len(want) < chartBars:
			want = append(want, fmt.Sprintf("%s=%d", k.Name, *tot))
		default:
			rest += *tot
		}
	}
	if rest > 0 {
		want = append(want, fmt.Sprintf("others=%d", rest))
	}
	bars := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("`+sel+` .bar")).map(e => (e.classList.contains("others") ? "others" : e.dataset.kernel) + "=" + e.dataset.total)`)
	if fmt.Sprint(bars) != fmt.Sprint(want) {
		t.Errorf("%s bars %q, JSON %q", sel, bars, want)
	}
	// Names show short, as in the text report, the whole name on hover.
	rows := eval[[][]string](t, ctx, `(() => { const s = document.querySelector("`+sel+`");
		const keys = Array.from(s.querySelectorAll("thead th")).map(t => t.dataset.key);
		return Array.from(s.querySelectorAll("tbody tr")).map(r => ["name", "dispatches", "total"].map(k => r.cells[keys.indexOf(k)].textContent).concat([r.cells[keys.indexOf("name")].title])); })()`)
	var full []string
	for _, k := range p.Kernels {
		full = append(full, k.Name)
	}
	short := render.ShortNames(full)
	var wantRows [][]string
	for i, k := range p.Kernels[:min(len(p.Kernels), 100)] {
		tot := "-"
		if k.TotalNS != nil {
			tot = render.Duration(*k.TotalNS, "ns")
		}
		title := ""
		if short[i] != k.Name {
			title = k.Name
		}
		wantRows = append(wantRows, []string{short[i], fmt.Sprint(k.Dispatches), tot, title})
	}
	if fmt.Sprint(rows) != fmt.Sprint(wantRows) || len(rows) == 0 {
		t.Errorf("%s: %d rows, JSON %d; first differing shown:\n%s", sel, len(rows), len(wantRows), firstDiff(rows, wantRows))
	}
	if head := eval[string](t, ctx, `document.querySelector("`+sel+` .head").textContent`); !bytes.Contains([]byte(head), fmt.Appendf(nil, ", %d dispatches", p.Dispatches)) {
		t.Errorf("%s: got head %q, want it to contain \", %d dispatches\" as in the JSON", sel, head, p.Dispatches)
	}
}

func firstDiff(got, want [][]string) string {
	for i := range min(len(got), len(want)) {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
			return fmt.Sprintf("row %d: page %q, JSON %q", i, got[i], want[i])
		}
	}
	return "(lengths differ)"
}

// BenchmarkBrowserOpenMany64 measures how long a browser takes to load the
// page of 64 ranks and fill its tables (the merged ones: the inputs'
// are drawn when opened).
func BenchmarkBrowserOpenMany64(b *testing.B) {
	run, tls := ranks64()
	page := writePage(b, run, Options{Timelines: tls})
	for b.Loop() {
		ctx := openPage(b, page)
		if n := eval[int](b, ctx, `document.querySelectorAll("table.kernels tbody tr").length`); n != 2*100 {
			b.Fatalf("%d rows drawn", n)
		}
	}
	b.ReportMetric(float64(len(page))/(1<<20), "MiB/page")
}

// TestBrowserManyLazy: on a page of many inputs each input's tables start
// closed and are drawn when opened.
func TestBrowserManyLazy(t *testing.T) {
	run, tls := ranks64()
	ctx := openPage(t, writePage(t, run, Options{Timelines: tls}))
	rows := func(sel string) int {
		return eval[int](t, ctx, `document.querySelectorAll("`+sel+` table.kernels tbody tr").length`)
	}
	if n, m := rows("#input-5"), rows("#merged"); n != 0 || m != 200 {
		t.Fatalf("at load: got %d rows drawn in a closed input, %d merged; want 0 and 200", n, m)
	}
	// The toggle event comes after the click: wait for the first row.
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Do(wait, chromedp.Click(chromedp.CSS("#input-5 details.lazy > summary")),
		chromedp.WaitReady(chromedp.CSS("#input-5 table.kernels tbody tr"))); err != nil {
		t.Fatalf("opening input 6: %v", err)
	}
	if n := rows("#input-5"); n != 200 {
		t.Fatalf("opened: %d rows drawn, want 2 programs × 100", n)
	}
	if n := rows("#input-6"); n != 0 {
		t.Fatalf("opening one input: got %d rows drawn in another, want 0", n)
	}
}
