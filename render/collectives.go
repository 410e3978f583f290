package render

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/collectives"
	"github.com/tallyprof/tally/internal/safetext"
)

// JSONCollectives is the report's collectives section
// (docs/report-json.md, "Collectives").
type JSONCollectives struct {
	// Matched is false for one input: its collectives are counted per
	// rank, not matched.
	Matched      bool                    `json:"matched"`
	Clock        string                  `json:"clock"`
	Comparable   bool                    `json:"clocks_comparable"`
	PointToPoint int64                   `json:"point_to_point"`
	Ungrouped    int64                   `json:"ungrouped"`
	Notes        []string                `json:"notes"`
	Types        []JSONCollectiveType    `json:"types"`
	Instances    []JSONCollective        `json:"instances"`
	Ranks        []JSONCollectiveRankRow `json:"ranks"`
}

// JSONCollectiveType sums one collective type's instances.
type JSONCollectiveType struct {
	Name           string   `json:"name"`
	Instances      int64    `json:"instances"`
	Timed          int64    `json:"timed"`
	SkewMeanNs     *float64 `json:"skew_mean_ns"`
	SkewMaxNs      *int64   `json:"skew_max_ns"`
	TransferMeanNs *float64 `json:"transfer_mean_ns"`
	BusBWMean      *float64 `json:"busbw_mean_gbps"`
	Bytes          int64    `json:"bytes"`
	StragglerRank  *int64   `json:"straggler_rank"`
	StragglerCount int64    `json:"straggler_count"`
}

// JSONCollective is one instance matched across ranks.
type JSONCollective struct {
	Name         string                `json:"name"`
	Group        string                `json:"group"`
	Seq          *int64                `json:"seq"`
	Ordinal      *int64                `json:"ordinal"`
	GroupSize    *int64                `json:"group_size"`
	Ranks        []collectives.Arrival `json:"ranks"`
	MissingRanks []int64               `json:"missing_ranks"`
	SkewNs       *int64                `json:"skew_ns"`
	Straggler    *int64                `json:"straggler_rank"`
	TransferNs   *int64                `json:"transfer_ns"`
	Bytes        *int64                `json:"bytes"`
	AlgBW        *float64              `json:"algbw_gbps"`
	BusBW        *float64              `json:"busbw_gbps"`
}

// JSONCollectiveRankRow is one rank's collectives.
type JSONCollectiveRankRow struct {
	Rank           int64  `json:"rank"`
	Input          string `json:"input"`
	Collectives    int64  `json:"collectives"`
	TimeNs         int64  `json:"time_ns"`
	Matched        int64  `json:"matched"`
	WaitNs         int64  `json:"wait_ns"`
	StragglerCount int64  `json:"straggler_count"`
	// CommExposedNs is the rank's communication not hidden under compute
	// (its devices' breakdown rows), null without a breakdown.
	CommExposedNs *int64 `json:"comm_exposed_ns"`
}

// known is v, or nil for a negative v: the figure is unknown.
func known(v int64) *int64 { return i64If(v, v >= 0) }

// BuildCollectives is the JSON section of a collective analysis; nil for
// none.
func BuildCollectives(res *collectives.Result, run *analysis.Run) *JSONCollectives {
	if res == nil {
		return nil
	}
	j := &JSONCollectives{Matched: res.Matched, Clock: res.Clock, Comparable: res.Comparable, PointToPoint: res.PointToPoint,
		Ungrouped: res.Ungrouped, Notes: append([]string{}, res.Notes...), Types: []JSONCollectiveType{},
		Instances: []JSONCollective{}, Ranks: []JSONCollectiveRankRow{}}
	for _, t := range res.Types() {
		j.Types = append(j.Types, JSONCollectiveType{Name: t.Type, Instances: t.Instances, Timed: t.Timed, Bytes: t.Bytes,
			StragglerCount: t.StragglerCount, StragglerRank: known(t.Straggler),
			SkewMeanNs: f64If(t.SkewMean, t.Timed > 0), SkewMaxNs: i64If(t.SkewMax, t.Timed > 0),
			TransferMeanNs: f64If(t.TransferMean, t.HasTransfer), BusBWMean: f64If(t.BusBWMean, t.HasBusBW)})
	}
	for _, in := range res.Instances {
		ji := JSONCollective{Name: in.Type, Group: in.Group, Seq: known(in.Seq), GroupSize: known(in.GroupSize),
			Ranks: in.Arrivals, MissingRanks: in.Missing, Bytes: known(in.Bytes), TransferNs: known(in.Transfer),
			Straggler: known(in.Straggler), Ordinal: i64If(in.Ordinal, in.Seq < 0), SkewNs: i64If(in.Skew, in.Timed),
			AlgBW: f64If(in.AlgBW, in.HasAlgBW), BusBW: f64If(in.BusBW, in.HasBusBW)}
		if ji.MissingRanks == nil {
			ji.MissingRanks = []int64{}
		}
		j.Instances = append(j.Instances, ji)
	}
	for _, r := range res.Ranks {
		j.Ranks = append(j.Ranks, JSONCollectiveRankRow{Rank: r.Rank, Input: run.Inputs[r.Input].Path, Collectives: r.Collectives,
			TimeNs: r.Time, Matched: r.Matched, WaitNs: r.Wait, StragglerCount: r.StragglerCount,
			CommExposedNs: i64If(r.Exposed, r.HasExposed)})
	}
	return j
}

// collTop is how many ranks and instances the text section lists.
const collTop = 10

// CollectivesText writes the collectives section of the text report:
// per type, the ranks that waited most and were most often last, and the
// instances of largest skew (every figure is in the JSON).
func CollectivesText(w io.Writer, res *collectives.Result) error {
	if res == nil {
		return nil
	}
	bw := bufio.NewWriter(w)
	f := func(format string, args ...any) { safetext.Fprintf(bw, format, args...) }
	how := "counted per rank, not matched (one input)"
	if res.Matched {
		how = fmt.Sprintf("%d instances matched across %d ranks", len(res.Instances), len(res.Ranks))
	}
	f("\n== collectives: %s ==\n", how)
	if n := unmatched(res); n > 0 {
		// The header counts every instance; these are not on every rank
		// read, so their skew and straggler are over the ranks that hold them.
		f("not on every rank read: %d of %d instances (gap unmatched_collective): their figures are over the ranks that hold them\n", n, len(res.Instances))
	}
	// The section's own figures are what these gaps make unsure: said
	// here, not only in the accounting far below.
	if g := gapOf(res, collectives.CollectiveMismatch); g != nil {
		for _, line := range wrap(fmt.Sprintf("ranks disagree: %d of %d instances (gap collective_mismatch): their type, size or group size differs by rank; "+
			"their bytes or bandwidth are not computed", g.Count, len(res.Instances)), 120) {
			f("%s\n", line)
		}
	}
	if g := gapOf(res, collectives.CollectiveClockOffset); g != nil {
		over, _ := g.Figure("max_overlap_ns")
		for _, line := range wrap(fmt.Sprintf("clocks offset: %d of %d instances (gap collective_clock_offset) ended on a rank before another rank started them: "+
			"skew, waits and stragglers are off by at least %s", g.Count, len(res.Instances), Duration(over, "ns")), 120) {
			f("%s\n", line)
		}
	}
	for _, line := range wrap("clocks: "+res.Clock, 120) {
		f("%s\n", line)
	}
	for _, n := range res.Notes {
		for _, line := range wrap("note: "+n, 120) {
			f("%s\n", line)
		}
	}
	if res.PointToPoint > 0 || res.Ungrouped > 0 {
		f("not matched: %d point-to-point (send/recv) and %d without a process group (the trace names none)\n", res.PointToPoint, res.Ungrouped)
	}
	if res.Matched && len(res.Instances) > 0 {
		f("\n%-14s %9s %7s %12s %12s %12s %12s %16s\n", "type", "instances", "timed", "skew mean", "skew max", "transfer", "busbw mean", "most often last")
		for _, t := range res.Types() {
			skewMean, skewMax, tr, bus, last := "-", "-", "-", "-", "-"
			if t.Timed > 0 {
				skewMean, skewMax = DurationF(t.SkewMean, "ns"), Duration(t.SkewMax, "ns")
			}
			if t.HasTransfer {
				tr = DurationF(t.TransferMean, "ns")
			}
			if t.HasBusBW {
				bus = fmt.Sprintf("%.2f GB/s", t.BusBWMean)
			}
			if t.Straggler >= 0 {
				last = fmt.Sprintf("rank %d ×%d", t.Straggler, t.StragglerCount)
			}
			f("%-14s %9d %7d %12s %12s %12s %12s %16s\n", clip(t.Type, 14), t.Instances, t.Timed, skewMean, skewMax, tr, bus, last)
		}
	}
	ranks := append([]collectives.Rank(nil), res.Ranks...)
	sort.SliceStable(ranks, func(i, j int) bool { return ranks[i].Wait > ranks[j].Wait })
	title := "ranks"
	if len(ranks) > collTop {
		title = fmt.Sprintf("ranks (%d of %d, longest waits)", collTop, len(ranks))
		ranks = ranks[:collTop]
	}
	f("\n%-34s %11s %12s %12s %12s %10s\n", title, "collectives", "time", "waiting", "exposed", "last")
	for _, r := range ranks {
		exposed := "-"
		if r.HasExposed {
			exposed = Duration(r.Exposed, "ns")
		}
		f("%-34s %11d %12s %12s %12s %10d\n", fmt.Sprintf("rank %d", r.Rank), r.Collectives, Duration(r.Time, "ns"), Duration(r.Wait, "ns"), exposed, r.StragglerCount)
	}
	if res.Matched && len(res.Instances) > 0 {
		ins := make([]*collectives.Instance, 0, len(res.Instances))
		for i := range res.Instances {
			if res.Instances[i].Timed {
				ins = append(ins, &res.Instances[i])
			}
		}
		sort.SliceStable(ins, func(i, j int) bool { return ins[i].Skew > ins[j].Skew })
		if len(ins) > collTop {
			ins = ins[:collTop]
		}
		if len(ins) > 0 {
			f("\n%-40s %6s %12s %8s %12s %12s %12s\n", "largest skew", "ranks", "skew", "last", "transfer", "bytes", "busbw")
			for _, in := range ins {
				id := fmt.Sprintf("group %s · %s seq %d", clip(in.Group, 12), in.Type, in.Seq)
				if in.Seq < 0 {
					id = fmt.Sprintf("group %s · %s #%d", clip(in.Group, 12), in.Type, in.Ordinal)
				}
				last, tr, b, bus := "-", "-", "-", "-"
				if in.Straggler >= 0 {
					last = fmt.Sprintf("rank %d", in.Straggler)
				}
				if in.Transfer >= 0 {
					tr = Duration(in.Transfer, "ns")
				}
				if in.Bytes >= 0 {
					b = Bytes(in.Bytes)
				}
				if in.HasBusBW {
					bus = fmt.Sprintf("%.2f GB/s", in.BusBW)
				}
				f("%-40s %6d %12s %8s %12s %12s %12s\n", clip(id, 40), len(in.Arrivals), Duration(in.Skew, "ns"), last, tr, b, bus)
			}
		}
	}
	return bw.Flush()
}

// clip cuts s to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// wrap breaks s at spaces into lines of at most n runes (a longer word
// stays whole), continuation lines indented by two.
func wrap(s string, n int) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(s) {
		if cur.Len() > 0 && len([]rune(cur.String()))+1+len([]rune(word)) > n {
			lines = append(lines, cur.String())
			cur.Reset()
			cur.WriteString("  ")
		}
		if cur.Len() > 0 && cur.String() != "  " {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// unmatched counts the instances missing on ranks of their group that
// were read.
func unmatched(res *collectives.Result) int {
	n := 0
	for i := range res.Instances {
		if len(res.Instances[i].Missing) > 0 {
			n++
		}
	}
	return n
}

// gapOf is the result's gap of the kind, nil when none.
func gapOf(res *collectives.Result, kind capture.Kind) *capture.Gap {
	for _, g := range res.Gaps {
		if g.Kind == kind {
			return g
		}
	}
	return nil
}
