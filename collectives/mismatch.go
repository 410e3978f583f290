package collectives

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tallyprof/tally/capture"
)

// CollectiveMismatch: the ranks holding one instance (one group and
// sequence number, or one place in order) disagree on its type, its
// message size or its group's size. One call cannot be two: a trace is
// wrong, or the program issued different collectives under one number
// (which hangs or corrupts in NCCL). The figures that depend on what they
// disagree on are not computed: the instance's bytes and bandwidth (type
// or size), or its bus bandwidth (group size). Before, the largest size
// and the lowest rank's type were taken without a word, and the run was
// COMPLETE.
const CollectiveMismatch capture.Kind = "collective_mismatch"

func init() {
	capture.RegisterKind(CollectiveMismatch, capture.Rule{Measure: capture.TouchesNone,
		Why: "each rank's tables are unaffected; the instance's bytes and bandwidth (or bus bandwidth) are not computed"})
}

// variant is what one rank says of an instance: its type, its message
// size (the largest of its kernels', -1 unknown) and its group's size (-1
// unknown).
type variant struct {
	typ             string
	bytes, groupLen int64
}

// sizeAgrees reports whether every rank of a collective of the type moves
// the same message size (nccl-tests' size): an alltoall's split sizes, a
// gather's or scatter's root and an unknown type may differ by rank.
func sizeAgrees(typ string) bool {
	switch typ {
	case "allreduce", "allgather", "reducescatter", "broadcast", "reduce":
		return true
	}
	return false
}

// disagreement is what an instance's ranks disagree on, one clause per
// field ("" when they agree), and which figures that leaves unknown.
type disagreement struct {
	clauses        []string
	bytes, busOnly bool // bytes (and bandwidth) unknown; only the bus bandwidth unknown
}

// disagree compares the ranks' variants of one instance.
func disagree(by map[int64]*variant) disagreement {
	var d disagreement
	field := func(name string, key func(v *variant) (string, bool)) bool {
		vals := map[string][]int64{}
		for r, v := range by {
			if k, ok := key(v); ok {
				vals[k] = append(vals[k], r)
			}
		}
		if len(vals) < 2 {
			return false
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(vals)) { // the same item from run to run
			rs := vals[k]
			slices.Sort(rs)
			parts = append(parts, k+" on "+rankList(rs))
		}
		d.clauses = append(d.clauses, name+" ("+strings.Join(parts, "; ")+")")
		return true
	}
	if field("type", func(v *variant) (string, bool) { return v.typ, v.typ != "" }) {
		d.bytes = true
	}
	sameTypes := !d.bytes
	for _, v := range by {
		sameTypes = sameTypes && sizeAgrees(v.typ)
	}
	if sameTypes && field("message size", func(v *variant) (string, bool) { return fmt.Sprintf("%d B", v.bytes), v.bytes >= 0 }) {
		d.bytes = true
	}
	if field("group size", func(v *variant) (string, bool) { return fmt.Sprintf("%d ranks", v.groupLen), v.groupLen >= 0 }) {
		d.busOnly = true
	}
	return d
}
