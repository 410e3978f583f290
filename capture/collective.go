package capture

import "fmt"

// Collective is what a reader knows of a communication kernel's collective
// (NCCL, RCCL and the like): its type, its process group and place in it,
// and its message size. Matching the same collective across ranks (package
// collectives) uses it; a reader sets Dispatch.Collective only on the
// dispatches that are collectives. Like the Dispatch, it is valid only
// during the Sink call: readers reuse it.
//
// Unknown numbers are -1 (sizes and ranks) and unknown strings "", never a
// guess: an unknown group is never matched with another.
type Collective struct {
	// Type is the normalised collective type (CollectiveTypes), "" when
	// unknown; Name is the name as the input wrote it ("allreduce",
	// "_allgather_base", "AllReduce").
	Type string
	Name string
	// Group identifies the process group (PyTorch's process group name, or
	// its id as a decimal), "" when unknown; GroupDesc is its description.
	Group     string
	GroupDesc string
	// Seq is the collective's sequence number in its group, -1 unknown.
	Seq int64
	// InElems and OutElems are the message sizes in elements, -1 unknown;
	// Dtype the element type as written and ElemSize its size in bytes (0
	// unknown).
	InElems, OutElems int64
	Dtype             string
	ElemSize          int64
	// GroupSize is the number of ranks in the group, -1 unknown.
	// GroupRanks lists them as the input wrote them ("[0, 1]"), or
	// RankStart and RankStride place them (-1 unknown).
	GroupSize             int64
	GroupRanks            string
	RankStart, RankStride int64
	// Rank is the global rank of the input that recorded the dispatch,
	// GroupRank its rank within the group; -1 unknown.
	Rank, GroupRank int64
}

// UnknownCollective is a Collective with every number unknown, for a
// reader to fill in.
func UnknownCollective() Collective {
	return Collective{Seq: -1, InElems: -1, OutElems: -1, GroupSize: -1, RankStart: -1, RankStride: -1, Rank: -1, GroupRank: -1}
}

// CollectiveTypes are the normalised collective types.
var CollectiveTypes = []string{"allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall",
	"sendrecv", "send", "recv", "barrier", "gather", "scatter"}

func knownCollectiveType(t string) bool {
	if t == "" {
		return true
	}
	for _, k := range CollectiveTypes {
		if k == t {
			return true
		}
	}
	return false
}

// Bytes is the message size in bytes as nccl-tests counts it for the
// type (doc/PERFORMANCE.md: the larger of the input and output buffers:
// the whole buffer of an allreduce, the gathered output of an allgather,
// the scattered input of a reducescatter), and whether it is known.
func (c *Collective) Bytes() (int64, bool) {
	n := max(c.InElems, c.OutElems)
	if n < 0 || c.ElemSize <= 0 {
		return 0, false
	}
	if c.ElemSize > 0 && n > (1<<62)/c.ElemSize {
		return 0, false
	}
	return n * c.ElemSize, true
}

// checkCollective is CheckDispatch's rule for a collective: a normalised
// type, and numbers that are known (≥ 0) or -1.
func checkCollective(kernel string, c *Collective) error {
	if !knownCollectiveType(c.Type) {
		return fmt.Errorf("collective dispatch of kernel %q has type %q, not a normalised type (%v) or \"\"", kernel, c.Type, CollectiveTypes)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"seq", c.Seq}, {"in elems", c.InElems}, {"out elems", c.OutElems}, {"group size", c.GroupSize},
		{"rank start", c.RankStart}, {"rank stride", c.RankStride}, {"rank", c.Rank}, {"group rank", c.GroupRank}} {
		if f.v < -1 {
			return fmt.Errorf("collective dispatch of kernel %q has %s %d: give a count ≥ 0 or -1 for unknown", kernel, f.name, f.v)
		}
	}
	if c.ElemSize < 0 {
		return fmt.Errorf("collective dispatch of kernel %q has element size %d", kernel, c.ElemSize)
	}
	return nil
}
