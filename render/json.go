package render

import (
	"encoding/json"
	"io"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// ReportSchema names the JSON report's schema; docs/report-json.md defines it.
// Fields are only ever added within a version.
const ReportSchema = "tally.report/v1"

// JSONReport is the document `tally report --json` writes.
type JSONReport struct {
	Schema     string           `json:"schema"`
	Inputs     []capture.Source `json:"inputs"`
	Clock      capture.Clock    `json:"clock"`
	Programs   []JSONProgram    `json:"programs"`
	Accounting JSONAccounting   `json:"accounting"`
	// Queues is the capture's queue table, present when a gap item names
	// a queue by its index (items[].queue).
	Queues  []capture.Queue   `json:"queues,omitempty"`
	Details []capture.Section `json:"details,omitempty"`
	// Sections holds one report per input when several were read (ranks,
	// runs); the fields above are then the merged view. See multi.go.
	Sections []JSONSection `json:"sections,omitempty"`
	// Collectives matches the run's collectives across its ranks, present
	// when an input holds one (collectives.go).
	Collectives *JSONCollectives `json:"collectives,omitempty"`
	// Breakdown (added within v1) is the time breakdown per device and the
	// launch statistics, when the command made one (tally report does).
	Breakdown *JSONBreakdown `json:"breakdown,omitempty"`
	// JSONOps (ops, ops_unattributed_device_ns, ops_unmodelled_device_ns,
	// op_table) is present when the op table was asked for.
	*JSONOps
}

// JSONProgram is one program's table.
type JSONProgram struct {
	Name           string          `json:"name"`
	Instances      int64           `json:"instances"`
	InstanceStates []capture.Count `json:"instance_states,omitempty"`
	// Unit of every time of this program: "ns", "ticks", or null (untimed).
	Unit            *string        `json:"unit"`
	Clock           *capture.Clock `json:"clock,omitempty"`
	Notes           []string       `json:"notes,omitempty"`
	Dispatches      int64          `json:"dispatches"`
	TimedDispatches int64          `json:"timed_dispatches"`
	TotalNS         *int64         `json:"total_ns"`
	TotalTicks      *int64         `json:"total_ticks,omitempty"`
	Kernels         []JSONKernel   `json:"kernels"`
}

// JSONKernel is one kernel row. Times are null when unavailable; *_ticks
// fields replace *_ns ones when the program's unit is ticks.
type JSONKernel struct {
	Name            string           `json:"name"`
	ID              *uint64          `json:"id,omitempty"`
	Resolved        bool             `json:"resolved"`
	Category        string           `json:"category"`
	List            string           `json:"list,omitempty"`
	Dispatches      int64            `json:"dispatches"`
	TimedDispatches int64            `json:"timed_dispatches"`
	Share           *float64         `json:"share"`
	TotalNS         *int64           `json:"total_ns"`
	MeanNS          *float64         `json:"mean_ns"`
	MinNS           *int64           `json:"min_ns"`
	MaxNS           *int64           `json:"max_ns"`
	LaunchTotalNS   *int64           `json:"launch_total_ns"`
	LaunchMeanNS    *float64         `json:"launch_mean_ns"`
	TotalTicks      *int64           `json:"total_ticks,omitempty"`
	MeanTicks       *float64         `json:"mean_ticks,omitempty"`
	MinTicks        *int64           `json:"min_ticks,omitempty"`
	MaxTicks        *int64           `json:"max_ticks,omitempty"`
	Links           map[string]int64 `json:"links,omitempty"`
	// AggregatedDispatches counts dispatches known only from aggregated
	// records; min and max are then null (unknown, never computed from
	// sums).
	AggregatedDispatches int64 `json:"aggregated_dispatches,omitempty"`
}

// JSONAccounting is the capture's accounting.
type JSONAccounting struct {
	Complete bool `json:"complete"`
	// EndMarker is present, false, when the input has no end marker (a
	// no_end_marker note): complete then means complete up to the last
	// CutUnit, since a cut between two of them cannot be seen. Absent when
	// the input's end is checked.
	EndMarker *bool                 `json:"end_marker,omitempty"`
	CutUnit   string                `json:"cut_unit,omitempty"`
	Input     []*capture.InputCount `json:"input"`
	Gaps      []JSONGap             `json:"gaps"`
	// Affected (added within v1) sums what the gaps touch over the device
	// time in the tables; absent when the gaps were not sized.
	Affected *JSONTotals `json:"affected,omitempty"`
}

// JSONGap is one gap; items is never null.
type JSONGap struct {
	Kind    capture.Kind    `json:"kind"`
	Program string          `json:"program,omitempty"`
	Count   int64           `json:"count"`
	Note    bool            `json:"note"`
	Summary string          `json:"summary"`
	Figures []capture.Count `json:"figures,omitempty"`
	// Affected (added within v1): how much of the capture the gap touches;
	// absent for notes.
	Affected     *JSONAffected  `json:"affected,omitempty"`
	Items        []capture.Item `json:"items"`
	ItemsOmitted int64          `json:"items_omitted"`
}

// BuildJSON assembles the JSON document.
func BuildJSON(c *capture.Capture, r *analysis.Tables) *JSONReport {
	doc := &JSONReport{
		Schema:     ReportSchema,
		Inputs:     []capture.Source{c.Source},
		Clock:      c.Clock,
		Programs:   []JSONProgram{},
		Accounting: Accounting(c),
		Queues:     itemQueues(c),
		Details:    c.Sections(),
	}
	for _, pt := range r.Programs {
		doc.Programs = append(doc.Programs, jsonProgram(&pt))
	}
	doc.JSONOps = jsonOps(r.Ops)
	return doc
}

// Accounting converts a capture's accounting for JSON output.
func Accounting(c *capture.Capture) JSONAccounting {
	a := JSONAccounting{Complete: c.Accounting.Complete(), Input: c.Accounting.Input, Gaps: []JSONGap{}}
	if c.Accounting.CutUnit != "" {
		no := false
		a.EndMarker, a.CutUnit = &no, c.Accounting.CutUnit
	}
	if a.Input == nil {
		a.Input = []*capture.InputCount{}
	}
	for _, in := range a.Input {
		if in.Skipped == nil {
			in.Skipped = []*capture.Skip{}
		}
	}
	for _, g := range c.Accounting.Gaps {
		if g.Count == 0 {
			continue
		}
		a.Gaps = append(a.Gaps, Gap(g))
	}
	a.Affected = jsonTotals(c.Accounting.Affected)
	return a
}

// Gap converts one gap for JSON output.
func Gap(g *capture.Gap) JSONGap {
	items := g.Items
	if items == nil {
		items = []capture.Item{}
	}
	return JSONGap{Kind: g.Kind, Program: g.Program, Count: g.Count, Note: g.Note,
		Summary: g.Summary, Figures: g.Figures, Affected: jsonAffected(g), Items: items, ItemsOmitted: g.ItemsOmitted}
}

func jsonProgram(pt *analysis.ProgramTable) JSONProgram {
	jp := JSONProgram{
		Name: pt.Program.Name, Instances: pt.Program.Instances, InstanceStates: pt.Program.InstanceStates,
		Clock: pt.Program.Clock, Notes: pt.Program.Notes,
		Dispatches: pt.Dispatches, TimedDispatches: pt.Timed, Kernels: []JSONKernel{},
	}
	unit := pt.Clock.Unit
	if pt.Clock.Timed && unit != "" {
		jp.Unit = &unit
	}
	ns := jp.Unit != nil && unit == "ns"
	ticks := jp.Unit != nil && !ns
	jp.TotalNS, jp.TotalTicks = i64If(pt.Total, pt.Timed > 0 && ns), i64If(pt.Total, pt.Timed > 0 && ticks)
	for _, k := range pt.Kernels {
		// A timed kernel's times fill the *_ns fields or the *_ticks ones.
		inNS, inTicks, minMax := k.Timed > 0 && ns, k.Timed > 0 && ticks, k.MinMaxKnown
		jk := JSONKernel{Name: k.Kernel.Name, Resolved: k.Kernel.Resolved, Category: k.Kernel.Category, List: k.Kernel.List,
			Dispatches: k.Dispatches, TimedDispatches: k.Timed, Links: k.Links, AggregatedDispatches: k.Aggregated,
			Share:   f64If(k.Share, inNS || inTicks),
			TotalNS: i64If(k.Total, inNS), MeanNS: f64If(k.Mean, inNS), MinNS: i64If(k.Min, inNS && minMax), MaxNS: i64If(k.Max, inNS && minMax),
			TotalTicks: i64If(k.Total, inTicks), MeanTicks: f64If(k.Mean, inTicks),
			MinTicks: i64If(k.Min, inTicks && minMax), MaxTicks: i64If(k.Max, inTicks && minMax),
			LaunchTotalNS: i64If(k.LaunchTotal, k.Launched > 0 && ns), LaunchMeanNS: f64If(k.LaunchMean, k.Launched > 0 && ns)}
		if k.Kernel.HasID {
			id := k.Kernel.ID
			jk.ID = &id
		}
		jp.Kernels = append(jp.Kernels, jk)
	}
	return jp
}

func i64(v int64) *int64 { return &v }

func f64(v float64) *float64 {
	// Round to what a person can use; keeps the JSON stable across runs.
	v = round6(v)
	return &v
}

// i64If and f64If are a figure that only ok makes known: i64(v) or f64(v),
// else nil (JSON null, or absent under omitempty). Their (v, ok) order
// takes a (float64, bool) method's result as it is: f64If(r.TFLOPS()).
func i64If(v int64, ok bool) *int64 {
	if !ok {
		return nil
	}
	return i64(v)
}

func f64If(v float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return f64(v)
}

// JSON writes the report as indented JSON.
func JSON(w io.Writer, c *capture.Capture, r *analysis.Tables) error {
	return WriteJSON(w, BuildJSON(c, r))
}

// WriteJSON writes a JSON document (a report built with BuildJSON and
// completed by the caller) indented, as every JSON output is.
func WriteJSON(w io.Writer, doc any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
