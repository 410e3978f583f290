package timeline

import (
	"fmt"
	"sort"

	"github.com/tallyprof/tally/collectives"
)

// Collectives draws the collectives matched across the inputs (ranks):
// each rank's part in each instance as a slice on its rank's "collectives"
// track, named by the instance, with the wait, skew and straggler as args,
// and flow arrows joining an instance's parts in arrival order — the last
// arrow ends at the straggler. The analysis's gaps of the whole run are
// drawn on the run's accounting track and count in the verdict. sinks are
// the inputs' sinks by input index; call it after every input's Finish and
// before Close.
func (w *Writer) Collectives(res *collectives.Result, sinks []*Sink) {
	if res == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, g := range res.Gaps {
		what := g.Summary
		if len(g.Items) > 0 {
			what = g.Items[0].What
			if g.Count > 1 {
				what += fmt.Sprintf(" (and %d more)", g.Count-1)
			}
		}
		item := wholeItem{kind: string(g.Kind), name: "collectives", msg: what}
		if g.Note {
			w.collNotes = append(w.collNotes, item)
		} else if g.Count > 0 {
			w.collGaps = append(w.collGaps, item)
		}
	}
	if !res.Matched || !res.Comparable {
		return
	}
	type part struct {
		inst, k int // instance, place in its arrival order
		a       collectives.Arrival
	}
	var parts []part
	firstFlow := make([]uint64, len(res.Instances))
	for i := range res.Instances {
		in := &res.Instances[i]
		arr := append([]collectives.Arrival(nil), in.Arrivals...)
		sort.SliceStable(arr, func(a, b int) bool { return arr[a].Start < arr[b].Start })
		firstFlow[i] = w.flows + 1
		if len(arr) > 1 {
			w.flows += uint64(len(arr) - 1)
		}
		for k, a := range arr {
			parts = append(parts, part{inst: i, k: k, a: a})
		}
	}
	// Lanes place slices in begin order.
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].a.Start < parts[j].a.Start })
	lanes := map[int64]*queueLanes{}
	for _, p := range parts {
		in := &res.Instances[p.inst]
		idx := res.InputOf(p.a.Rank)
		if idx < 0 || idx >= len(sinks) || sinks[idx] == nil || sinks[idx].group == nil || !w.representable(p.a.Start) {
			continue
		}
		s := sinks[idx]
		ql := lanes[p.a.Rank]
		if ql == nil {
			ql = &queueLanes{parent: s.group, name: s.group.name + " · collectives", key: fmt.Sprintf("in%d/collectives", s.idx)}
			lanes[p.a.Rank] = ql
		}
		t := s.place(ql, p.a.Start, p.a.End)
		var in1, out uint64
		if p.k > 0 {
			in1 = firstFlow[p.inst] + uint64(p.k-1)
		}
		if p.k < len(in.Arrivals)-1 {
			out = firstFlow[p.inst] + uint64(p.k)
		}
		name := fmt.Sprintf("%s seq %d · group %s", in.Type, in.Seq, in.Group)
		if in.Seq < 0 {
			name = fmt.Sprintf("%s #%d · group %s", in.Type, in.Ordinal, in.Group)
		}
		args := w.enc.args()
		args = append(args, arg{key: "wait_ns", i: p.a.Wait, isInt: true}, arg{key: "skew_ns", i: in.Skew, isInt: true},
			arg{key: "straggler_rank", i: in.Straggler, isInt: true}, arg{key: "ranks", i: int64(len(in.Arrivals)), isInt: true})
		if in.Transfer >= 0 {
			args = append(args, arg{key: "transfer_ns", i: in.Transfer, isInt: true})
		}
		if len(in.Missing) > 0 {
			args = append(args, arg{key: "missing_ranks", i: int64(len(in.Missing)), isInt: true})
		}
		w.enc.slice(t, name, "collective", p.a.Start-w.base, p.a.End-w.base, args, out, in1)
		w.stats.Collectives++
	}
}
