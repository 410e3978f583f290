package analysis

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
)

// RepeatedRank (a note): two inputs of a run state the same rank. Both are
// read, each in its own section and both in the merged tables. Several runs
// of one workload are inputs tally reads by design (`tally report run1
// run2`, a side of `tally diff`), so this is no gap; but one run holds one
// trace per rank, so the note says which traces share a rank, and that
// the collectives match the first of them only.
const RepeatedRank capture.Kind = "repeated_rank"

func init() { capture.RegisterNote(RepeatedRank) }

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
		g.Summary = "inputs that state the same rank as an earlier input: traces of several runs, or of one run mixed with another's (one run has one trace per rank); each is in its own section and all are in the merged tables; the collectives match the first trace of each rank only"
		g.Add(capture.Item{What: fmt.Sprintf("rank %s, stated by %s too", rank, p), Where: r.Path})
	}
}
