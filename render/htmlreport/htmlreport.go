// Package htmlreport writes the report as one self-contained HTML page: the
// accounting first, then per program a bar chart and a sortable, filterable
// kernel table, per queue a timeline strip, and the inputs, clock and command
// that produced it. Its numbers come from render.BuildJSON, so they are the
// JSON report's. Every name is untrusted input: the page is built with
// html/template, tables are filled by script through textContent only, and
// nothing is loaded from the network.
package htmlreport

import (
	"bufio"
	_ "embed"
	"html/template"
	"io"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// Options are what the page states besides the capture.
type Options struct {
	// Command is the command line that produced the report, one argument
	// per element, shown on the page.
	Command []string
	// Timeline is the dispatch sample the run collected (a Sink given to
	// the reader); nil when none was collected.
	Timeline *Timeline
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
}

var (
	//go:embed page.tmpl
	pageText string
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string

	pageTmpl = template.Must(template.New("page").Funcs(funcs).Parse(pageText))
)

// Write renders the page for capture c and its tables to w, returning the
// first write error.
func Write(w io.Writer, c *capture.Capture, t *analysis.Tables, opt Options) error {
	p := build(c, t, opt)
	bw := bufio.NewWriter(w)
	if err := pageTmpl.Execute(bw, p); err != nil {
		return err
	}
	return bw.Flush()
}
