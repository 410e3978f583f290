package htmlreport

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/tallyprof/tally/render"
)

// TestBrowserReport loads the page in a real browser and checks that it
// shows what the JSON report holds.
func TestBrowserReport(t *testing.T) {
	f := sampleCapture()
	ctx := openPage(t, f.page(t))
	doc := render.BuildJSON(f.c, f.t)

	// The hostile names are text: no element came from them, no script ran.
	if n := eval[int](t, ctx, `document.querySelectorAll("img").length`); n != 0 {
		t.Fatalf("got %d img elements, want 0: a kernel name was written as markup", n)
	}
	if x := eval[bool](t, ctx, `window.__xss !== undefined`); x {
		t.Fatal("got script from a kernel or program name run, want none")
	}
	if n := eval[int](t, ctx, `document.scripts.length`); n != 2 {
		t.Fatalf("%d script elements, want the page's 2", n)
	}
	if got := eval[string](t, ctx, `document.querySelector("#program-1 .pname").textContent`); got != doc.Programs[1].Name {
		t.Fatalf("program name shown as %q, want %q", got, doc.Programs[1].Name)
	}
	cells := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#program-0 table.kernels td.name")).map(e => e.textContent)`)
	found := false
	for _, c := range cells {
		found = found || c == xssName
	}
	if !found {
		t.Fatalf("got cells %q, want the hostile kernel name %q shown as text among them", cells, xssName)
	}

	// The verdict comes first and says incomplete.
	if v := eval[string](t, ctx, `document.querySelector("#verdict").dataset.verdict`); v != "incomplete" {
		t.Fatalf("got verdict %q, want incomplete", v)
	}
	if first := eval[string](t, ctx, `document.querySelector("section").id`); first != "accounting" {
		t.Fatalf("first section is %q, want the accounting", first)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll(".gap[data-kind=unfinished_dispatch]").length`); n != 1 {
		t.Fatalf("got %d unfinished_dispatch gaps shown, want 1", n)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll(".strip.unfinished .mark").length`); n != 1 {
		t.Fatalf("got %d unfinished marks on the timeline, want 1", n)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#timeline h3").length`); n != 2 {
		t.Fatalf("%d rank blocks, want 2", n)
	}

	// Chart bars and table rows equal the JSON report's numbers.
	type bar struct {
		Kernel string  `json:"kernel"`
		Total  string  `json:"total"`
		Share  float64 `json:"share"`
	}
	bars := eval[[]bar](t, ctx, `Array.from(document.querySelectorAll("#program-0 .bar")).map(e => ({kernel: e.dataset.kernel, total: e.dataset.total, share: Number(e.dataset.share)}))`)
	ks := doc.Programs[0].Kernels
	if len(bars) != len(ks) {
		t.Fatalf("%d bars, want %d", len(bars), len(ks))
	}
	for i, b := range bars {
		if b.Kernel != ks[i].Name || b.Total != fmt.Sprint(*ks[i].TotalNS) || b.Share != *ks[i].Share {
			t.Errorf("bar %d = %+v, want %s %d %v", i, b, ks[i].Name, *ks[i].TotalNS, *ks[i].Share)
		}
	}
	rows := eval[[][]string](t, ctx, `Array.from(document.querySelectorAll("#program-0 table.kernels tbody tr")).map(r => Array.from(r.cells).map(c => c.textContent))`)
	if len(rows) != len(ks) {
		t.Fatalf("%d rows, want %d", len(rows), len(ks))
	}
	for i, r := range rows {
		k := ks[i]
		want := []string{k.Name, fmt.Sprint(k.Dispatches), render.Share(*k.Share), render.Duration(*k.TotalNS, "ns"),
			render.DurationF(*k.MeanNS, "ns"), render.Duration(*k.MinNS, "ns"), render.Duration(*k.MaxNS, "ns")}
		if fmt.Sprint(r) != fmt.Sprint(want) {
			t.Errorf("row %d = %q, want %q", i, r, want)
		}
	}
	// The untimed program shows counts and no times.
	if got := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#program-1 tbody td")).map(c => c.textContent)`); fmt.Sprint(got) != "[copy memcpy 1 - - - - -]" {
		t.Fatalf("untimed row: got %q, want [copy memcpy 1 - - - - -]", got)
	}
	screenshot(t, ctx, "report.png")

	// Sorting: dispatches descending, then ascending; names ascending.
	column := func(i int) []string {
		return eval[[]string](t, ctx, fmt.Sprintf(`Array.from(document.querySelectorAll("#program-0 tbody tr")).map(r => r.cells[%d].textContent)`, i))
	}
	click := func(key string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#program-0 th[data-key=`+key+`] button`))); err != nil {
			t.Fatal(err)
		}
	}
	click("dispatches")
	if got := column(1); fmt.Sprint(got) != "[12 6 6]" {
		t.Fatalf("dispatches descending: got %q, want [12 6 6]", got)
	}
	click("dispatches")
	if got := column(1); fmt.Sprint(got) != "[6 6 12]" {
		t.Fatalf("dispatches ascending: got %q, want [6 6 12]", got)
	}
	click("name")
	if got := column(0); fmt.Sprint(got) != fmt.Sprint([]string{xssName, "fam:matmul", "p1:#42"}) {
		t.Fatalf("names ascending: got %q, want %q", got, []string{xssName, "fam:matmul", "p1:#42"})
	}
	// Filtering by name.
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`#program-0 .filter`), "MATMUL")); err != nil {
		t.Fatal(err)
	}
	if got := column(0); fmt.Sprint(got) != "[fam:matmul]" {
		t.Fatalf("filter: got %q, want [fam:matmul]", got)
	}
	if s := eval[string](t, ctx, `document.querySelector("#program-0 .status").textContent`); s != "showing 1 of 1 kernels matching (3 in all)" {
		t.Fatalf("got status %q, want %q", s, "showing 1 of 1 kernels matching (3 in all)")
	}
}

// TestBrowserFormatsLikeGo checks the script's number formatting against
// the text report's on the values where rounding differs most: exact ties,
// unit boundaries, fractions.
func TestBrowserFormatsLikeGo(t *testing.T) {
	ctx := openPage(t, sampleCapture().page(t))
	durs := []int64{0, 1, 999, 1000, 1062500, 1063500, 62500, 999999, 1000000, 1999999999, 2500000000, 1234567891234}
	means := []float64{0.5, 1.25, 62.5, 1062.5, 1063.5, 999.95, 1e6 + 0.5, 123456.789}
	shares := []float64{0, 0.0005, 0.00125, 0.001249, 0.3335, 0.125, 1}
	// One evaluation for all values: each round trip to the browser costs.
	type tc struct {
		js, want string
	}
	var cases []tc
	for _, v := range durs {
		for _, unit := range []string{"ns", "ticks"} {
			cases = append(cases, tc{fmt.Sprintf(`tallyShow(%d, "dur", %q)`, v, unit), render.Duration(v, unit)})
		}
	}
	for _, v := range means {
		for _, unit := range []string{"ns", "ticks"} {
			cases = append(cases, tc{fmt.Sprintf(`tallyShow(%v, "mean", %q)`, v, unit), render.DurationF(v, unit)})
		}
	}
	for _, v := range shares {
		cases = append(cases, tc{fmt.Sprintf(`tallyShow(%v, "share", "ns")`, v), render.Share(v)})
	}
	var js []string
	for _, c := range cases {
		js = append(js, c.js)
	}
	got := eval[[]string](t, ctx, "["+strings.Join(js, ",")+"]")
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("%s: page %q, text report %q", c.js, got[i], c.want)
		}
	}
}

// BenchmarkBrowserOpen50x500 measures how long a browser takes to load the
// page of 50 programs × 500 kernels and fill its tables.
func BenchmarkBrowserOpen50x500(b *testing.B) {
	page := bigCapture(50, 500).page(b)
	for b.Loop() {
		ctx := openPage(b, page)
		if n := eval[int](b, ctx, `document.querySelectorAll("table.kernels tbody tr").length`); n != 50*100 {
			b.Fatalf("%d rows drawn", n)
		}
	}
	b.ReportMetric(float64(len(page))/(1<<20), "MiB/page")
}
