package export

import (
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/collectives"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/gen/collgen"
	"github.com/tallyprof/tally/internal/gen/collgen/collgentest"
)

// The Parquet collectives table of a generated job: one row per rank and
// instance with the planted figures, the straggler flagged on the slow
// rank's rows only, and the missing collective in the gaps table as a row
// of the whole run (input -1) that makes the export incomplete.
func TestParquetCollectives(t *testing.T) {
	cfg := collgen.Default()
	dir, paths := collgentest.Dir(t, cfg)
	out := filepath.Join(dir, "ds")
	res := run(t, paths, Options{To: Parquet, Out: out})
	if res.Complete {
		t.Error("export complete; want incomplete (a collective is missing on rank 2)")
	}
	rows := readParquet[CollectiveRow](t, filepath.Join(out, "collectives.parquet"))
	if want := cfg.Ranks*cfg.Instances - 1; len(rows) != want {
		t.Fatalf("got %d rows, want %d", len(rows), want)
	}
	stragglers := 0
	for _, r := range rows {
		if r.Straggler {
			stragglers++
			if r.Rank != "5" || *r.WaitNS != 0 {
				t.Errorf("straggler row %+v, want rank 5 waiting 0", r)
			}
		}
		if r.SkewNS == nil || *r.SkewNS != cfg.Delay || r.StragglerRank == nil || *r.StragglerRank != int64(cfg.Slow) ||
			r.Bytes == nil || *r.Bytes != cfg.Elems*4 || r.BusBW == nil || r.Seq == nil || r.Ordinal != nil {
			t.Errorf("row %+v: want skew %d, straggler %d, %d bytes, busbw, seq", r, cfg.Delay, cfg.Slow, cfg.Elems*4)
		}
		if r.Rank == "0" && *r.WaitNS != cfg.Delay {
			t.Errorf("rank 0 row waits %d, want %d", *r.WaitNS, cfg.Delay)
		}
		if *r.Seq == int64(cfg.MissingInstance) && (r.Ranks != 7 || r.MissingRanks != 1) {
			t.Errorf("instance %d row: %d ranks %d missing, want 7 and 1", cfg.MissingInstance, r.Ranks, r.MissingRanks)
		}
	}
	if stragglers != cfg.Instances {
		t.Errorf("got %d straggler rows, want %d", stragglers, cfg.Instances)
	}
	gaps := readParquet[GapRow](t, filepath.Join(out, "gaps.parquet"))
	found := false
	for _, g := range gaps {
		if g.Kind == string(collectives.UnmatchedCollective) {
			found = g.Input == -1 && g.Count == 1 && g.First == "allgather seq 3 on 7 of 8 ranks read, missing on rank 2 (group 0)"
		}
	}
	if !found {
		t.Errorf("got no unmatched_collective row of input -1 naming rank 2 in the gaps table, want one")
	}
}

// A rank exported as Kineto JSON reads back with the same collectives:
// the args are written on the kernel as PyTorch's profiler writes them.
func TestKinetoKeepsCollectives(t *testing.T) {
	cfg := collgen.Default()
	dir := t.TempDir()
	p := collgentest.Rank(t, cfg, 3, dir, "rank-3.json")
	orig := readBack(t, p, format.Options{})
	_, back := exportRead(t, p, dir, "back.json", format.Options{})
	if len(back.disp) != len(orig.disp) || len(orig.disp) != cfg.Instances {
		t.Fatalf("got %d dispatches back of %d, want %d", len(back.disp), len(orig.disp), cfg.Instances)
	}
	for i := range orig.disp {
		a, b := orig.disp[i].Collective, back.disp[i].Collective
		if a == nil || b == nil || *a != *b {
			t.Errorf("dispatch %d: got collective %+v back, want %+v", i, b, a)
		}
	}
}
