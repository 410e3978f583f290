package export

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// GapRow is one line of an export's accounting (OUT.gaps.csv, OUT.gaps.jsonl,
// Parquet gaps table). Record says what the line is:
//   - "clock": the input's clock (Kind = domain, Unit = unit, Summary = the
//     statement reports open with);
//   - "input": Count units of Unit read, Used of them used;
//   - "skip": Count units of Unit read and not used, for reason Kind;
//   - "gap": a capture gap (Kind is its stable name, docs/report-json.md);
//   - "export": what the export itself did (Kind: "aggregated_records",
//     "times_not_ns", "untimed_dispatches"; see docs/export.md).
type GapRow struct {
	Input   int32  `parquet:"input" json:"input"`
	Path    string `parquet:"path,dict" json:"path"`
	Rank    string `parquet:"rank,dict" json:"rank"`
	Record  string `parquet:"record,dict" json:"record"`
	Kind    string `parquet:"kind,dict" json:"kind"`
	Program string `parquet:"program,dict" json:"program"`
	Count   int64  `parquet:"count" json:"count"`
	Used    int64  `parquet:"used" json:"used"`
	Unit    string `parquet:"unit,dict" json:"unit"`
	Note    bool   `parquet:"note" json:"note"`
	First   string `parquet:"first" json:"first"`
	Summary string `parquet:"summary" json:"summary"`
	// How much of the input a gap touches (record "gap", not notes; null
	// elsewhere): whether its size is known, and the figure family of
	// docs/report-json.md in the input's unit (ns, or ticks for programs
	// timed in ticks).
	SizeKnown           *bool  `parquet:"size_known,optional" json:"size_known"`
	MissingDeviceTime   *int64 `parquet:"missing_device_time,optional" json:"missing_device_time"`
	UnattributedDevTime *int64 `parquet:"unattributed_device_time,optional" json:"unattributed_device_time"`
	LostDispatches      *int64 `parquet:"lost_dispatches,optional" json:"lost_dispatches"`
	AffectedBasis       string `parquet:"affected_basis" json:"affected_basis"`
}

// gapRows is the whole accounting of input in, in a fixed order.
func gapRows(in *input) []GapRow {
	c := in.Capture
	base := GapRow{Input: int32(in.Index), Path: in.Path, Rank: in.inputRank(c)}
	row := func(record, kind string) GapRow { r := base; r.Record, r.Kind = record, kind; return r }
	var rows []GapRow
	r := row("clock", c.Clock.Domain)
	r.Unit, r.Summary = c.Clock.Unit, c.Clock.Description
	rows = append(rows, r)
	for _, u := range c.Accounting.Input {
		r := row("input", u.Unit)
		r.Unit, r.Count, r.Used = u.Unit, u.Read, u.Used
		rows = append(rows, r)
		for _, s := range u.Skipped {
			r := row("skip", s.Reason)
			r.Unit, r.Count, r.First = u.Unit, s.Count, s.First
			rows = append(rows, r)
		}
	}
	for _, g := range c.Accounting.Gaps {
		r := row("gap", string(g.Kind))
		r.Program = g.Program
		r.setGap(g, c.Clock.Unit)
		rows = append(rows, r)
	}
	w := in.Written
	for _, e := range []struct {
		kind    string
		n       int64
		summary string
	}{
		{"aggregated_records", w.Aggregated, fmt.Sprintf("%d records stand for %d dispatches known only by counts and sums: written with dispatches = their count, device_ns/launch_ns = the sums, start/end null", w.Aggregated, w.AggregatedDispatches)},
		{"times_not_ns", w.NotNS, fmt.Sprintf("records of programs whose clock is device ticks, not ns (no tick-to-ns fit): their *_ns values are ticks; programs: %s", strings.Join(w.NotNSPrograms, ", "))},
		{"untimed_dispatches", w.Untimed, "dispatches without a device interval in the input: start/end/device_ns null"},
	} {
		if e.n > 0 {
			r := row("export", e.kind)
			r.Count, r.Note, r.Summary = e.n, e.kind != "times_not_ns", e.summary
			rows = append(rows, r)
		}
	}
	return rows
}

// setGap sets the columns of a "gap" row from g: its count, summary and
// first item (times in unit) and, unless it is a note, how much of the
// input it touches.
func (r *GapRow) setGap(g *capture.Gap, unit string) {
	r.Count, r.Note, r.Summary = g.Count, g.Note, g.Summary
	if len(g.Items) > 0 {
		r.First = itemText(g.Items[0], unit)
	}
	if af := g.Affected; af != nil && !g.Note {
		known := af.Known
		miss, unattr, lost := capture.SatAdd(af.MissingNs, af.MissingTicks), capture.SatAdd(af.UnattributedNs, af.UnattributedTicks), af.LostDispatches
		r.SizeKnown, r.MissingDeviceTime, r.UnattributedDevTime, r.LostDispatches, r.AffectedBasis = &known, &miss, &unattr, &lost, af.Basis
	}
}

// allGapRows is the accounting of every input in order, then one
// "skipped_file" row per file the arguments' directories hold that no
// reader recognises or that repeats an input (input -1: it is no input; as
// tally report lists them), then the run's own gaps (wholeGapRows).
func allGapRows(ins []*input, run *analysis.Run) []GapRow {
	var rows []GapRow
	for _, in := range ins {
		rows = append(rows, gapRows(in)...)
	}
	for _, sk := range run.Skipped {
		rows = append(rows, GapRow{Input: -1, Path: sk.Path, Record: string(capture.SkippedFile), Kind: string(capture.SkippedFile),
			Count: 1, Unit: "files", Note: true, Summary: sk.Reason})
	}
	return append(rows, wholeGapRows(run)...)
}

// itemText is a gap item in one line: an unfinished dispatch with its
// launch time and the last dispatch completed before it (docs/export.md).
func itemText(it capture.Item, unit string) string {
	s := it.What
	if it.Kernel != "" {
		s = it.Kernel + ": " + s
	}
	var at []string
	if it.Where != "" {
		at = append(at, it.Where)
	}
	if it.Time != nil {
		at = append(at, strings.TrimSpace("at "+itoa(*it.Time)+" "+unit))
	}
	if it.LastCompleted != "" {
		at = append(at, "last completed before it: "+it.LastCompleted)
	}
	if len(at) > 0 {
		s += " (" + strings.Join(at, "; ") + ")"
	}
	return s
}

// InputRow describes one input (Parquet inputs table): where it came from,
// its rank, and whether it is complete.
type InputRow struct {
	Input                int32  `parquet:"input" json:"input"`
	Path                 string `parquet:"path" json:"path"`
	Format               string `parquet:"format,dict" json:"format"`
	Rank                 string `parquet:"rank,dict" json:"rank"`
	RankFrom             string `parquet:"rank_from,dict" json:"rank_from"`
	Bytes                int64  `parquet:"bytes" json:"bytes"`
	Compressed           bool   `parquet:"compressed" json:"compressed"`
	Complete             bool   `parquet:"complete" json:"complete"`
	Gaps                 int64  `parquet:"gaps" json:"gaps"`
	Unfinished           int64  `parquet:"unfinished" json:"unfinished"`
	ClockDomain          string `parquet:"clock_domain,dict" json:"clock_domain"`
	ClockUnit            string `parquet:"clock_unit,dict" json:"clock_unit"`
	Records              int64  `parquet:"records" json:"records"`
	Dispatches           int64  `parquet:"dispatches" json:"dispatches"`
	AggregatedRecords    int64  `parquet:"aggregated_records" json:"aggregated_records"`
	AggregatedDispatches int64  `parquet:"aggregated_dispatches" json:"aggregated_dispatches"`
	Read                 string `parquet:"read" json:"read"`
}

func inputRow(in *input) InputRow {
	c := in.Capture
	r := InputRow{Input: int32(in.Index), Path: in.Path, Format: c.Source.Format, Rank: in.inputRank(c), RankFrom: in.rankFrom(),
		Bytes: c.Source.Bytes, Compressed: c.Source.Compressed, Complete: c.Accounting.Complete(),
		Unfinished: c.Accounting.CountOf(capture.UnfinishedDispatch), ClockDomain: c.Clock.Domain, ClockUnit: c.Clock.Unit,
		Records: in.Written.Records, Dispatches: in.Written.Dispatches,
		AggregatedRecords: in.Written.Aggregated, AggregatedDispatches: in.Written.AggregatedDispatches,
		Read: readSummary(c)}
	for _, g := range c.Accounting.Gaps {
		if !g.Note {
			r.Gaps = capture.SatAdd(r.Gaps, g.Count)
		}
	}
	return r
}

// readSummary is "1933 lines read, 1926 used, 7 skipped; …".
func readSummary(c *capture.Capture) string {
	var parts []string
	for _, u := range c.Accounting.Input {
		parts = append(parts, fmt.Sprintf("%s read, %d used, %d skipped", units.Count(u.Read, u.Unit), u.Used, u.SkippedTotal()))
	}
	return strings.Join(parts, "; ")
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
