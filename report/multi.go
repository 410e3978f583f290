package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/internal/units"
	"github.com/tallyprof/tally/render"
)

// writeManyText is the text report of many inputs: one section per input,
// then the merged tables per program and the accounting of the whole.
func writeManyText(w io.Writer, run *analysis.Run, opt render.TextOptions) error {
	bw := bufio.NewWriter(w)
	// The whole's count, in the words of the merged section's input line.
	safetext.Fprintf(bw, "tally report: %s\n", render.CountLine(run.Whole.Accounting.InputFor("inputs")))
	for i, r := range run.Inputs {
		safetext.Fprintf(bw, "\n== input %d/%d: %s ==\n", i+1, len(run.Inputs), r.Label())
		if r.Err != nil {
			safetext.Fprintf(bw, "FAILED: %v\n", r.Err)
			continue
		}
		opt.Breakdown = r.Breakdown
		if err := render.Text(bw, r.Capture, r.Tables, opt); err != nil {
			return err
		}
		opt.NoLegend = true // the columns' legend once, in the first section
	}
	fmt.Fprintf(bw, "\n== merged over %s: one table per program (by name), kernels by name within a program ==\n", units.Plural(int64(len(run.Inputs)), "input", "inputs"))
	opt.Breakdown = run.Breakdown
	if err := render.Text(bw, run.Whole, run.Tables, opt); err != nil {
		return err
	}
	return bw.Flush()
}

func writeManyJSON(w io.Writer, run *analysis.Run, x Extras) error {
	doc := render.BuildJSON(run.Whole, run.Tables)
	doc.Collectives = render.BuildCollectives(x.Collectives, run)
	doc.Breakdown = render.BuildBreakdown(run.Whole, run.Breakdown)
	doc.Inputs = []capture.Source{}
	for _, r := range run.Inputs {
		src := capture.Source{Path: r.Path}
		if r.Capture != nil {
			src = r.Capture.Source
		}
		doc.Inputs = append(doc.Inputs, src)
		sec := render.BuildSection(r.Path, r.Capture, r.Tables, r.Err)
		sec.Breakdown = render.BuildBreakdown(r.Capture, r.Breakdown)
		doc.Sections = append(doc.Sections, sec)
	}
	if doc.Sections == nil {
		doc.Sections = []render.JSONSection{}
	}
	return render.WriteJSON(w, doc)
}
