package collectives

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/internal/gen/collgen"
)

// Ranks that disagree on one instance (the third sweep): the same group
// and sequence number with another size, another type, or another group
// size took the largest size and the lowest rank's type without a word —
// a bandwidth over a size one rank never moved — and the run was COMPLETE.
// Now each is a collective_mismatch item and the figures that depend on
// it are unknown; an alltoall's per-rank sizes may differ (split sizes),
// and ranks that agree make no item.
func TestCollectiveMismatch(t *testing.T) {
	rec := func(rank, seq int64, typ string, bytes, groupSize int64) record {
		return record{begin: 1000 * seq, end: 1000*seq + 500, timed: true, typ: typ, group: "g", seq: seq, bytes: bytes, groupSize: groupSize, rank: rank}
	}
	in0 := &Sink{recs: []record{rec(0, 0, "allreduce", 4096, 2), rec(0, 1, "allgather", 4096, 2), rec(0, 2, "allreduce", 4096, 2),
		rec(0, 3, "alltoall", 4096, 2), rec(0, 4, "allreduce", 4096, 2)}}
	in1 := &Sink{recs: []record{rec(1, 0, "allreduce", 8192, 2), rec(1, 1, "broadcast", 4096, 2), rec(1, 2, "allreduce", 4096, 8),
		rec(1, 3, "alltoall", 1024, 2), rec(1, 4, "allreduce", 4096, 2)}}
	res := &Result{Matched: true, Comparable: true, Ranks: []Rank{{Rank: 0}, {Rank: 1}}}
	g := matchedGap(res, []rankedInput{{rank: 0, sink: in0}, {rank: 1, index: 1, sink: in1}}, CollectiveMismatch)
	if g == nil {
		t.Fatalf("got gaps %+v, want a collective_mismatch", res.Gaps)
	}
	var got []string
	for _, it := range g.Items {
		got = append(got, it.What)
	}
	want := []string{
		"allreduce seq 0: the ranks disagree on its message size (4096 B on rank 0; 8192 B on rank 1): its bytes and bandwidth are not computed",
		"allgather seq 1: the ranks disagree on its type (allgather on rank 0; broadcast on rank 1): its bytes and bandwidth are not computed",
		"allreduce seq 2: the ranks disagree on its group size (2 ranks on rank 0; 8 ranks on rank 1): its bus bandwidth is not computed",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || g.Count != 3 {
		t.Errorf("got %d items:\n%s\nwant 3:\n%s", g.Count, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, in := range res.Instances {
		switch in.Seq {
		case 0, 1:
			if in.Bytes != -1 || in.HasAlgBW || in.HasBusBW || !in.Timed {
				t.Errorf("seq %d: got bytes %d, algbw %v, busbw %v, timed %v; want unknown bytes and bandwidth, still timed", in.Seq, in.Bytes, in.HasAlgBW, in.HasBusBW, in.Timed)
			}
		case 2:
			if in.GroupSize != -1 || in.HasBusBW || !in.HasAlgBW || in.Bytes != 4096 {
				t.Errorf("seq 2: got group size %d, busbw %v, algbw %v, bytes %d; want unknown group size and bus bandwidth, algbw over 4096 B", in.GroupSize, in.HasBusBW, in.HasAlgBW, in.Bytes)
			}
		case 3, 4:
			if !in.HasBusBW {
				t.Errorf("seq %d (%s): got no bus bandwidth, want one: no mismatch", in.Seq, in.Type)
			}
		}
	}
	if r, ok := capture.RuleOf(CollectiveMismatch); !ok || r.Measure != capture.TouchesNone {
		t.Errorf("got rule %+v (registered %v), want it sized as touching no device time", r, ok)
	}
}

// Two inputs of one rank: the second is left out, and its note says how
// many collective dispatches that leaves out — a number, not only a fact.
func TestRepeatedRankLeftOutCounted(t *testing.T) {
	cfg := collgen.Default()
	cfg.MissingRank = -1
	dir := t.TempDir()
	write := func(name string, c collgen.Config, r int) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := collgen.Write(f, c, r); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	write("rank-0.json", cfg, 0)
	write("rank-1.json", cfg, 1)
	other := cfg
	other.Transfer++ // other bytes: not a copy, read
	write("rank-0-again.json", other, 0)
	_, res := readRun(t, inputs.Expand([]string{dir}, ""))
	want := "both record rank 0: the second is left out of the collectives (its 6 collective dispatches)"
	if len(res.Notes) != 1 || !strings.HasSuffix(res.Notes[0], want) {
		t.Errorf("got notes %q, want one ending %q", res.Notes, want)
	}
}
