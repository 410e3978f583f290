package htmlreport

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

const (
	addF = "void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>, std::array<char *, (unsigned long)3>>(int, T2, T3)"
	red  = "void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, (int)4, (int)4>>(T3)"
)

// orderFixture has a cheap program read first and a dear one with
// demangled names read second.
func orderFixture() fixture {
	c := &capture.Capture{Source: capture.Source{Path: "o.json", Format: "test"},
		Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true}}
	a := analysis.NewAggregator()
	cheap := c.AddProgram(capture.Program{Name: "cheap", Instances: 1})
	k := c.AddKernel(capture.Kernel{Program: cheap, Name: "k", Resolved: true, Category: "kernel"})
	a.Dispatch(c, &capture.Dispatch{Program: cheap, Kernel: k, Device: capture.Interval{End: 10, Valid: true}})
	dear := c.AddProgram(capture.Program{Name: "dear", Instances: 1})
	for i, n := range []string{addF, red} {
		k := c.AddKernel(capture.Kernel{Program: dear, Name: n, Resolved: true, Category: "kernel"})
		a.Dispatch(c, &capture.Dispatch{Program: dear, Kernel: k, Device: capture.Interval{End: int64(1000 - i), Valid: true}})
	}
	return fixture{c: c, t: a.Tables(c)}
}

func pageWith(t *testing.T, f fixture, opt Options) string {
	t.Helper()
	return string(writePage(t, oneInput(f.c, f.t), opt))
}

// TestPageProgramsOrder: the page lays programs out as the text report
// does, costliest first, or as read with InputOrder; section ids keep the
// input's numbering.
func TestPageProgramsOrder(t *testing.T) {
	f := orderFixture()
	ids := regexp.MustCompile(`<section class="program" id="(program-\d)"`)
	got := ids.FindAllStringSubmatch(pageWith(t, f, Options{}), -1)
	if len(got) != 2 || got[0][1] != "program-1" || got[1][1] != "program-0" {
		t.Fatalf("got sections %v, want program-1 (dear) first", got)
	}
	got = ids.FindAllStringSubmatch(pageWith(t, f, Options{InputOrder: true}), -1)
	if len(got) != 2 || got[0][1] != "program-0" {
		t.Fatalf("InputOrder: got sections %v, want program-0 (cheap) first", got)
	}
}

// pageData reads the page's table data.
func dataOf(t *testing.T, page string) pageData {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("got no data block, want one")
	}
	var d pageData
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestPageShortNames: chart and table show short names, as the text
// report does, the whole name on hover; FullNames shows them whole.
func TestPageShortNames(t *testing.T) {
	f := orderFixture()
	page := pageWith(t, f, Options{})
	d := dataOf(t, page)
	td := d.Programs[0] // dear, first
	if td.Rows[0][0] != "vectorized_elementwise_kernel" || td.Rows[1][0] != "reduce_kernel" {
		t.Fatalf("got names %v, %v; want the short names", td.Rows[0][0], td.Rows[1][0])
	}
	if td.Full["reduce_kernel"] != red {
		t.Fatalf("got whole name %q, want %q", td.Full["reduce_kernel"], red)
	}
	if !strings.Contains(page, `title="`+attr(red)+`">reduce_kernel<`) {
		t.Errorf("chart: want the short label with the whole name on hover")
	}
	d = dataOf(t, pageWith(t, f, Options{FullNames: true}))
	if d.Programs[0].Rows[0][0] != addF || d.Programs[0].Full != nil {
		t.Fatalf("FullNames: got %v (full map %v), want the whole name", d.Programs[0].Rows[0][0], d.Programs[0].Full)
	}
}

// attr escapes s as html/template writes an attribute.
func attr(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;")
	return r.Replace(s)
}

// TestPageWholeNamesCapped: past the budget the whole names are left out,
// and the page says so.
func TestPageWholeNamesCapped(t *testing.T) {
	page := string(bigCapture(50, 500).page(t))
	d := dataOf(t, page)
	for _, td := range d.Programs {
		if td.Full != nil {
			t.Fatal("got whole names past the budget, want them left out")
		}
	}
	if !strings.Contains(page, "their whole names") || !strings.Contains(page, "--names full shows them whole") {
		t.Fatal("got no note that the whole names were left out, want one")
	}
	// Negative arm: a small page keeps them.
	if d := dataOf(t, pageWith(t, orderFixture(), Options{})); d.Programs[0].Full == nil {
		t.Fatal("small page: got no whole names, want them kept")
	}
}

// TestBrowserShortNames: in a browser, the name cell shows the short name,
// its title the whole one, and the filter finds a kernel by a word of its
// whole name only.
func TestBrowserShortNames(t *testing.T) {
	ctx := openPage(t, []byte(pageWith(t, orderFixture(), Options{})))
	got := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#program-1 tbody td.name")).map(c => c.textContent + "|" + c.title)`)
	if len(got) != 2 || got[1] != "reduce_kernel|"+red {
		t.Fatalf("got cells %q, want reduce_kernel with its whole name as title", got)
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`#program-1 .filter`), "MeanOps")); err != nil {
		t.Fatal(err)
	}
	got = eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#program-1 tbody td.name")).map(c => c.textContent)`)
	if len(got) != 1 || got[0] != "reduce_kernel" {
		t.Fatalf("filter MeanOps: got %q, want reduce_kernel (whose whole name holds it)", got)
	}
}
