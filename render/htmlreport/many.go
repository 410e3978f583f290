package htmlreport

import (
	"bufio"
	"fmt"
	"io"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/render"
)

// Input is one input of a report of many (a rank, a run): its capture and
// tables, or the error that kept it from being read, and the dispatch
// sample its own reader fed (one Timeline per input, so inputs read in
// parallel never share one).
type Input struct {
	Path string
	// Label names the input on the page (its rank and path); Path when
	// empty.
	Label    string
	Capture  *capture.Capture
	Tables   *analysis.Tables
	Err      error
	Timeline *Timeline
}

// WriteMany renders the page of many inputs: the accounting of the whole
// first (failed and incomplete inputs, skipped files), the merged tables
// per program, then each input's own accounting and tables, and the
// timeline strips per input, each on its own clock. whole and merged are
// the merged view (inputs.Run's Whole and Tables), so every number is the
// JSON report's for the same inputs.
func WriteMany(w io.Writer, whole *capture.Capture, merged *analysis.Tables, ins []Input, opt Options) error {
	p := buildMany(whole, merged, ins, opt)
	bw := bufio.NewWriter(w)
	if err := pageTmpl.Execute(bw, p); err != nil {
		return err
	}
	return bw.Flush()
}

// minPerInput is the fewest dispatches an input's timeline block keeps.
const minPerInput = 500

// openInputs is how many inputs a page shows with their tables open; more
// start closed, drawn when opened.
const openInputs = 8

func buildMany(whole *capture.Capture, merged *analysis.Tables, ins []Input, opt Options) *page {
	doc := render.BuildJSON(whole, merged)
	doc.Inputs = []capture.Source{}
	for _, in := range ins {
		src := capture.Source{Path: in.Path}
		if in.Capture != nil {
			src = in.Capture.Source
		}
		doc.Inputs = append(doc.Inputs, src)
	}
	p := newPage(fmt.Sprintf("tally report: %d inputs", len(ins)), doc, whole, opt)
	p.OpenInputs = len(ins) <= openInputs
	p.Merged = fmt.Sprintf("merged over %d inputs: one table per program (by name), kernels by name within a program", len(ins))
	p.Programs = p.programs(doc, "", p.Gaps)
	// The inputs share the timeline's budget, each keeping a few queues'
	// worth: the page of 64 ranks stays a page one can open.
	budget := max(DefaultMax/max(len(ins), 1), minPerInput)
	for i, in := range ins {
		sec := inputView{Index: i, Heading: fmt.Sprintf("input %d/%d", i+1, len(ins)), Label: in.Label, Source: doc.Inputs[i]}
		if sec.Label == "" {
			sec.Label = in.Path
		}
		if in.Err != nil || in.Capture == nil {
			sec.Verdict, sec.Headline = "failed", "NOT READ: nothing of this input is in the tables"
			if in.Err != nil {
				sec.Error = in.Err.Error()
			}
			p.Sections = append(p.Sections, sec)
			continue
		}
		c := in.Capture
		idoc := render.BuildJSON(c, in.Tables)
		prefix := fmt.Sprintf("input-%d-", i)
		sec.Rank = c.Source.Rank
		sec.Clock = render.ClockLine(c.Clock)
		sec.accountingView = accounting(c, &idoc.Accounting, prefix+"gap-")
		sec.Notes = c.CommentLines()
		sec.Programs = p.programs(idoc, prefix, sec.Gaps)
		p.Sections = append(p.Sections, sec)
		tl := timelineBlock{Input: i, Heading: sec.Heading, Label: sec.Label}
		tl.timelineSection = timeline(c, in.Timeline.limited(budget), &p.Data.Kernels)
		for gi := range tl.Groups {
			// The input's label names its rank: a rank heading only where
			// its queues are on several ranks.
			if rs := tl.Groups[gi].Ranks; len(rs) == 1 && rs[0].Rank == c.Source.Rank {
				rs[0].Rank = ""
			}
		}
		p.Timelines = append(p.Timelines, tl)
	}
	return p
}
