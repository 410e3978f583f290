package collectives

import "github.com/tallyprof/tally/capture"

// Gap kinds of the whole run (docs/report-json.md).
const (
	// UnmatchedCollective: an instance present on k of the n ranks of its
	// group that were read.
	UnmatchedCollective capture.Kind = "unmatched_collective"
	// CollectiveRanksMissing: ranks of a group that no input holds.
	CollectiveRanksMissing capture.Kind = "collective_ranks_missing"
	// CollectiveClockOffset: a rank ended a symmetric collective before
	// another started it: the ranks' clocks are offset.
	CollectiveClockOffset capture.Kind = "collective_clock_offset"
	// CollectiveClocks (a note): how the ranks' clocks were compared.
	CollectiveClocks capture.Kind = "collective_clocks"
)

func init() {
	capture.RegisterKind(UnmatchedCollective, capture.UnknownSize("collectives missing on ranks of their group that were read: whether they ran there, and for how long, is unknown"))
	capture.RegisterKind(CollectiveRanksMissing, capture.UnknownSize("ranks of a collective's group that are not among the inputs: their work, and the skew they would add, is unknown"))
	capture.RegisterKind(CollectiveClockOffset, capture.Rule{Measure: capture.TouchesNone,
		Why: "each rank's tables are on its own clock and unaffected; the cross-rank skew, waits and stragglers are off by the clocks' offset"})
	capture.RegisterNote(CollectiveClocks)
}

// Arrival is one rank's part in an instance: its kernel's start and end,
// and how long it waited for the straggler (0 when untimed).
type Arrival struct {
	Rank  int64 `json:"rank"`
	Start int64 `json:"start_ns"`
	End   int64 `json:"end_ns"`
	Wait  int64 `json:"wait_ns"`
}

// Instance is one collective matched across the ranks.
type Instance struct {
	Type  string
	Group string
	// Seq is the sequence number it was matched by, -1 when matched by
	// order (Ordinal: its place among its group's collectives of its type
	// on each rank, from 0).
	Seq, Ordinal int64
	// GroupSize is the group's size as the traces state it, -1 unknown.
	GroupSize int64
	Bytes     int64 // nccl-tests' size, -1 unknown
	Arrivals  []Arrival
	// Missing are the ranks of the group, read, that do not hold it.
	Missing []int64
	// Timed: the times are comparable and at least two ranks (or the whole
	// group) hold it; then Skew, Straggler (≥ 2 ranks) and the waits hold.
	Timed     bool
	Skew      int64
	Straggler int64 // -1 none
	// Transfer is the last start → the earliest end, -1 unknown.
	Transfer     int64
	AlgBW, BusBW float64
	HasAlgBW     bool
	HasBusBW     bool
}

// Rank is one rank's collectives over the run.
type Rank struct {
	Rank  int64
	Input int // index of its input
	// Collectives counts its collective dispatches and Time sums their
	// device time; Matched counts those in matched instances.
	Collectives, Time, Matched int64
	// Wait sums its waits for the stragglers; StragglerCount is how often it
	// was the straggler.
	Wait, StragglerCount int64
	// Exposed is its communication time not hidden under compute, summed
	// over its devices from its input's time breakdown (ns devices only);
	// HasExposed is false when the input has no breakdown.
	Exposed    int64
	HasExposed bool
}

// Result is the collective analysis of a run.
type Result struct {
	// Matched: collectives were matched across the inputs (a run of many);
	// false for one input, whose collectives are only counted.
	Matched   bool
	Instances []Instance
	Ranks     []Rank
	// PointToPoint and Ungrouped count dispatches not matched: send/recv,
	// and collectives whose trace names no group.
	PointToPoint, Ungrouped int64
	// Clock says how the ranks' times were compared; Comparable is false
	// when they could not be (different clock domains or units).
	Clock      string
	Comparable bool
	// Notes are facts of the analysis (ranks assumed, inputs left out).
	Notes []string
	// Gaps are the gaps of the whole run the analysis found (added to the
	// run's accounting by Analyze).
	Gaps []*capture.Gap
}

// InputOf is the index of the input that recorded rank, -1 when none.
func (r *Result) InputOf(rank int64) int {
	for _, rs := range r.Ranks {
		if rs.Rank == rank {
			return rs.Input
		}
	}
	return -1
}
