package diff

import (
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/render"
)

// Schema names the JSON document's schema; docs/diff-json.md defines it.
// Fields are only ever added within a version.
const Schema = "tally.diff/v1"

// JSONDiff is the document `tally diff --json` writes.
type JSONDiff struct {
	Schema     string        `json:"schema"`
	Statistics JSONStats     `json:"statistics"`
	Sides      []JSONSide    `json:"sides"`
	Notes      []string      `json:"notes"`
	Programs   []JSONProgram `json:"programs"`
	// FailIfSlower is the --fail-if-slower threshold in percent (null
	// when not given) and Slower what exceeded it.
	FailIfSlower *float64 `json:"fail_if_slower"`
	Slower       []string `json:"slower"`
}

// JSONStats states how every metric was computed.
type JSONStats struct {
	Summary    string  `json:"summary"`
	Test       string  `json:"test"`
	Alpha      float64 `json:"alpha"`
	Confidence float64 `json:"confidence"`
}

// JSONSide is one side: its label, completeness and every input with its
// own accounting (render's, as in tally.report/v1).
type JSONSide struct {
	Label    string      `json:"label"`
	Complete bool        `json:"complete"`
	Inputs   []JSONInput `json:"inputs"`
	// RunsLeftOut counts the runs left out of the samples because they
	// failed or never ended (capture.Program.IncompleteRuns).
	RunsLeftOut int `json:"runs_left_out"`
	// Skipped are files in the side's directories no reader recognises.
	Skipped []JSONSkipped `json:"skipped"`
	// MissingRanks are the ranks the other side states and this one lacks.
	MissingRanks []string `json:"missing_ranks"`
	// RunGaps (added within v1) are the gaps of the side's inputs as a run
	// that no input's accounting holds: one recording read twice, two
	// inputs of one rank.
	RunGaps []render.JSONGap `json:"run_gaps"`
}

// JSONSkipped is a file passed over, and why.
type JSONSkipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// JSONInput is one input file of a side.
type JSONInput struct {
	Source     capture.Source        `json:"source"`
	Clock      capture.Clock         `json:"clock"`
	Accounting render.JSONAccounting `json:"accounting"`
}

// JSONProgram is one program's comparison.
type JSONProgram struct {
	Name             string       `json:"name"`
	Status           Status       `json:"status"`
	RunsA            int          `json:"runs_a"`
	RunsB            int          `json:"runs_b"`
	LeftOutA         int          `json:"runs_left_out_a"`
	LeftOutB         int          `json:"runs_left_out_b"`
	Unit             *string      `json:"unit"`
	TimeRefused      string       `json:"time_refused,omitempty"`
	UntimedA         int64        `json:"untimed_dispatches_a"`
	UntimedB         int64        `json:"untimed_dispatches_b"`
	DispatchesPerRun JSONMetric   `json:"dispatches_per_run"`
	TimePerRun       *JSONMetric  `json:"time_per_run"`
	Kernels          []JSONKernel `json:"kernels"`
	GapsA            []string     `json:"gaps_a"`
	GapsB            []string     `json:"gaps_b"`
}

// JSONKernel is one kernel's comparison.
type JSONKernel struct {
	Name             string      `json:"name"`
	List             string      `json:"list,omitempty"`
	Category         string      `json:"category"`
	Status           Status      `json:"status"`
	Changes          []string    `json:"changes"`
	DispatchesPerRun JSONMetric  `json:"dispatches_per_run"`
	TimePerDispatch  *JSONMetric `json:"time_per_dispatch"`
	TimePerRun       *JSONMetric `json:"time_per_run"`
	AggregatedA      int64       `json:"aggregated_dispatches_a"`
	AggregatedB      int64       `json:"aggregated_dispatches_b"`
	// GapsA and GapsB are the kinds of the program's gaps that list an
	// item of this kernel.
	GapsA []capture.Kind `json:"gaps_a"`
	GapsB []capture.Kind `json:"gaps_b"`
}

// JSONMetric is one quantity compared; see docs/diff-json.md.
type JSONMetric struct {
	A           *JSONSummary `json:"a"`
	B           *JSONSummary `json:"b"`
	Compared    bool         `json:"compared"`
	Exact       bool         `json:"exact"`
	P           *float64     `json:"p"`
	Significant bool         `json:"significant"`
	// Changed is a change called: significant and the interval of the
	// change excludes 0 (Metric.Changed).
	Changed  bool     `json:"changed"`
	Delta    *float64 `json:"delta"`
	DeltaLo  *float64 `json:"delta_lo"`
	DeltaHi  *float64 `json:"delta_hi"`
	Warnings []string `json:"warnings"`
}

// JSONSummary is one side's sample; lo and hi are null when the sample is
// too small for a finite interval.
type JSONSummary struct {
	N      int      `json:"n"`
	Center float64  `json:"center"`
	Lo     *float64 `json:"lo"`
	Hi     *float64 `json:"hi"`
}

// BuildJSON assembles the document; failPct < 0 means no threshold.
func (r *Result) BuildJSON(failPct float64) *JSONDiff {
	doc := &JSONDiff{
		Schema: Schema,
		Statistics: JSONStats{Summary: "median of per-run values", Test: "Mann-Whitney U (exact comparison for dispatch counts constant on both sides)",
			Alpha: Alpha, Confidence: Confidence},
		Notes: nonNil(r.Notes), Programs: []JSONProgram{}, Slower: []string{},
	}
	if failPct >= 0 {
		doc.FailIfSlower = &failPct
		doc.Slower = nonNil(r.Slower(failPct))
	}
	for _, s := range []*Side{r.A, r.B} {
		js := JSONSide{Label: s.Label, Complete: s.Complete(), Inputs: []JSONInput{}, RunsLeftOut: s.LeftOut(), MissingRanks: nonNil(s.MissingRanks)}
		js.Skipped, js.RunGaps = []JSONSkipped{}, []render.JSONGap{}
		for _, g := range s.RunGaps {
			js.RunGaps = append(js.RunGaps, render.Gap(g))
		}
		for _, sk := range s.Skipped {
			js.Skipped = append(js.Skipped, JSONSkipped{Path: sk.Path, Reason: sk.Reason})
		}
		for _, c := range s.Captures {
			js.Inputs = append(js.Inputs, JSONInput{Source: c.Source, Clock: c.Clock, Accounting: render.Accounting(c)})
		}
		doc.Sides = append(doc.Sides, js)
	}
	for i := range r.Programs {
		p := &r.Programs[i]
		jp := JSONProgram{Name: p.Name, Status: p.Status, RunsA: p.RunsA, RunsB: p.RunsB, LeftOutA: p.LeftOutA, LeftOutB: p.LeftOutB, TimeRefused: p.TimeRefused,
			UntimedA: p.UntimedA, UntimedB: p.UntimedB, DispatchesPerRun: jsonMetric(&p.Dispatches),
			Kernels: []JSONKernel{}, GapsA: gapKinds(p.GapsA), GapsB: gapKinds(p.GapsB)}
		if p.Unit != "" {
			u := p.Unit
			jp.Unit = &u
			jp.TimePerRun = ptr(jsonMetric(&p.Total))
		}
		for j := range p.Kernels {
			k := &p.Kernels[j]
			jk := JSONKernel{Name: k.Name, List: k.List, Category: k.Category, Status: k.Status, Changes: nonNil(k.Changes()),
				DispatchesPerRun: jsonMetric(&k.Dispatches), AggregatedA: k.AggregatedA, AggregatedB: k.AggregatedB,
				GapsA: nonNilKinds(k.GapsA), GapsB: nonNilKinds(k.GapsB)}
			if p.Unit != "" {
				jk.TimePerDispatch = ptr(jsonMetric(&k.PerDispatch))
				jk.TimePerRun = ptr(jsonMetric(&k.PerRun))
			}
			jp.Kernels = append(jp.Kernels, jk)
		}
		doc.Programs = append(doc.Programs, jp)
	}
	return doc
}

func jsonMetric(m *Metric) JSONMetric {
	j := JSONMetric{A: jsonSummary(m.A), B: jsonSummary(m.B), Compared: m.Compared, Exact: m.Exact,
		Significant: m.Significant, Changed: m.Changed(), Warnings: nonNil(m.Warnings)}
	if m.Compared {
		j.P = roundSig(m.P)
	}
	if m.HasDelta {
		j.Delta = round(m.Delta)
	}
	if m.DeltaCI {
		j.DeltaLo, j.DeltaHi = round(m.DeltaLo), round(m.DeltaHi)
	}
	return j
}

func jsonSummary(s *Summary) *JSONSummary {
	if s == nil {
		return nil
	}
	j := &JSONSummary{N: s.N, Center: *round(s.Center)}
	if s.CI {
		j.Lo, j.Hi = round(s.Lo), round(s.Hi)
	}
	return j
}

func nonNilKinds(k []capture.Kind) []capture.Kind {
	if k == nil {
		return []capture.Kind{}
	}
	return k
}

// gapKinds are the kinds of gs, each once: several inputs of a side may
// have a gap of one kind.
func gapKinds(gs []*capture.Gap) []string {
	out := []string{}
	for _, g := range gs {
		if !slices.Contains(out, string(g.Kind)) {
			out = append(out, string(g.Kind))
		}
	}
	return out
}

// round keeps six decimals so the document is stable across platforms.
func round(v float64) *float64 {
	v = math.Round(v*1e6) / 1e6
	return &v
}

// roundSig keeps six significant digits: a p-value of 1e-11 stays
// distinct from an exact 0.
func roundSig(v float64) *float64 {
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return &v
}

func ptr[T any](v T) *T { return &v }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// WriteJSON writes the document, indented; failPct < 0 means no threshold.
func (r *Result) WriteJSON(w io.Writer, failPct float64) error {
	return render.WriteJSON(w, r.BuildJSON(failPct))
}
