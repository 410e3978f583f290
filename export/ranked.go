package export

import (
	"sort"
	"strconv"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// byRank splits an input's kernel statistics by rank: an input that holds
// several ranks (a swimlane run, whose queues carry capture.Queue.Rank)
// gets one kernels row per (rank, program, kernel) with that rank's own
// sums, not one row per kernel summing every rank under one label. It keeps
// one analysis.Aggregator per rank, so memory is O(kernels × ranks).
// The zero value is ready; the writers whose kernels and programs tables
// it feeds (parquet, --per-kernel) add every dispatch to it.
type byRank struct {
	aggs map[string]*analysis.Aggregator
	// last caches the previous dispatch's rank: dispatches come in runs
	// of one queue, so most skip the map lookup.
	last    string
	lastAgg *analysis.Aggregator
}

// add counts dispatch d under rank (in.Rank of its queue, as its dispatch
// row says).
func (b *byRank) add(rank string, c *capture.Capture, d *capture.Dispatch) {
	if b.lastAgg == nil || rank != b.last {
		if b.aggs == nil {
			b.aggs = map[string]*analysis.Aggregator{}
		}
		a := b.aggs[rank]
		if a == nil {
			a = analysis.NewAggregator()
			b.aggs[rank] = a
		}
		b.last, b.lastAgg = rank, a
	}
	b.lastAgg.Dispatch(c, d)
}

// rankProgram is one program's table on one rank, as the kernels and
// programs tables write it.
type rankProgram struct {
	rank string
	pt   *analysis.ProgramTable
}

// rankPrograms lists input in's program tables by rank: ranks in order
// (sortRanks), and within a rank the programs in capture order, each
// program on every rank it ran on, with that rank's sums and shares. A
// program that ran on no rank (no completed dispatch) is listed once, under
// the input's own rank. An input of one rank — every input that carries no
// queue ranks — gives exactly its whole-input tables in program order.
func (in *input) rankPrograms() []rankProgram {
	c := in.Capture
	home := in.inputRank(c)
	tables := map[string]*analysis.Tables{}
	for r, a := range in.ranks.aggs {
		tables[r] = a.Tables(c)
	}
	ranks := make([]string, 0, len(tables)+1)
	for r := range tables {
		ranks = append(ranks, r)
	}
	if tables[home] == nil {
		for _, pt := range in.Tables.Programs {
			if len(pt.Kernels) == 0 {
				ranks = append(ranks, home)
				break
			}
		}
	}
	sortRanks(ranks)
	var out []rankProgram
	for _, r := range ranks {
		for p := range in.Tables.Programs {
			whole := &in.Tables.Programs[p]
			switch {
			case tables[r] != nil && len(tables[r].Programs[p].Kernels) > 0:
				out = append(out, rankProgram{r, &tables[r].Programs[p]})
			case r == home && len(whole.Kernels) == 0:
				out = append(out, rankProgram{r, whole})
			}
		}
	}
	return out
}

// sortRanks orders ranks: decimal numbers first, numerically (2 before
// 10), then the others as strings. A total order, so the output does not
// depend on the map order the ranks came from.
func sortRanks(ranks []string) {
	sort.Slice(ranks, func(i, j int) bool {
		a, ea := strconv.Atoi(ranks[i])
		b, eb := strconv.Atoi(ranks[j])
		switch {
		case ea == nil && eb == nil && a != b:
			return a < b
		case (ea == nil) != (eb == nil):
			return ea == nil
		}
		return ranks[i] < ranks[j]
	})
}
