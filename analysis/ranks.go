package analysis

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
)

// RepeatedRank: two inputs of a run state the same rank. Both are read and
// both are in the merged tables, as separate inputs; but a run has one
// trace per rank, so one of them is another run's (or a rerun's) trace, and
// the merged tables count that rank twice, and the collectives take the
// first of them only.
const RepeatedRank capture.Kind = "repeated_rank"

func init() {
	capture.RegisterKind(RepeatedRank, capture.UnknownSize("two traces of one rank are both in the merged tables: whether they are one rank counted twice or two runs mixed is unknown"))
}

// repeatedRanks states every input whose rank an earlier input states too.
func (run *Run) repeatedRanks() {
	first := map[string]string{}
	for i := range run.Inputs {
		r := &run.Inputs[i]
		rank := r.Rank()
		if rank == "" {
			continue
		}
		p, seen := first[rank]
		if !seen {
			first[rank] = r.Path
			continue
		}
		g := run.Whole.Accounting.Gap(RepeatedRank, "")
		g.Summary = "inputs that state the same rank as an earlier input: a run has one trace per rank, so these are traces of other runs (or reruns) mixed in; each is in its own section and all are in the merged tables, the collectives match the first only. Give one trace per rank"
		g.Add(capture.Item{What: fmt.Sprintf("rank %s, stated by %s too", rank, p), Where: r.Path})
	}
}
