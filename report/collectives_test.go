package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/internal/gen/collgen/collgentest"
	"github.com/tallyprof/tally/render"
)

// The report of a generated job: the text section names the planted
// straggler within 120 columns, the JSON holds the contract's fields with
// the planted figures, and --strict fails on the missing collective.
func TestCollectivesSection(t *testing.T) {
	cfg, run, res := collgentest.Job(t)
	x := Extras{Collectives: res}

	var text bytes.Buffer
	if err := WriteWith(&text, run, false, render.TextOptions{}, x); err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(text.String(), "\n== collectives: 6 instances matched across 8 ranks ==\n")
	if !ok {
		t.Fatalf("got no collectives section (6 instances across 8 ranks), want one, in:\n%s", text.String())
	}
	for _, line := range strings.Split(sec, "\n") {
		if n := len([]rune(line)); n > 120 {
			t.Errorf("line of %d columns, want ≤ 120: %q", n, line)
		}
	}
	for _, want := range []string{"allreduce              3       3    40.000 µs    40.000 µs   250.000 µs   29.36 GB/s        rank 5 ×3",
		"rank 5                                       6     1.500 ms         0 ns     1.500 ms          6"} {
		if !strings.Contains(sec, want) {
			t.Errorf("section lacks %q:\n%s", want, sec)
		}
	}

	var js bytes.Buffer
	if err := WriteWith(&js, run, true, render.TextOptions{}, x); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Collectives struct {
			Instances []struct {
				Name      string   `json:"name"`
				Group     string   `json:"group"`
				Seq       *int64   `json:"seq"`
				Ranks     []any    `json:"ranks"`
				Missing   []int64  `json:"missing_ranks"`
				Skew      *int64   `json:"skew_ns"`
				Straggler *int64   `json:"straggler_rank"`
				Bytes     *int64   `json:"bytes"`
				BusBW     *float64 `json:"busbw_gbps"`
			} `json:"instances"`
			Ranks []struct {
				Rank      int64 `json:"rank"`
				Wait      int64 `json:"wait_ns"`
				Straggler int64 `json:"straggler_count"`
			} `json:"ranks"`
		} `json:"collectives"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	ins := doc.Collectives.Instances
	if len(ins) != cfg.Instances {
		t.Fatalf("got %d instances, want %d", len(ins), cfg.Instances)
	}
	i3 := ins[3]
	if i3.Name != "allgather" || i3.Group != "0" || i3.Seq == nil || *i3.Seq != 3 || len(i3.Ranks) != 7 || len(i3.Missing) != 1 ||
		i3.Skew == nil || *i3.Skew != cfg.Delay || i3.Straggler == nil || *i3.Straggler != 5 || i3.Bytes == nil || *i3.Bytes != cfg.Bytes(3) ||
		i3.BusBW == nil || *i3.BusBW != 14.680064 {
		t.Errorf("instance 3: got %+v, want allgather seq 3 of group 0, 7 ranks and 1 missing, skew %d, straggler 5, %d bytes, 14.680064 bus GB/s", i3, cfg.Delay, cfg.Bytes(3))
	}
	if r := doc.Collectives.Ranks[5]; r.Rank != 5 || r.Wait != 0 || r.Straggler != 6 {
		t.Errorf("rank 5: got %+v, want wait 0, straggler 6 times", r)
	}
	if r := doc.Collectives.Ranks[0]; r.Wait != 6*cfg.Delay || r.Straggler != 0 {
		t.Errorf("rank 0: got %+v, want wait %d", r, 6*cfg.Delay)
	}
	if code, _ := ExitCode(run, Gate{Strict: true, MaxAffected: -1}); code != exitcode.Failed {
		t.Errorf("--strict: got exit %d, want %d (a collective is missing)", code, exitcode.Failed)
	}
}
