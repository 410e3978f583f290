package collectives

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

type instKey struct {
	group, typ string
	seq, bytes int64
	ordinal    int64
}

// compare orders instances by group and sequence (or type, ordinal and
// size). Every field takes part: two keys that compared equal would be
// reported in map order, different from run to run.
func (x instKey) compare(y instKey) int {
	return cmp.Or(cmp.Compare(x.group, y.group), cmp.Compare(x.seq, y.seq), cmp.Compare(x.typ, y.typ),
		cmp.Compare(x.ordinal, y.ordinal), cmp.Compare(x.bytes, y.bytes))
}

type inst struct {
	key       instKey
	typ       string
	groupSize int64
	bytes     int64
	arr       map[int64]*Arrival
	said      map[int64]*variant // what each rank says of it (mismatch.go)
	timed     bool
}

type groupInfo struct {
	size    int64
	ranks   string
	members map[int64]bool
}

type rankedInput struct {
	rank  int64
	index int
	sink  *Sink
	clock capture.Clock
}

// Analyze matches the collectives the collector's sinks kept across the
// run's inputs. For a run of many inputs it adds its gaps to the whole's
// accounting (run.Whole) and sizes them: call it once per run. nil when no
// input holds a collective.
func Analyze(run *analysis.Run, col *Collector) *Result {
	res := &Result{Matched: run.Many()}
	ins := res.rankInputs(run, col)
	if len(ins) == 0 {
		return nil
	}
	res.Comparable, res.Clock = clocks(ins)
	insts, groups := res.collect(ins)
	res.exposed(run)
	if res.Matched {
		res.match(insts, groups, ins)
		res.groupGaps(groups, ins)
		if len(res.Instances) > 0 {
			res.clockNote(len(ins))
		}
		run.Whole.Accounting.Gaps = append(run.Whole.Accounting.Gaps, res.Gaps...)
		analysis.Size(run.Whole, run.Tables)
	} else {
		res.Notes = append(res.Notes, "one input: its collectives are counted, not matched across ranks (give every rank's trace, e.g. tally report DIR)")
	}
	return res
}

// rankInputs names each input holding collectives by its rank: the rank
// its collectives state, else the rank its capture states, else its index.
func (res *Result) rankInputs(run *analysis.Run, col *Collector) []rankedInput {
	var ins []rankedInput
	seen := map[int64]int{}
	for i := range run.Inputs {
		in := &run.Inputs[i]
		s := col.of(i)
		if in.Err != nil || in.Capture == nil || s == nil || len(s.recs) == 0 {
			continue
		}
		rank := s.recs[0].rank
		if rank < 0 {
			if r, err := strconv.ParseInt(in.Rank(), 10, 64); err == nil && r >= 0 {
				rank = r
			} else {
				rank = int64(i)
				res.Notes = append(res.Notes, fmt.Sprintf("%s states no rank: taken as rank %d (its place among the inputs)", in.Path, rank))
			}
		}
		if j, dup := seen[rank]; dup {
			// How much is left out is a number: its collective dispatches
			// are in no instance and no rank's row.
			res.Notes = append(res.Notes, fmt.Sprintf("%s and %s both record rank %d: the second is left out of the collectives (its %s)",
				run.Inputs[j].Path, in.Path, rank, units.Plural(int64(len(s.recs)), "collective dispatch", "collective dispatches")))
			continue
		}
		seen[rank] = i
		ins = append(ins, rankedInput{rank: rank, index: i, sink: s, clock: in.Capture.Clock})
	}
	sort.Slice(ins, func(a, b int) bool { return ins[a].rank < ins[b].rank })
	return ins
}

// clocks says whether the inputs' times compare, and how.
func clocks(ins []rankedInput) (bool, string) {
	c := ins[0].clock
	for _, in := range ins[1:] {
		if in.clock.Domain != c.Domain || in.clock.Unit != c.Unit {
			return false, fmt.Sprintf("not compared: the ranks' clocks differ (%s %s, %s %s): skew, waits, stragglers and bandwidth are not computed",
				c.Domain, c.Unit, in.clock.Domain, in.clock.Unit)
		}
	}
	if c.Unit != "ns" || !c.Timed {
		return false, fmt.Sprintf("not compared: the clock (%s %s) is not in ns: skew, waits, stragglers and bandwidth are not computed", c.Domain, c.Unit)
	}
	if c.Domain == "unix-epoch" {
		return true, "compared as written: every rank's times are unix-epoch ns (Kineto: each host's wall clock). Ranks on one host share its clock; " +
			"ranks on different hosts are only as aligned as the hosts' clocks (NTP: often tens of µs to ms), and an offset adds to or hides skew one for one"
	}
	return true, fmt.Sprintf("compared as written: every rank's times are %s ns, a per-host clock: comparable among ranks of one host only; "+
		"tally cannot tell the hosts apart, so skew across hosts is meaningless unless the ranks share one host", c.Domain)
}

func p2p(typ string) bool { return typ == "send" || typ == "recv" || typ == "sendrecv" }

// collect counts every rank's collectives and gathers the instances.
func (res *Result) collect(ins []rankedInput) (map[instKey]*inst, map[string]*groupInfo) {
	insts := map[instKey]*inst{}
	groups := map[string]*groupInfo{}
	for _, in := range ins {
		rs := Rank{Rank: in.rank, Input: in.index}
		ordinal := map[[2]string]int64{}
		for i := range in.sink.recs {
			r := &in.sink.recs[i]
			rs.Collectives++
			if r.timed {
				rs.Time = capture.SatAdd(rs.Time, r.end-r.begin)
			}
			switch {
			case p2p(r.typ):
				res.PointToPoint++
				continue
			case r.group == "":
				res.Ungrouped++
				continue
			}
			g := groups[r.group]
			if g == nil {
				g = &groupInfo{size: -1, members: map[int64]bool{}}
				groups[r.group] = g
			}
			g.size = max(g.size, r.groupSize)
			if g.ranks == "" {
				g.ranks = r.groupRanks
			}
			g.members[in.rank] = true
			k := instKey{group: r.group, seq: r.seq, bytes: -1, ordinal: -1}
			if r.seq < 0 {
				ok := [2]string{r.group, r.typ}
				k.typ, k.bytes, k.ordinal = r.typ, r.bytes, ordinal[ok]
				ordinal[ok]++
			} else if p2p(r.typ) {
				k.typ = "p2p"
			}
			it := insts[k]
			if it == nil {
				it = &inst{key: k, typ: r.typ, groupSize: r.groupSize, bytes: r.bytes, arr: map[int64]*Arrival{}, said: map[int64]*variant{}, timed: true}
				insts[k] = it
			}
			if v := it.said[in.rank]; v != nil {
				v.bytes, v.groupLen = max(v.bytes, r.bytes), max(v.groupLen, r.groupSize)
			} else {
				it.said[in.rank] = &variant{typ: r.typ, bytes: r.bytes, groupLen: r.groupSize}
			}
			it.groupSize = max(it.groupSize, r.groupSize)
			it.bytes = max(it.bytes, r.bytes)
			it.timed = it.timed && r.timed
			if a := it.arr[in.rank]; a != nil {
				// Several kernels of one instance on a rank (coalesced): it
				// spans them all.
				a.Start, a.End = min(a.Start, r.begin), max(a.End, r.end)
				continue
			}
			it.arr[in.rank] = &Arrival{Rank: in.rank, Start: r.begin, End: r.end}
		}
		res.Ranks = append(res.Ranks, rs)
	}
	return insts, groups
}

// exposed links each rank with its input's time breakdown: the
// communication its devices ran while no compute ran.
func (res *Result) exposed(run *analysis.Run) {
	for i := range res.Ranks {
		rs := &res.Ranks[i]
		b := run.Inputs[rs.Input].Breakdown
		if b == nil || b.Err != nil {
			continue
		}
		rs.HasExposed = true
		for _, d := range b.Devices {
			if d.Unit == "ns" {
				rs.Exposed = capture.SatAdd(rs.Exposed, d.CommTotal-d.CommOverlapped)
			}
		}
	}
}

// symmetric types: no rank can end before every rank has started.
func symmetric(typ string) bool {
	switch typ {
	case "allreduce", "allgather", "reducescatter", "alltoall", "barrier":
		return true
	}
	return false
}

// match turns the gathered instances into the result's, in order of group
// and sequence (or type and ordinal), with their figures and gaps.
func (res *Result) match(insts map[instKey]*inst, groups map[string]*groupInfo, ins []rankedInput) {
	read := map[int64]bool{}
	rankIdx := map[int64]int{}
	for i, in := range ins {
		read[in.rank] = true
		rankIdx[in.rank] = i
	}
	for _, g := range groups {
		// A rank of the group that was read holds the group's collectives
		// even if it holds none of this group at all.
		for _, r := range parseRanks(g.ranks) {
			if read[r] {
				g.members[r] = true
			}
		}
	}
	keys := make([]instKey, 0, len(insts))
	for k := range insts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, instKey.compare)
	unmatched := &capture.Gap{Kind: UnmatchedCollective}
	offset := &capture.Gap{Kind: CollectiveClockOffset}
	mismatch := &capture.Gap{Kind: CollectiveMismatch}
	var maxOverlap int64
	for _, k := range keys {
		it := insts[k]
		in := Instance{Type: it.typ, Group: k.group, Seq: k.seq, Ordinal: k.ordinal, GroupSize: it.groupSize, Bytes: it.bytes,
			Straggler: -1, Transfer: -1}
		for _, a := range it.arr {
			in.Arrivals = append(in.Arrivals, *a)
		}
		sort.Slice(in.Arrivals, func(a, b int) bool { return in.Arrivals[a].Rank < in.Arrivals[b].Rank })
		for r := range groups[k.group].members {
			if it.arr[r] == nil {
				in.Missing = append(in.Missing, r)
			}
		}
		sort.Slice(in.Missing, func(a, b int) bool { return in.Missing[a] < in.Missing[b] })
		if len(in.Missing) > 0 {
			unmatched.Add(capture.Item{What: fmt.Sprintf("%s on %d of %d ranks read, missing on %s", in.label(), len(in.Arrivals),
				len(in.Arrivals)+len(in.Missing), rankList(in.Missing)), Where: "group " + k.group})
		}
		d := disagree(it.said)
		if len(d.clauses) > 0 {
			unknown := "its bytes and bandwidth are not computed"
			if !d.bytes {
				unknown = "its bus bandwidth is not computed"
			}
			mismatch.Add(capture.Item{What: fmt.Sprintf("%s: the ranks disagree on its %s: %s", in.label(), strings.Join(d.clauses, " and "), unknown),
				Where: "group " + k.group})
			if d.bytes {
				in.Bytes = -1
			}
			if d.busOnly {
				in.GroupSize = -1
			}
		}
		n := len(in.Arrivals)
		in.Timed = res.Comparable && it.timed && (n >= 2 || in.GroupSize == 1)
		if in.Timed {
			res.figures(&in)
			if d.busOnly {
				in.BusBW, in.HasBusBW = 0, false
			}
			for i := range in.Arrivals {
				a := &in.Arrivals[i]
				rs := &res.Ranks[rankIdx[a.Rank]]
				rs.Wait = capture.SatAdd(rs.Wait, a.Wait)
				if a.Rank == in.Straggler {
					rs.StragglerCount++
				}
			}
			if over := in.overlap(); over > 0 && symmetric(in.Type) {
				offset.Add(capture.Item{What: fmt.Sprintf("%s: a rank ended %d ns before the last rank started", in.label(), over), Where: "group " + k.group})
				maxOverlap = max(maxOverlap, over)
			}
		}
		for _, a := range in.Arrivals {
			res.Ranks[rankIdx[a.Rank]].Matched++
		}
		res.Instances = append(res.Instances, in)
	}
	if unmatched.Count > 0 {
		unmatched.Summary = "collectives present on only some ranks of their group that were read (a profiling window cut at different steps, a hang, or a rank's trace cut): their skew and straggler are over the ranks that hold them; match the ranks' windows or read whole traces"
		res.Gaps = append(res.Gaps, unmatched)
	}
	if mismatch.Count > 0 {
		mismatch.Summary = "collectives whose ranks disagree on their type, message size or group size under one sequence number (or place in order): one call cannot be both, so a trace is wrong or the program issued different collectives under one number; the figures that depend on it are not computed"
		res.Gaps = append(res.Gaps, mismatch)
	}
	if offset.Count > 0 {
		offset.Summary = "ranks ended symmetric collectives before other ranks started them, impossible on one clock: the ranks' clocks are offset by at least max_overlap_ns, and the cross-rank figures are off by as much"
		offset.SetFigure("max_overlap_ns", maxOverlap)
		res.Gaps = append(res.Gaps, offset)
	}
}

// figures computes an instance's skew, straggler, waits, transfer time
// and bandwidth from its arrivals.
func (res *Result) figures(in *Instance) {
	first, last, minEnd := in.Arrivals[0].Start, in.Arrivals[0].Start, in.Arrivals[0].End
	in.Straggler = in.Arrivals[0].Rank
	for _, a := range in.Arrivals[1:] {
		first = min(first, a.Start)
		if a.Start > last { // ties: the lowest rank (arrivals are by rank)
			last, in.Straggler = a.Start, a.Rank
		}
		minEnd = min(minEnd, a.End)
	}
	if len(in.Arrivals) < 2 {
		in.Straggler = -1
	}
	in.Skew = last - first
	for i := range in.Arrivals {
		in.Arrivals[i].Wait = last - in.Arrivals[i].Start
	}
	if minEnd >= last {
		in.Transfer = minEnd - last
	}
	n := in.GroupSize
	if n <= 0 {
		n = int64(len(in.Arrivals))
	}
	if in.Transfer > 0 && in.Bytes >= 0 {
		in.AlgBW, in.HasAlgBW = AlgBW(in.Bytes, in.Transfer)
		in.BusBW, in.HasBusBW = BusBW(in.Type, n, in.Bytes, in.Transfer)
	}
}

// overlap is how long before the last start a rank ended, 0 when none did.
func (in *Instance) overlap() int64 {
	last, minEnd := in.Arrivals[0].Start, in.Arrivals[0].End
	for _, a := range in.Arrivals {
		last, minEnd = max(last, a.Start), min(minEnd, a.End)
	}
	return max(last-minEnd, 0)
}

// label names an instance in gap items.
func (in *Instance) label() string {
	if in.Seq >= 0 {
		return fmt.Sprintf("%s seq %d", in.Type, in.Seq)
	}
	return fmt.Sprintf("%s #%d (%d B, by order)", in.Type, in.Ordinal, in.Bytes)
}

// groupGaps states the ranks of each group that no input holds.
func (res *Result) groupGaps(groups map[string]*groupInfo, ins []rankedInput) {
	g := &capture.Gap{Kind: CollectiveRanksMissing}
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		gi := groups[name]
		if gi.size <= int64(len(gi.members)) {
			continue
		}
		what := fmt.Sprintf("%d of %d ranks read", len(gi.members), gi.size)
		var missing []int64
		for _, r := range parseRanks(gi.ranks) {
			if !gi.members[r] {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 {
			what += ", missing " + rankList(missing)
		}
		g.Add(capture.Item{What: what, Where: "group " + name})
	}
	if g.Count > 0 {
		g.Summary = "groups whose ranks are not all among the inputs: skew, waits and stragglers are over the ranks read; give every rank's trace"
		res.Gaps = append(res.Gaps, g)
	}
}

// clockNote states how the clocks were compared, as a note of the whole.
func (res *Result) clockNote(ranks int) {
	g := &capture.Gap{Kind: CollectiveClocks, Note: true}
	g.Summary = "how the ranks' clocks were compared for the collectives"
	g.Add(capture.Item{What: res.Clock, Where: fmt.Sprintf("%d ranks", ranks)})
	res.Gaps = append(res.Gaps, g)
}

// parseRanks reads "[0, 1, 2]" (PyTorch's Process Group Ranks); a list cut
// short ("[0, 1, ...]") yields the ranks it names.
func parseRanks(s string) []int64 {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	var out []int64
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64); err == nil && n >= 0 {
			out = append(out, n)
		}
	}
	return out
}

// rankList writes ranks as "rank 2" or "ranks 2, 5, 7" (the first 10).
func rankList(rs []int64) string {
	if len(rs) == 1 {
		return fmt.Sprintf("rank %d", rs[0])
	}
	var b strings.Builder
	b.WriteString("ranks ")
	for i, r := range rs {
		if i == 10 {
			fmt.Fprintf(&b, " and %d more", len(rs)-10)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(r, 10))
	}
	return b.String()
}
