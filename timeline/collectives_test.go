package timeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tallyprof/tally/internal/gen/collgen"
	"github.com/tallyprof/tally/internal/gen/collgen/collgentest"
)

// A generated job's timeline: every rank's part of every instance on its
// rank's collectives track, arrows joining each instance's parts in
// arrival order and ending at the planted straggler, and the missing
// collective in the verdict.
func TestCollectiveFlows(t *testing.T) {
	cfg := collgen.Default()
	_, paths := collgentest.Dir(t, cfg)
	var buf bytes.Buffer
	sum, err := Run(paths, &buf, Options{As: Chrome})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Complete || !strings.Contains(sum.Verdict, "collectives: unmatched_collective") {
		t.Errorf("verdict %q, want incomplete naming unmatched_collective", sum.Verdict)
	}
	parts := cfg.Ranks*cfg.Instances - 1
	if sum.Stats.Collectives != int64(parts) {
		t.Errorf("got %d collective parts drawn, want %d", sum.Stats.Collectives, parts)
	}
	// Perfetto's protobuf draws the same parts.
	if ps, err := Run(paths, &bytes.Buffer{}, Options{As: Perfetto}); err != nil || ps.Stats.Collectives != int64(parts) {
		t.Errorf("perfetto: got %v, %d parts; want %d", err, ps.Stats.Collectives, parts)
	}
	var doc struct {
		TraceEvents []struct {
			Ph   string         `json:"ph"`
			Cat  string         `json:"cat"`
			Name string         `json:"name"`
			ID   uint64         `json:"id"`
			Pid  int            `json:"pid"`
			Ts   float64        `json:"ts"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	type at struct {
		pid int
		ts  float64
	}
	parts0 := map[at]bool{}
	starts, ends := map[at]bool{}, map[at]bool{}
	ids := map[uint64]int{}
	rank5 := -1
	for _, e := range doc.TraceEvents {
		switch {
		case e.Ph == "M" && e.Name == "process_name" && e.Args["name"] == "rank 5":
			rank5 = e.Pid
		case e.Ph == "X" && e.Cat == "collective":
			parts0[at{e.Pid, e.Ts}] = true
		case e.Ph == "s" && e.Cat == "collective":
			starts[at{e.Pid, e.Ts}] = true
			ids[e.ID]++
		case e.Ph == "f" && e.Cat == "collective":
			ends[at{e.Pid, e.Ts}] = true
			ids[e.ID]++
		}
	}
	// n ranks of an instance: n−1 arrows, each with both ends on a part.
	if len(parts0) != parts || len(starts) != parts-cfg.Instances || len(ends) != len(starts) {
		t.Fatalf("got %d parts, %d arrow starts, %d ends; want %d, %d, %d", len(parts0), len(starts), len(ends), parts, parts-cfg.Instances, parts-cfg.Instances)
	}
	for id, n := range ids {
		if n != 2 {
			t.Errorf("arrow %d has %d ends, want 2", id, n)
		}
	}
	// A chain ends where an arrow arrives and none leaves: the last
	// arrival, the planted straggler's part, on rank 5.
	chains := 0
	for a := range ends {
		if !parts0[a] {
			t.Errorf("got an arrow ending at %+v, where no part begins; want each arrow to end at a part", a)
		}
		if !starts[a] {
			chains++
			if a.pid != rank5 {
				t.Errorf("a chain ends on pid %d, want rank 5's (%d)", a.pid, rank5)
			}
		}
	}
	if chains != cfg.Instances {
		t.Errorf("got %d chains, want %d", chains, cfg.Instances)
	}
}
