package collectives

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	_ "github.com/tallyprof/tally/format/kineto"
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/internal/gen/collgen"
)

// job writes cfg's ranks to a directory and reads it as tally report DIR
// does, each input with its collectives sink.
func job(t testing.TB, cfg collgen.Config) (*analysis.Run, *Result) {
	t.Helper()
	dir := t.TempDir()
	_, err := collgen.WriteDir(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return readRun(t, inputs.Expand([]string{dir}, ""))
}

func readRun(t testing.TB, e *inputs.Expansion) (*analysis.Run, *Result) {
	t.Helper()
	col := NewCollector()
	run := e.Read(inputs.Options{Workers: 2, Sink: func(i int, _ string) capture.Sink { return col.Sink(i) }})
	for _, in := range run.Inputs {
		if in.Err != nil {
			t.Fatalf("%s: got error %v, want none", in.Path, in.Err)
		}
	}
	return run, Analyze(run, col)
}

// The planted job gives the planted figures exactly: every instance's
// skew is the slow rank's delay and the slow rank its straggler, each
// rank waits Delay − r·Step, the transfer time and bandwidths are the
// planted ones, and the collective missing on one rank is the one
// unmatched_collective, naming the rank and the sequence number.
func TestPlantedStraggler(t *testing.T) {
	cfg := collgen.Default()
	run, res := job(t, cfg)
	if res == nil || !res.Matched || !res.Comparable {
		t.Fatalf("got %+v, want a matched result on comparable clocks", res)
	}
	if len(res.Instances) != cfg.Instances {
		t.Fatalf("got %d instances, want %d", len(res.Instances), cfg.Instances)
	}
	for i, in := range res.Instances {
		wantRanks := cfg.Ranks
		if i == cfg.MissingInstance {
			wantRanks--
		}
		if in.Seq != int64(i) || in.Type != cfg.Type(i) || in.Group != "0" || len(in.Arrivals) != wantRanks || !in.Timed {
			t.Fatalf("instance %d: got seq %d type %s group %q %d ranks timed %v; want %d %s 0 %d true", i, in.Seq, in.Type, in.Group, len(in.Arrivals), in.Timed, i, cfg.Type(i), wantRanks)
		}
		if in.Skew != cfg.Delay || in.Straggler != int64(cfg.Slow) {
			t.Errorf("instance %d: got skew %d straggler %d, want %d %d", i, in.Skew, in.Straggler, cfg.Delay, cfg.Slow)
		}
		if in.Transfer != cfg.Transfer || in.Bytes != cfg.Bytes(i) {
			t.Errorf("instance %d: got transfer %d bytes %d, want %d %d", i, in.Transfer, in.Bytes, cfg.Transfer, cfg.Bytes(i))
		}
		// 4 MiB in 250 µs: 16.777216 GB/s; allreduce ×2·7/8, allgather ×7/8.
		alg := 16.777216
		bus := alg * 2 * 7 / 8
		if in.Type == "allgather" {
			bus = alg * 7 / 8
		}
		if math.Abs(in.AlgBW-alg) > 1e-9 || math.Abs(in.BusBW-bus) > 1e-9 {
			t.Errorf("instance %d: got algbw %v busbw %v, want %v %v", i, in.AlgBW, in.BusBW, alg, bus)
		}
		for _, a := range in.Arrivals {
			want := cfg.Delay - int64(a.Rank)*cfg.Step
			if a.Rank == int64(cfg.Slow) {
				want = 0
			}
			if a.Wait != want {
				t.Errorf("instance %d rank %d: got wait %d, want %d", i, a.Rank, a.Wait, want)
			}
		}
	}
	for _, rs := range res.Ranks {
		n := int64(cfg.Instances)
		if rs.Rank == int64(cfg.MissingRank) {
			n--
		}
		wantWait, wantStrag := n*(cfg.Delay-rs.Rank*cfg.Step), int64(0)
		if rs.Rank == int64(cfg.Slow) {
			wantWait, wantStrag = 0, n
		}
		if rs.Wait != wantWait || rs.StragglerCount != wantStrag || rs.Collectives != n || rs.Matched != n {
			t.Errorf("rank %d: got wait %d straggler %d collectives %d matched %d, want %d %d %d %d", rs.Rank, rs.Wait, rs.StragglerCount, rs.Collectives, rs.Matched, wantWait, wantStrag, n, n)
		}
	}
	g := run.Whole.Accounting.Find(UnmatchedCollective)
	if g == nil || g.Count != 1 || len(g.Items) != 1 || g.Items[0].What != "allgather seq 3 on 7 of 8 ranks read, missing on rank 2" {
		t.Fatalf("got unmatched gap %+v, want one naming allgather seq 3 missing on rank 2", g)
	}
	if g.Affected == nil || g.Affected.Known {
		t.Errorf("unmatched gap sized %+v, want sized unknown", g.Affected)
	}
	if run.Whole.Accounting.Complete() {
		t.Error("the whole is complete; want incomplete (a collective is missing)")
	}
	for _, k := range []capture.Kind{CollectiveRanksMissing, CollectiveClockOffset} {
		if g := run.Whole.Accounting.Find(k); g != nil {
			t.Errorf("got a %s gap %+v, want none", k, g.Items)
		}
	}
	if g := run.Whole.Accounting.Find(CollectiveClocks); g == nil || !g.Note {
		t.Errorf("got clocks note %+v, want one", g)
	}
}

// Without sequence numbers the instances are matched by order and give the
// same figures; the rank missing its instance 3 then pairs its next
// allgather with the others' 3rd, so the miss shows as instance #2 of the
// allgathers (ordinal 2, 0-based: seq 5) missing on rank 2.
func TestMatchByOrder(t *testing.T) {
	cfg := collgen.Default()
	cfg.NoSeq = true
	cfg.MissingInstance = cfg.Instances - 1 // the last: no shift
	_, res := job(t, cfg)
	if len(res.Instances) != cfg.Instances {
		t.Fatalf("got %d instances, want %d", len(res.Instances), cfg.Instances)
	}
	var missing int
	for _, in := range res.Instances {
		if in.Seq != -1 || in.Skew != cfg.Delay || in.Straggler != int64(cfg.Slow) {
			t.Errorf("%s: got seq %d skew %d straggler %d, want -1 %d %d", in.label(), in.Seq, in.Skew, in.Straggler, cfg.Delay, cfg.Slow)
		}
		if len(in.Missing) > 0 {
			missing++
			if in.Type != "allgather" || in.Ordinal != 2 || len(in.Missing) != 1 || in.Missing[0] != int64(cfg.MissingRank) {
				t.Errorf("got %s missing on %v, want allgather #2 missing on rank %d", in.label(), in.Missing, cfg.MissingRank)
			}
		}
	}
	if missing != 1 {
		t.Errorf("got %d instances with a missing rank, want 1", missing)
	}
}

// Ranks of the group that are not among the inputs are a gap naming them;
// with none missing and no straggler (all arrive at once but rank 0's
// step), no unmatched gap.
func TestRanksMissing(t *testing.T) {
	cfg := collgen.Default()
	cfg.MissingRank = -1
	dir := t.TempDir()
	for r := range 3 { // of 8
		f, _ := os.Create(filepath.Join(dir, fmt.Sprintf("rank-%d.json", r)))
		if err := collgen.Write(f, cfg, r); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	run, res := readRun(t, inputs.Expand([]string{dir}, ""))
	g := run.Whole.Accounting.Find(CollectiveRanksMissing)
	if g == nil || g.Count != 1 || g.Items[0].What != "3 of 8 ranks read, missing ranks 3, 4, 5, 6, 7" {
		t.Fatalf("got %+v, want one gap naming ranks 3 to 7", g)
	}
	if run.Whole.Accounting.Find(UnmatchedCollective) != nil {
		t.Error("got an unmatched_collective gap, want none: every rank read holds every instance")
	}
	// Over the ranks read, rank 2 is the last: the straggler.
	if in := res.Instances[0]; in.Straggler != 2 || in.Skew != 2*cfg.Step {
		t.Errorf("got straggler %d skew %d, want 2 %d", in.Straggler, in.Skew, 2*cfg.Step)
	}
}

// A rank whose clock is offset so far that it ends before the slow rank
// starts is a collective_clock_offset gap with the overlap.
func TestClockOffset(t *testing.T) {
	cfg := collgen.Default()
	cfg.MissingRank = -1
	cfg.Delay = 10 * cfg.Transfer // the "slow" rank starts after the others ended
	cfg.Transfer = 1_000
	_ = cfg
	// Build the result directly from sinks: rank 1 ends at 500, rank 0
	// starts at 800.
	res := &Result{Matched: true, Comparable: true, Ranks: []Rank{{Rank: 0}, {Rank: 1}}}
	in0 := &Sink{recs: []record{{begin: 800, end: 900, timed: true, typ: "allreduce", group: "g", seq: 0, bytes: 8, groupSize: 2, rank: 0}}}
	in1 := &Sink{recs: []record{{begin: 100, end: 500, timed: true, typ: "allreduce", group: "g", seq: 0, bytes: 8, groupSize: 2, rank: 1}}}
	ins := []rankedInput{{rank: 0, sink: in0}, {rank: 1, index: 1, sink: in1}}
	res.Ranks = nil
	g := matchedGap(res, ins, CollectiveClockOffset)
	if g == nil || g.Count != 1 {
		t.Fatalf("got gaps %+v, want one collective_clock_offset", res.Gaps)
	}
	if v, _ := g.Figure("max_overlap_ns"); v != 300 {
		t.Errorf("got max_overlap_ns %d, want 300", v)
	}
	if in := res.Instances[0]; in.Transfer != -1 || in.HasBusBW {
		t.Errorf("got transfer %d busbw %v, want unknown", in.Transfer, in.HasBusBW)
	}
}

// One input: counted per rank, not matched, no gap. The public traces:
// the one with NCCL args (group size 1, no NCCL kernel) holds no
// collective; two ranks of a 128-rank job (NCCL SendRecv kernels named,
// without args) hold point-to-point kernels, counted and not matched; none
// makes a collective gap.
func TestOneInputAndPublicTrace(t *testing.T) {
	cfg := collgen.Default()
	dir := t.TempDir()
	p := filepath.Join(dir, "rank-0.json")
	f, _ := os.Create(p)
	if err := collgen.Write(f, cfg, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	run, res := readRun(t, inputs.Paths(p))
	if res == nil || res.Matched || len(res.Instances) != 0 || len(res.Ranks) != 1 || res.Ranks[0].Collectives != int64(cfg.Instances) || len(res.Notes) != 1 {
		t.Fatalf("got %+v, want one rank of %d collectives, unmatched, with a note", res, cfg.Instances)
	}
	if !run.Inputs[0].Capture.Accounting.Complete() {
		t.Error("one input: got gaps, want none")
	}
	td := "../format/kineto/testdata/"
	run, res = readRun(t, inputs.Paths(td+"hta__ns_resolution_rank-0.pt.trace.json.gz"))
	if res != nil {
		t.Errorf("public trace with NCCL args: got %+v, want no collectives", res)
	}
	run, res = readRun(t, inputs.Paths(td+"hta__sampled_rank-0.json.gz", td+"hta__sampled_rank-1.json.gz"))
	if res == nil || len(res.Instances) != 0 || res.PointToPoint == 0 || res.PointToPoint != res.Ranks[0].Collectives+res.Ranks[1].Collectives {
		t.Fatalf("sampled ranks: got %+v, want point-to-point kernels only, counted per rank", res)
	}
	for _, k := range []capture.Kind{UnmatchedCollective, CollectiveRanksMissing, CollectiveClockOffset, CollectiveClocks} {
		if run.Whole.Accounting.Find(k) != nil {
			t.Errorf("public traces: got a %s gap, want none", k)
		}
	}
}

// A rank's exposed communication is its input's breakdown rows' comm not
// under compute (ns devices only); without a breakdown it is unknown.
func TestExposedFromBreakdown(t *testing.T) {
	run := &analysis.Run{Inputs: []analysis.Input{
		{Breakdown: &analysis.Breakdown{Devices: []analysis.DeviceBreakdown{
			{Unit: "ns", CommTotal: 500, CommOverlapped: 200},
			{Unit: "ns", CommTotal: 100, CommOverlapped: 100},
			{Unit: "ticks", CommTotal: 9000, CommOverlapped: 0},
		}}},
		{},
	}}
	res := &Result{Ranks: []Rank{{Rank: 0, Input: 0}, {Rank: 1, Input: 1}}}
	res.exposed(run)
	if r := res.Ranks[0]; !r.HasExposed || r.Exposed != 300 {
		t.Errorf("rank 0: got exposed %d (known %v), want 300 (known)", r.Exposed, r.HasExposed)
	}
	if r := res.Ranks[1]; r.HasExposed {
		t.Errorf("rank 1 without a breakdown: got exposed %d known, want unknown", r.Exposed)
	}
}

// A collective whose trace names a type tally cannot normalise is matched
// and shown as "unknown", never as a blank type.
func TestUnknownTypeShown(t *testing.T) {
	s := &Sink{}
	c := &capture.Capture{}
	d := &capture.Dispatch{Device: capture.Interval{Begin: 1, End: 2, Valid: true},
		Collective: &capture.Collective{Group: "0", Seq: 0, GroupSize: 2, Rank: 0, InElems: -1, OutElems: -1, ElemSize: -1, RankStart: -1, RankStride: -1}}
	s.Dispatch(c, d)
	if len(s.recs) != 1 || s.recs[0].typ != UnknownType {
		t.Fatalf("got records %+v, want one of type %q", s.recs, UnknownType)
	}
}

// Each group with ranks no input holds is one item of the gap, groups in
// name order (a map's order would make the report differ run to run);
// a group whose ranks were all read is none.
func TestRanksMissingGroupsInOrder(t *testing.T) {
	var res Result
	res.groupGaps(map[string]*groupInfo{
		"tp1":  {size: 2, ranks: "[2, 3]", members: map[int64]bool{2: true}},
		"dp":   {size: 4, ranks: "[0, 1, 2, 3]", members: map[int64]bool{0: true, 1: true}},
		"tp0":  {size: 2, ranks: "[0, 1]", members: map[int64]bool{0: true, 1: true}},
		"pp-a": {size: 3, members: map[int64]bool{0: true}},
	}, nil)
	if len(res.Gaps) != 1 {
		t.Fatalf("got %d gaps, want 1", len(res.Gaps))
	}
	var got []string
	for _, it := range res.Gaps[0].Items {
		got = append(got, it.Where+": "+it.What)
	}
	want := []string{"group dp: 2 of 4 ranks read, missing ranks 2, 3", "group pp-a: 1 of 3 ranks read",
		"group tp1: 1 of 2 ranks read, missing rank 3"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Instances matched by order that differ only in their size are two
// instances, in one order whatever the map's: the size breaks the tie.
func TestInstanceOrderUsesEveryField(t *testing.T) {
	small := instKey{group: "0", seq: -1, typ: "allreduce", bytes: 1024, ordinal: 3}
	large := small
	large.bytes = 4096
	if got := small.compare(large); got >= 0 {
		t.Errorf("got compare(1024 B, 4096 B) = %d, want < 0", got)
	}
	if got := large.compare(small); got <= 0 {
		t.Errorf("got compare(4096 B, 1024 B) = %d, want > 0", got)
	}
	earlier := large
	earlier.ordinal = 2
	if got := earlier.compare(small); got >= 0 {
		t.Errorf("got compare(#2 4096 B, #3 1024 B) = %d, want < 0: the ordinal comes before the size", got)
	}
}

// The figures of matched instances, on two ranks: a tie of starts names
// the lowest rank the straggler; a transfer of 0 (the earliest end at the
// last start) is known; only symmetric types can show a clock offset, and
// its figure is the largest overlap; a group of one rank is timed.
func TestFiguresAndOffsetEdges(t *testing.T) {
	res := &Result{Matched: true, Comparable: true}
	rec := func(rank, seq, begin, end int64, typ string) record {
		return record{begin: begin, end: end, timed: true, typ: typ, group: "g", seq: seq, bytes: 8, groupSize: 2, rank: rank}
	}
	in0 := &Sink{recs: []record{
		rec(0, 0, 2000, 2100, "allreduce"), rec(0, 1, 800, 900, "allreduce"), rec(0, 2, 5000, 5100, "broadcast"),
		rec(0, 3, 6000, 6100, "allreduce"), rec(0, 4, 7000, 7100, "allreduce"),
		{begin: 9000, end: 9100, timed: true, typ: "allreduce", group: "solo", seq: 0, bytes: 8, groupSize: 1, rank: 0},
	}}
	in1 := &Sink{recs: []record{
		rec(1, 0, 1000, 1050, "allreduce"), rec(1, 1, 100, 500, "allreduce"), rec(1, 2, 4000, 4050, "broadcast"),
		rec(1, 3, 6000, 6200, "allreduce"), rec(1, 4, 7100, 7200, "allreduce"),
	}}
	ins := []rankedInput{{rank: 0, sink: in0}, {rank: 1, index: 1, sink: in1}}
	res.Ranks = []Rank{{Rank: 0}, {Rank: 1}}
	g := matchedGap(res, ins, CollectiveClockOffset)
	if g == nil || g.Count != 2 {
		t.Fatalf("got gaps %+v, want collective_clock_offset counting the 2 allreduces (not the broadcast)", res.Gaps)
	}
	if v, _ := g.Figure("max_overlap_ns"); v != 950 {
		t.Errorf("got max_overlap_ns %d, want 950 (the larger of 950 and 300)", v)
	}
	found := 0
	for _, in := range res.Instances {
		switch {
		case in.Group == "g" && in.Seq == 3:
			found++
			if in.Straggler != 0 || in.Transfer != 100 {
				t.Errorf("tied starts: got straggler %d, transfer %d; want rank 0 (the lowest), 100", in.Straggler, in.Transfer)
			}
		case in.Group == "g" && in.Seq == 4:
			found++
			if in.Transfer != 0 || in.HasAlgBW {
				t.Errorf("earliest end at the last start: got transfer %d, algbw %v; want 0, no bandwidth", in.Transfer, in.HasAlgBW)
			}
		case in.Group == "solo":
			found++
			if !in.Timed || in.Straggler != -1 || in.Transfer != 100 {
				t.Errorf("a group of one: got timed %v, straggler %d, transfer %d; want timed, no straggler, 100", in.Timed, in.Straggler, in.Transfer)
			}
		}
	}
	if found != 3 {
		t.Errorf("got %d of the 3 instances checked, want 3: %+v", found, res.Instances)
	}
}

// matchedGap matches ins's collectives into res and returns its gap of the
// kind, nil when there is none.
func matchedGap(res *Result, ins []rankedInput, kind capture.Kind) *capture.Gap {
	insts, groups := res.collect(ins)
	res.match(insts, groups, ins)
	var g *capture.Gap
	for _, x := range res.Gaps {
		if x.Kind == kind {
			g = x
		}
	}
	return g
}
