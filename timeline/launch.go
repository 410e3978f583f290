package timeline

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
)

// launch draws a dispatch's host launch, when recorded, as a slice on its
// group's "launches" track, and returns the id of the flow arrow that
// joins it to the dispatch (outputs.md (a): launch BEGIN flow_ids, dispatch
// BEGIN terminating_flow_ids); 0 when nothing was drawn. A launch the file
// cannot place (before its base, reversed, or fitting no lane) is left out:
// the dispatch keeps its launch time as an annotation.
func (in *Sink) launch(c *capture.Capture, d *capture.Dispatch, group *track, kernel string) uint64 {
	w := in.w
	lb, le := d.Launch.Begin, d.Launch.End
	if !d.Launch.Valid {
		return 0
	}
	if le < lb || !w.representable(lb) {
		in.launchesNotDrawn++
		w.stats.LaunchesNotDrawn++
		return 0
	}
	in.see(lb, le)
	// A graph launch replays many kernels: one slice for it, its arrow to
	// the first kernel that arrives (the rest share its launch annotation).
	graph := d.Link == capture.LinkGraph
	gk := graphKey{group, d.Program, lb, le}
	if graph && in.graphs[gk] {
		return 0
	}
	hl := in.hosts[group]
	if hl == nil {
		if in.hosts == nil {
			in.hosts = map[*track]*queueLanes{}
		}
		hl = &queueLanes{parent: group, name: group.name + " · launches", key: fmt.Sprintf("in%d/host/%s", in.idx, group.name)}
		in.hosts[group] = hl
	}
	t := in.tryPlace(hl, lb, le)
	if t == nil {
		// Not drawn rather than misnested: the dispatch is whole without
		// its launch slice, and a broken lane would mislead.
		in.launchesNotDrawn++
		w.stats.LaunchesNotDrawn++
		return 0
	}
	w.flows++
	args := w.enc.args()
	name := "launch"
	if graph {
		if in.graphs == nil {
			in.graphs = map[graphKey]bool{}
		}
		in.graphs[gk] = true
		name = "graph launch"
		args = append(args, arg{key: "first_kernel", s: kernel})
	} else {
		args = append(args, arg{key: "kernel", s: kernel})
	}
	args = append(args, arg{key: "program", s: c.Programs[d.Program].Name}, arg{key: "link", s: d.Link.String()})
	w.enc.slice(t, name, "launch", lb-w.base, le-w.base, args, w.flows, 0)
	w.stats.Launches++
	return w.flows
}

// graphKey is one graph launch of an input: its group, program and launch
// interval (every kernel it replayed carries the same launch interval).
type graphKey struct {
	group      *track
	prog       capture.ProgramID
	begin, end int64
}
