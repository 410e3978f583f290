// Package htmlreport writes the report as one self-contained HTML page: the
// accounting first, then per program a bar chart and a sortable, filterable
// kernel table, per queue a timeline strip, and the inputs, clock and command
// that produced it. It renders an analysis.Run (inputs.Read) with Write: the
// page of one input, or of many — the whole's accounting, the merged tables,
// then each input's own. Its numbers come from render.BuildJSON, so they are
// the JSON report's. Every name is untrusted input: the page is built with
// html/template, tables are filled by script through textContent only, and
// nothing is loaded from the network.
package htmlreport

import (
	"bufio"
	_ "embed"
	"html/template"
	"io"
	"sync"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/collectives"
)

// Options are what the page states besides the capture.
type Options struct {
	// Command is the command line that produced the report, one argument
	// per element, shown on the page.
	Command []string
	// Timelines are the dispatch samples the run collected, by input index
	// (each a Sink given to its input's reader: inputs read in parallel
	// never share one); nil or missing where none was collected.
	Timelines []*Timeline
	// Rows is how many rows of each kernel table show before "show all"
	// (default 100): drawing every row of a large capture makes the page
	// slow to open.
	Rows int
	// InputOrder lays the programs out as the input showed them; by
	// default they come costliest first, as in the text report
	// (render.ProgramOrder).
	InputOrder bool
	// FullNames shows kernel names whole; by default the chart and tables
	// show them short, as the text report does (render.ShortNames), with
	// the whole name on hover and in the filter.
	FullNames bool
	// Collectives is the run's collective analysis (collectives.Analyze):
	// a section with a skew chart per collective type; nil: none.
	Collectives *collectives.Result
}

var (
	//go:embed page.tmpl
	pageText string
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string

	// pageTmpl is parsed on first use, not at start-up: every tally
	// command links this package, few write a page.
	pageTmpl = sync.OnceValue(func() *template.Template {
		t := template.Must(template.New("page").Funcs(funcs).Parse(pageText))
		escapeActions(t) // every printed value as the text report prints it
		return t
	})
)

// Write renders the page of the run to w, returning the first write error.
// A run of one input (not Many) is that input's page; it must have been
// read (run.Err is nil).
func Write(w io.Writer, run *analysis.Run, opt Options) error {
	var p *page
	if run.Many() {
		p = buildMany(run, opt)
	} else {
		in := &run.Inputs[0]
		p = build(in.Capture, in.Tables, in.Breakdown, opt.timeline(0), opt)
	}
	p.Collectives = buildColl(opt.Collectives)
	bw := bufio.NewWriter(w)
	uw := &utf8Writer{w: bw}
	if err := pageTmpl().Execute(uw, p); err != nil {
		return err
	}
	if err := uw.close(); err != nil {
		return err
	}
	return bw.Flush()
}

// timeline is input i's dispatch sample, or nil.
func (o *Options) timeline(i int) *Timeline {
	if i < len(o.Timelines) {
		return o.Timelines[i]
	}
	return nil
}
