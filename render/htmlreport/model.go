package htmlreport

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/internal/units"
	"github.com/tallyprof/tally/render"
)

// chartBars is how many kernels get their own bar; the rest share one, so
// a program of 500 kernels still has a chart one can read.
const chartBars = 20

type page struct {
	Title   string
	Command string
	Inputs  []capture.Source
	Clock   string
	// The accounting of what the page reports: the one capture's, or the
	// whole run's when several inputs were read.
	accountingView
	Notes    []string
	Programs []programView
	// Ops is the op table (--by op), nil when not asked for.
	Ops *opsView
	// Merged is set when several inputs were read: Programs are then the
	// merged tables, and Sections hold each input's own report.
	Merged   string
	Sections []inputView
	// OpenInputs shows each input's tables at once; on a page of many
	// inputs they are drawn when opened, so the page opens fast.
	OpenInputs bool
	// Timelines holds one block per input (one, unnamed, for one input).
	Timelines []timelineBlock
	// Collectives is the collectives section, when the run holds any.
	Collectives *collView
	// Breakdown is the time breakdown per device (nil when the run made
	// none).
	Breakdown *breakdownView
	Details   []capture.Section
	Data      pageData
	CSS       template.CSS
	JS        template.JS
}

// accountingView is one accounting block: the verdict, the input counts
// and the gaps.
type accountingView struct {
	Verdict  string // "complete", "incomplete", "empty"; "failed" for an input not read
	Headline string
	Counts   []*capture.InputCount
	Gaps     []gapView
}

// inputView is one input's own report within a page of many inputs.
type inputView struct {
	Index   int
	Heading string // "input 2/64", as the text report numbers them
	Label   string
	Rank    string
	Source  capture.Source
	Clock   string
	// Error is why the input could not be read; nothing else is set then.
	Error string
	accountingView
	Notes    []string
	Programs []programView
	Ops      *opsView
}

// timelineBlock is the timeline of one input.
type timelineBlock struct {
	Input   int // index of the input's section; -1 on a page of one input
	Heading string
	Label   string
	timelineSection
}

type gapView struct {
	Anchor       string
	Kind         capture.Kind
	Program      string
	Count        int64
	Note         bool
	Summary      string
	Figures      []capture.Count
	Touches      string // how much of the capture the gap touches
	Items        []itemView
	ItemsOmitted int64
}

type itemView struct {
	Kernel, What, Where, Time, LastCompleted string
}

type programView struct {
	Index      int    // into pageData.Programs
	DOMID      string // the section's id: program-N, or input-I-program-N
	Name       string
	Head       string
	Clock      string
	Notes      []string
	Timed      bool
	Bars       []barView
	KernelRows int
	Gaps       []gapView
}

type barView struct {
	Name     string // the kernel's whole name
	Label    string // the name shown: short unless asked whole
	List     string // the program part (hrx init/main) when kernels are kept apart by it
	Total    int64
	TotalStr string
	Share    float64
	ShareStr string
	// Width is the bar's length in percent: the share itself, so bars of
	// one program compare as their shares do.
	Width  float64
	Others int // kernels summed in this bar; 0 for a single kernel
}

// pageData is the JSON the script reads to fill the kernel tables.
type pageData struct {
	Rows     int         `json:"rows"`
	Programs []tableData `json:"programs"`
	// Kernels names the kernels the timeline rectangles refer to.
	Kernels []string `json:"kernels"`
}

type tableData struct {
	// Unit of the program's times: "ns", "ticks", or "" (untimed).
	Unit    string   `json:"unit"`
	Columns []column `json:"columns"`
	// Rows hold one cell per column (see cell).
	Rows [][]any `json:"rows"`
	// Full maps a name cell shown short to the kernel's whole name (the
	// short names of one program are its own, see render.ShortNames).
	Full map[string]string `json:"full,omitempty"`
}

type column struct {
	Key   string `json:"key"`
	Title string `json:"title"`
	// Fmt says how the script shows the column: "text", "count",
	// "share", "dur" (an integer time) or "mean" (a fractional one).
	Fmt string `json:"fmt"`
}

func build(c *capture.Capture, t *analysis.Tables, bd *analysis.Breakdown, tl0 *Timeline, opt Options) *page {
	doc := render.BuildJSON(c, t)
	p := newPage("tally report: "+c.Source.Path, doc, c, opt)
	p.Notes = c.CommentLines()
	p.Breakdown = breakdown(c, bd)
	p.Programs = p.programs(doc, "", p.Gaps, opt)
	p.Ops = opsOf(t.Ops)
	p.capWholeNames()
	tl := timelineBlock{Input: -1}
	tl.timelineSection = timeline(c, tl0, &p.Data.Kernels)
	p.Timelines = []timelineBlock{tl}
	return p
}

// newPage starts a page on doc, the JSON report of c (the one capture, or
// the whole of many).
func newPage(title string, doc *render.JSONReport, c *capture.Capture, opt Options) *page {
	p := &page{
		Title:          title,
		Command:        shellQuote(opt.Command),
		Inputs:         doc.Inputs,
		Clock:          render.ClockLine(c.Clock),
		accountingView: accounting(c, &doc.Accounting, "gap-"),
		Details:        doc.Details,
		CSS:            template.CSS(pageCSS),
		JS:             template.JS(pageJS),
	}
	p.Data.Rows = opt.Rows
	if p.Data.Rows <= 0 {
		p.Data.Rows = 100
	}
	p.Data.Programs = []tableData{}
	p.Data.Kernels = []string{}
	return p
}

// accounting is the verdict, counts and gaps of c; anchors of its gaps
// start with prefix (unique on the page).
func accounting(c *capture.Capture, ja *render.JSONAccounting, prefix string) accountingView {
	v := accountingView{Counts: ja.Input}
	var counted []*capture.Gap // the gaps ja lists, in its order
	for _, g := range c.Accounting.Gaps {
		if g.Count > 0 {
			counted = append(counted, g)
		}
	}
	for i, g := range ja.Gaps {
		gv := gapOf(fmt.Sprintf("%s%d", prefix, i), g, c.Clock.Unit)
		if i < len(counted) && counted[i].Kind == g.Kind {
			gv.Touches = render.GapTouches(c, counted[i])
		}
		v.Gaps = append(v.Gaps, gv)
	}
	gaps, notes := 0, 0
	for _, g := range v.Gaps {
		if g.Note {
			notes++
		} else {
			gaps++
		}
	}
	switch {
	case c.Accounting.CountOf(capture.EmptyCapture) > 0:
		// Then the verdict, as the text report's next line: what the
		// gaps touch, and the gaps beside the empty one (a records file
		// that did not parse) named.
		v.Verdict = "empty"
		// A reader's summary may end its own sentence ("… kernel times."):
		// the page read "times.. INCOMPLETE".
		v.Headline = "NO DISPATCH RECORDED: " + strings.TrimSuffix(c.Accounting.Find(capture.EmptyCapture).Summary, ".") + ". " + render.IncompleteVerdict(c, gaps, 0)
	case ja.Complete:
		v.Verdict = "complete"
		v.Headline = render.CompleteVerdict(c)
		if notes > 0 {
			v.Headline += fmt.Sprintf(" (%s)", units.Plural(int64(notes), "note", "notes"))
		}
	default:
		v.Verdict = "incomplete"
		v.Headline = render.IncompleteVerdict(c, gaps, 0)
	}
	return v
}

// programs lays out doc's programs, adding their tables to the page's
// data; idPrefix keeps section ids unique on the page.
//
// Programs come in the text report's order (render.JSONProgramOrder);
// section ids keep the input's numbering, so a link to a program does not
// move with the order.
func (p *page) programs(doc *render.JSONReport, idPrefix string, gaps []gapView, opt Options) []programView {
	var out []programView
	for _, i := range render.JSONProgramOrder(doc.Programs, opt.InputOrder) {
		pv, td := program(len(p.Data.Programs), &doc.Programs[i], opt.FullNames)
		pv.DOMID = fmt.Sprintf("%sprogram-%d", idPrefix, i)
		for _, g := range gaps {
			if g.Program == pv.Name && g.Program != "" {
				pv.Gaps = append(pv.Gaps, g)
			}
		}
		out = append(out, pv)
		p.Data.Programs = append(p.Data.Programs, td)
	}
	return out
}

// wholeNamesBudget caps the bytes of whole kernel names a page carries
// beside the short ones it shows (tableData.Full): a page of 25,000
// kernels must still open.
const wholeNamesBudget = 1 << 20

// capWholeNames leaves the whole names out of the page when they pass
// wholeNamesBudget, and says so.
func (p *page) capWholeNames() {
	n := 0
	for _, td := range p.Data.Programs {
		for short, full := range td.Full {
			n += len(short) + len(full)
		}
	}
	if n <= wholeNamesBudget {
		return
	}
	for i := range p.Data.Programs {
		p.Data.Programs[i].Full = nil
	}
	p.Notes = append(p.Notes, fmt.Sprintf("kernel names are shown short; their whole names (%s) are left out to keep the page small: --names full shows them whole, and the JSON report has them", render.Bytes(int64(n))))
}

func gapOf(anchor string, g render.JSONGap, unit string) gapView {
	v := gapView{Anchor: anchor, Kind: g.Kind, Program: g.Program, Count: g.Count, Note: g.Note,
		Summary: g.Summary, Figures: g.Figures, ItemsOmitted: g.ItemsOmitted}
	for _, it := range g.Items {
		iv := itemView{Kernel: it.Kernel, What: it.What, Where: it.Where, LastCompleted: it.LastCompleted}
		if it.Program != "" && it.Program != g.Program {
			iv.Where = strings.TrimPrefix(iv.Where+"; program "+it.Program, "; ")
		}
		if it.Time != nil {
			iv.Time = fmt.Sprintf("%d %s", *it.Time, unitName(unit))
		}
		v.Items = append(v.Items, iv)
	}
	return v
}

func program(i int, jp *render.JSONProgram, fullNames bool) (programView, tableData) {
	unit := ""
	if jp.Unit != nil {
		unit = *jp.Unit
	}
	pv := programView{Index: i, Name: jp.Name, Notes: jp.Notes, KernelRows: len(jp.Kernels)}
	head := render.Runs(jp.Instances, jp.InstanceStates)
	head += ", " + units.Plural(jp.Dispatches, "dispatch", "dispatches")
	total := jp.TotalNS
	if total == nil {
		total = jp.TotalTicks
	}
	if total != nil {
		pv.Timed = true
		head += ", " + render.Duration(*total, unit) + " in total"
		if jp.TimedDispatches < jp.Dispatches {
			head += fmt.Sprintf(" over %d timed dispatches", jp.TimedDispatches)
		}
	} else if jp.Dispatches > 0 {
		head += ", no times"
	}
	pv.Head = head
	if jp.Clock != nil {
		pv.Clock = render.ClockLine(*jp.Clock)
	}
	full := make([]string, len(jp.Kernels))
	for k := range jp.Kernels {
		full[k] = jp.Kernels[k].Name
	}
	// The names the script shows come escaped, as the template's are
	// (escape.go): it sets them as text, and the filter finds what is shown.
	var shown []string
	if fullNames {
		shown = make([]string, len(full))
		for k, n := range full {
			shown[k] = safetext.Escape(n)
		}
	} else {
		shown = render.ShortNames(full)
	}
	if pv.Timed {
		pv.Bars = bars(jp.Kernels, shown, unit)
	}
	return pv, table(jp, shown, unit)
}

// bars are the chart's bars: the kernels' shown names (short unless
// asked whole), the whole name on hover.
func bars(ks []render.JSONKernel, shown []string, unit string) []barView {
	var out []barView
	var rest barView
	for i, k := range ks { // already sorted by total time
		tot, share := kernelTotal(&k)
		if tot == nil || share == nil {
			continue
		}
		if len(out) < chartBars {
			out = append(out, barView{Name: k.Name, Label: shown[i], List: k.List, Total: *tot, Share: *share})
			continue
		}
		rest.Others++
		rest.Total += *tot
		rest.Share += *share
	}
	if rest.Others > 0 {
		rest.Name = fmt.Sprintf("%d other kernels", rest.Others)
		rest.Label = rest.Name
		out = append(out, rest)
	}
	for i := range out {
		b := &out[i]
		b.TotalStr = render.Duration(b.Total, unit)
		b.ShareStr = render.Share(b.Share)
		b.Width = b.Share * 100
	}
	return out
}

func kernelTotal(k *render.JSONKernel) (*int64, *float64) {
	if k.TotalNS != nil {
		return k.TotalNS, k.Share
	}
	return k.TotalTicks, k.Share
}

// table lays one program's kernels out for the script. Columns that no
// kernel of the program fills (list, launch, timed) are left out, as the
// text report does.
func table(jp *render.JSONProgram, shown []string, unit string) tableData {
	var lists, launches, partTimed, cats bool
	for _, k := range jp.Kernels {
		lists = lists || k.List != ""
		launches = launches || k.LaunchMeanNS != nil
		partTimed = partTimed || (k.TimedDispatches > 0 && k.TimedDispatches < k.Dispatches)
		cats = cats || k.Category != "kernel"
	}
	cols := []column{{Key: "name", Title: "kernel", Fmt: "text"}}
	if cats {
		cols = append(cols, column{Key: "category", Title: "category", Fmt: "text"})
	}
	if lists {
		cols = append(cols, column{Key: "list", Title: "list", Fmt: "text"})
	}
	cols = append(cols, column{Key: "dispatches", Title: "dispatches", Fmt: "count"})
	if partTimed {
		cols = append(cols, column{Key: "timed", Title: "timed", Fmt: "count"})
	}
	cols = append(cols,
		column{Key: "share", Title: "share", Fmt: "share"},
		column{Key: "total", Title: "total", Fmt: "dur"},
		column{Key: "mean", Title: "mean", Fmt: "mean"},
		column{Key: "min", Title: "min", Fmt: "dur"},
		column{Key: "max", Title: "max", Fmt: "dur"})
	if launches {
		cols = append(cols, column{Key: "launch_mean", Title: "launch mean", Fmt: "mean"})
	}
	td := tableData{Unit: unit, Columns: cols, Rows: make([][]any, 0, len(jp.Kernels))}
	for i := range jp.Kernels {
		k := &jp.Kernels[i]
		row := make([]any, 0, len(cols))
		for _, col := range cols {
			if col.Key == "name" {
				row = append(row, shown[i])
				continue
			}
			row = append(row, cell(k, col.Key, unit))
		}
		td.Rows = append(td.Rows, row)
		if whole := safetext.Escape(k.Name); shown[i] != whole {
			if td.Full == nil {
				td.Full = map[string]string{}
			}
			td.Full[shown[i]] = whole
		}
	}
	return td
}

// cell is one table value: a string for text columns, a number (the
// script formats it as the text report does), "unknown" for min and max of
// aggregated records (never computed from sums), or nil when unavailable.
func cell(k *render.JSONKernel, key, unit string) any {
	dur := func(ns, ticks *int64) any {
		if ns != nil {
			return *ns
		}
		if ticks != nil {
			return *ticks
		}
		if k.TimedDispatches > 0 && unit != "" && (key == "min" || key == "max") {
			return "unknown"
		}
		return nil
	}
	mean := func(ns, ticks *float64) any {
		if ns != nil {
			return *ns
		}
		if ticks != nil {
			return *ticks
		}
		return nil
	}
	switch key {
	case "name":
		return safetext.Escape(k.Name)
	case "category":
		return safetext.Escape(k.Category)
	case "list":
		return safetext.Escape(k.List)
	case "dispatches":
		return k.Dispatches
	case "timed":
		return k.TimedDispatches
	case "share":
		if k.Share == nil {
			return nil
		}
		return *k.Share
	case "total":
		return dur(k.TotalNS, k.TotalTicks)
	case "mean":
		return mean(k.MeanNS, k.MeanTicks)
	case "min":
		return dur(k.MinNS, k.MinTicks)
	case "max":
		return dur(k.MaxNS, k.MaxTicks)
	case "launch_mean":
		return mean(k.LaunchMeanNS, nil)
	}
	return nil
}

func unitName(unit string) string {
	if unit == "" {
		return "units"
	}
	return unit
}

// shellQuote writes args as a shell would need them typed.
func shellQuote(args []string) string {
	var parts []string
	for _, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			parts = append(parts, a)
			continue
		}
		parts = append(parts, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	return strings.Join(parts, " ")
}

var funcs = template.FuncMap{
	"bytes":  render.Bytes,
	"plural": units.Plural,
	"skipped": func(in *capture.InputCount) int64 {
		return in.SkippedTotal()
	},
	"pct":   func(f float64) string { return fmt.Sprintf("%.3f", f) },
	"int64": func(n int) int64 { return int64(n) },
	"f3":    func(f float64) string { return fmt.Sprintf("%.3f", f) },
	"show":  show, // added to every printing action (escapeActions)
}
