package render

import (
	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// JSONSection is one input's own report within a report of many inputs:
// its rank, its source, its tables and its own accounting — or the error
// that kept it from being read.
type JSONSection struct {
	Rank       string          `json:"rank,omitempty"`
	Input      capture.Source  `json:"input"`
	Error      string          `json:"error,omitempty"`
	Clock      *capture.Clock  `json:"clock,omitempty"`
	Programs   []JSONProgram   `json:"programs"`
	Accounting *JSONAccounting `json:"accounting,omitempty"`
	// Queues: as JSONReport.Queues, for this input's gap items.
	Queues []capture.Queue `json:"queues,omitempty"`
	// Breakdown: as JSONReport.Breakdown, this input's.
	Breakdown *JSONBreakdown `json:"breakdown,omitempty"`
	// JSONOps: this input's op table, when asked for.
	*JSONOps
}

// BuildSection is the section of one input read; c is nil for an input that
// failed (err names why).
func BuildSection(path string, c *capture.Capture, t *analysis.Tables, err error) JSONSection {
	if c == nil {
		s := JSONSection{Input: capture.Source{Path: path}, Programs: []JSONProgram{}}
		if err != nil {
			s.Error = err.Error()
		}
		return s
	}
	doc := BuildJSON(c, t)
	clock := c.Clock
	return JSONSection{Rank: c.Source.Rank, Input: c.Source, Clock: &clock, Programs: doc.Programs, Accounting: &doc.Accounting, Queues: doc.Queues, JSONOps: doc.JSONOps}
}
