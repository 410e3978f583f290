package htmlreport

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chromedp/chromedp"
	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/gen/collgen/collgentest"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/render"
)

// Names holding what a terminal or a browser would act on: controls, ESC,
// NUL, a bidi override ("Trojan source"), an invalid byte, and a name that
// already reads as an escape (it must not gain a second backslash).
const (
	evilPath    = "run\x1b[2J\xff.json"
	evilProgram = "step\u202eevil\x00"
	evilKernel  = "void at::native::vectorized_elementwise_kernel\x01\u202e<(int)4, at::native::CUDAFunctor_add<float>>(int, T2)"
	evilOther   = "copy\x00\u2067\xfe"
	evilLiteral = `lit\x01`
	evilQueue   = "stream\x07"
	evilDevice  = "gpu\u009b0"
	evilList    = "init\x1b"
	evilOp      = "aten::mm\u202e\x01"
)

// evilCapture has every kind of name the page shows hostile: the path, a
// program, kernels (one shortened), a list, a queue and its device, a gap's
// item, and the timeline's sample, with a time breakdown.
func evilCapture() (fixture, *analysis.Breakdown) {
	c := &capture.Capture{Source: capture.Source{Path: evilPath, Format: "test", Bytes: 10},
		Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true}}
	p := c.AddProgram(capture.Program{Name: evilProgram, Instances: 1})
	q := c.AddQueue(capture.Queue{Name: evilQueue, Device: evilDevice})
	ks := []capture.KernelID{
		c.AddKernel(capture.Kernel{Program: p, Name: evilKernel, Resolved: true, Category: "kernel"}),
		c.AddKernel(capture.Kernel{Program: p, Name: evilOther, Resolved: true, Category: "kernel", List: evilList}),
		c.AddKernel(capture.Kernel{Program: p, Name: evilLiteral, Resolved: true, Category: "kernel"}),
	}
	g := c.Accounting.Gap(capture.UnfinishedDispatch, evilProgram)
	g.Summary = "1 dispatch was launched and never finished"
	g.Add(capture.Item{What: "launched", Program: evilProgram, Kernel: evilOther, Time: capture.TimeOf(5), LastCompleted: evilKernel})
	f := fixture{c: c, tl: NewTimeline()}
	a := analysis.NewAggregator()
	bs := analysis.NewBreakdownSink(analysis.BreakdownOptions{})
	sink := capture.Tee{a, f.tl, bs}
	at := int64(0)
	for i, k := range ks {
		d := int64(1000 * (3 - i))
		sink.Dispatch(c, &capture.Dispatch{Program: p, Queue: q, Kernel: k, Device: capture.Interval{Begin: at, End: at + d, Valid: true},
			Launch: capture.Interval{Begin: at, End: at + 1, Valid: true}, Link: capture.LinkLaunched})
		at += d
	}
	f.t = a.Tables(c)
	return f, bs.Finish(c)
}

// acted lists what of page a browser would act on or show other than
// the text report: a rune safetext escapes (the template's own newlines
// aside) or U+FFFD.
func acted(page []byte) []string {
	var out []string
	for i := 0; i < len(page); {
		r, n := utf8.DecodeRune(page[i:])
		if s := string(page[i : i+n]); r == utf8.RuneError || (r != '\n' && safetext.Escape(s) != s) {
			out = append(out, string(page[max(0, i-30):i])+"«"+safetext.Escape(s)+"»")
		}
		i += n
	}
	return out
}

// shows checks that page holds each of want, and no rune that a browser
// would act on.
func shows(t *testing.T, what string, page []byte, want ...string) {
	t.Helper()
	if bad := acted(page); len(bad) > 0 {
		t.Errorf("%s: got %d raw controls, bidi overrides or U+FFFD on the page, want each as the text report's escape; first after %q", what, len(bad), bad[0])
	}
	for _, w := range want {
		if !bytes.Contains(page, []byte(w)) {
			t.Errorf("%s: page lacks %q, want the name as the text report shows it", what, w)
		}
	}
	// The markup, not the data, where JSON writes a backslash as two.
	if html, _, _ := bytes.Cut(page, []byte(`<script type="application/json"`)); bytes.Contains(html, []byte(`lit\\x01`)) {
		t.Errorf("%s: got %q, want a name that reads as an escape kept as it is, not escaped twice", what, `lit\\x01`)
	}
}

// TestPageShowsNamesAsText: every name reads on the page as the text
// report prints it (safetext), in the template's HTML, in the data the
// script draws its tables and timeline tips from, in one input's page and
// in many's, and in the breakdown, ops and collectives sections.
func TestPageShowsNamesAsText(t *testing.T) {
	f, bd := evilCapture()
	one := oneInput(f.c, f.t)
	one.Inputs[0].Breakdown = bd
	// The labels the text report's table shows (the first shortened).
	short := []string{`vectorized_elementwise_kernel\x01\u202e`, safetext.Escape(evilOther), evilLiteral}
	// The text report first: it is what the page must read as.
	var text bytes.Buffer
	if err := render.Text(&text, f.c, f.t, render.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	names := []string{safetext.Escape(evilPath), safetext.Escape(evilProgram), short[0], short[1], safetext.Escape(evilList), evilLiteral}
	for _, n := range names {
		if !strings.Contains(text.String(), n) {
			t.Fatalf("text report lacks %q:\n%s", n, text.String())
		}
	}
	page := writePage(t, one, Options{Command: []string{"tally", "report", evilPath}, Timelines: []*Timeline{f.tl}})
	shows(t, "one input", page, append(names,
		`<code class="pname">`+safetext.Escape(evilProgram)+`</code>`, // heading
		`title="`+attr(safetext.Escape(evilKernel))+`">`+short[0]+`<`, // chart label, whole name on hover
		`<td>`+safetext.Escape(evilOther)+`</td>`,                     // gap item
		safetext.Escape(evilQueue+" on "+evilDevice),                  // timeline strip
		safetext.Escape(evilDevice),                                   // breakdown row
	)...)
	d := dataOf(t, string(page))
	td := d.Programs[0]
	if got := []any{td.Rows[0][0], td.Rows[1][0], td.Rows[2][0]}; got[0] != short[0] || got[1] != short[1] || got[2] != evilLiteral {
		t.Errorf("data: got name cells %q, want %q as the text report shows them", got, short)
	}
	for _, r := range td.Rows {
		if i := slices.IndexFunc(td.Columns, func(c column) bool { return c.Key == "list" }); i < 0 || (r[0] == short[1]) != (r[i] == safetext.Escape(evilList)) {
			t.Errorf("data: got row %v (columns %v), want %q's list cell %q", r, td.Columns, short[1], safetext.Escape(evilList))
		}
	}
	if got := td.Full[short[0]]; got != safetext.Escape(evilKernel) {
		t.Errorf("data: got whole name %q, want %q", got, safetext.Escape(evilKernel))
	}
	if got := strings.Join(d.Kernels, "|"); !strings.Contains(got, safetext.Escape(evilOther)) || !strings.Contains(got, safetext.Escape(evilKernel)) {
		t.Errorf("data: got timeline names %q, want the whole names escaped", got)
	}
	full := dataOf(t, string(writePage(t, one, Options{FullNames: true})))
	if got := full.Programs[0].Rows[0][0]; got != safetext.Escape(evilKernel) {
		t.Errorf("FullNames data: got %q, want %q", got, safetext.Escape(evilKernel))
	}

	// Many inputs: the whole's tables and each input's.
	g, _ := evilCapture()
	many := analysis.NewRun([]analysis.Input{{Path: evilPath, Capture: f.c, Tables: f.t}, {Path: "b\u202e.json", Capture: g.c, Tables: g.t},
		{Path: "gone\x1b.json", Err: errors.New("open gone\x1b.json: denied")}}, nil, true)
	shows(t, "many inputs", writePage(t, many, Options{Timelines: []*Timeline{f.tl, g.tl}}),
		safetext.Escape("b\u202e.json"), safetext.Escape("gone\x1b.json"), `<code class="pname">`+safetext.Escape(evilProgram)+`</code>`)

	// Ops: an op's name, its costliest kernel, and the roofline's points
	// and roofs.
	ops := opsFixture(t, func(tb *analysis.OpTable) {
		for i := range tb.Rows {
			if tb.Rows[i].Name == "aten::mm" { // a point of the roofline
				tb.Rows[i].Name = evilOp
			}
		}
		for i := range tb.Roofs {
			tb.Roofs[i].DType += "\u2066"
		}
	})
	shows(t, "ops", ops, `<code>`+safetext.Escape(evilOp)+`</code>`, `data-op="`+attr(safetext.Escape(evilOp))+`"`, `bf16\u2066`)

	// Collectives: a type's name and group.
	_, run, res := collgentest.Job(t)
	for i := range res.Instances {
		res.Instances[i].Type += "\u202e"
		res.Instances[i].Group += "\x1b"
	}
	shows(t, "collectives", writePage(t, run, Options{Collectives: res}), `data-type="`+safetext.Escape(res.Instances[0].Type)+`"`,
		safetext.Escape(res.Instances[0].Group))
}

// TestBrowserNamesAsText: in a browser, the kernel table the script draws
// shows each name as the text report does (its whole name so on hover),
// sorted or not, and the filter finds a kernel by what it shows.
func TestBrowserNamesAsText(t *testing.T) {
	f, _ := evilCapture()
	ctx := openPage(t, writePage(t, oneInput(f.c, f.t), Options{Timelines: []*Timeline{f.tl}}))
	if got := eval[string](t, ctx, `document.querySelector("#program-0 .pname").textContent`); got != safetext.Escape(evilProgram) {
		t.Errorf("program heading: got %q, want %q", got, safetext.Escape(evilProgram))
	}
	cells := `Array.from(document.querySelectorAll("#program-0 tbody td.name")).map(c => c.textContent + "|" + c.title)`
	want := []string{`vectorized_elementwise_kernel\x01\u202e|` + safetext.Escape(evilKernel), safetext.Escape(evilOther) + "|", evilLiteral + "|"}
	if got := eval[[]string](t, ctx, cells); !slices.Equal(got, want) {
		t.Errorf("name cells: got %q, want %q", got, want)
	}
	if got := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#program-0 tbody td.list")).map(c => c.textContent)`); !slices.Contains(got, safetext.Escape(evilList)) {
		t.Errorf("list cells: got %q, want %q among them", got, safetext.Escape(evilList))
	}
	// Sorted by name (ascending): the same texts, in their order.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#program-0 th[data-key=name] button`))); err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(want)
	slices.Sort(sorted)
	if got := eval[[]string](t, ctx, cells); !slices.Equal(got, sorted) {
		t.Errorf("sorted by name: got %q, want %q", got, sorted)
	}
	// The filter takes what the page shows: `\u202e` as typed.
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`#program-0 .filter`), `\u202e`)); err != nil {
		t.Fatal(err)
	}
	if got := eval[[]string](t, ctx, cells); len(got) != 1 || got[0] != want[0] {
		t.Errorf(`filter \u202e: got %q, want only %q`, got, want[0])
	}
}
