package htmlreport

import (
	"fmt"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
	"github.com/tallyprof/tally/render"
)

// minPerInput is the fewest dispatches an input's timeline block keeps.
const minPerInput = 500

// openInputs is how many inputs a page shows with their tables open; more
// start closed, drawn when opened.
const openInputs = 8

// buildMany is the page of many inputs: the accounting of the whole first
// (failed and incomplete inputs, skipped files), the merged tables per
// program, then each input's own accounting and tables, and the timeline
// strips per input, each on its own clock. Every number is the JSON
// report's for the same inputs.
func buildMany(run *analysis.Run, opt Options) *page {
	ins, whole := run.Inputs, run.Whole
	doc := render.BuildJSON(whole, run.Tables)
	doc.Inputs = []capture.Source{}
	for _, in := range ins {
		src := capture.Source{Path: in.Path}
		if in.Capture != nil {
			src = in.Capture.Source
		}
		doc.Inputs = append(doc.Inputs, src)
	}
	p := newPage("tally report: "+units.Plural(int64(len(ins)), "input", "inputs"), doc, whole, opt)
	p.OpenInputs = len(ins) <= openInputs
	p.Merged = fmt.Sprintf("merged over %s: one table per program (by name), kernels by name within a program", units.Plural(int64(len(ins)), "input", "inputs"))
	p.Breakdown = breakdown(whole, run.Breakdown)
	p.Programs = p.programs(doc, "", p.Gaps, opt)
	p.Ops = opsOf(run.Tables.Ops)
	// The inputs share the timeline's budget, each keeping a few queues'
	// worth: the page of 64 ranks stays a page one can open.
	budget := max(DefaultMax/max(len(ins), 1), minPerInput)
	for i, in := range ins {
		sec := inputView{Index: i, Heading: fmt.Sprintf("input %d/%d", i+1, len(ins)), Label: in.Label(), Source: doc.Inputs[i]}
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
		sec.Programs = p.programs(idoc, prefix, sec.Gaps, opt)
		sec.Ops = opsOf(in.Tables.Ops)
		p.Sections = append(p.Sections, sec)
		tl := timelineBlock{Input: i, Heading: sec.Heading, Label: sec.Label}
		tl.timelineSection = timeline(c, opt.timeline(i).limited(budget), &p.Data.Kernels)
		for gi := range tl.Groups {
			// The input's label names its rank: a rank heading only where
			// its queues are on several ranks.
			if rs := tl.Groups[gi].Ranks; len(rs) == 1 && rs[0].Rank == c.Source.Rank {
				rs[0].Rank = ""
			}
		}
		p.Timelines = append(p.Timelines, tl)
	}
	p.capWholeNames()
	return p
}
