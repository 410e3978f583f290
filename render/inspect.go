package render

import (
	"bufio"
	"fmt"
	"io"

	"github.com/tallyprof/tally/capture"
)

// InspectSchema names the JSON inventory's schema (docs/inspect-json.md).
const InspectSchema = "tally.inspect/v1"

// JSONInspect is the document `tally inspect --json` writes.
type JSONInspect struct {
	Schema     string            `json:"schema"`
	Input      capture.Source    `json:"input"`
	Clock      capture.Clock     `json:"clock"`
	Sections   []capture.Section `json:"sections"`
	Accounting JSONAccounting    `json:"accounting"`
	// Queues: as JSONReport.Queues.
	Queues []capture.Queue `json:"queues,omitempty"`
}

// InspectJSON writes the inventory as JSON.
func InspectJSON(w io.Writer, c *capture.Capture) error {
	sections := c.Sections()
	if sections == nil {
		sections = []capture.Section{}
	}
	return WriteJSON(w, JSONInspect{Schema: InspectSchema, Input: c.Source, Clock: c.Clock,
		Sections: sections, Accounting: Accounting(c), Queues: itemQueues(c)})
}

// InspectText writes the inventory for people: the file, each section the
// reader described, then the accounting with every gap.
func InspectText(w io.Writer, c *capture.Capture) error {
	bw := bufio.NewWriter(w)
	p := &printer{w: bw}
	p.f("file: %s\n", c.Source.Path)
	p.f("format: %s\n", c.Source.Format)
	size := fmt.Sprintf("%d bytes", c.Source.Bytes)
	if c.Source.Compressed {
		size += " (compressed)"
	}
	p.f("size: %s\n", size)
	p.f("times: %s\n", clockLine(c.Clock))
	p.f("programs: %d, queues: %d, kernels: %d\n", len(c.Programs), len(c.Queues), len(c.Kernels))
	for _, in := range c.Accounting.Input {
		p.f("%s: %d read, %d used, %d skipped\n", in.Unit, in.Read, in.Used, in.SkippedTotal())
		for _, s := range in.Skipped {
			p.f("  skipped %d: %s", s.Count, s.Reason)
			if s.First != "" {
				p.f(" (first at %s)", s.First)
			}
			p.f("\n")
		}
	}
	for _, s := range c.Inventory { // not Comments: inspect shows the facts themselves
		p.f("\n%s\n", s.Title)
		for _, f := range s.Fields {
			p.f("  %s: %v\n", f.Key, f.Value)
		}
	}
	p.f("\n")
	opt := TextOptions{Items: 10}
	a := &c.Accounting
	if a.Complete() && a.CutUnit != "" {
		p.f("%s\n", CompleteVerdict(c))
	} else if a.Complete() {
		p.f("COMPLETE: nothing is missing that tally can detect\n")
	} else if cl := AffectedClause(c); cl != "" {
		p.f("INCOMPLETE: missing or doubtful data follows — %s\n", cl)
	} else {
		p.f("INCOMPLETE: missing or doubtful data follows\n")
	}
	for _, g := range a.Gaps {
		if g.Count > 0 {
			writeGap(p, c, g, "", c.Clock.Unit, opt)
		}
	}
	if p.err != nil {
		return p.err
	}
	return bw.Flush()
}
