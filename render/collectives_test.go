package render

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/collectives"
)

// Every figure of the collectives section is a number when known and null
// when not (docs/report-json.md, "Collectives"): a timed instance with all
// its figures, rank 0 as its straggler (0 is known, not null), beside an
// untimed one matched by order that knows none of them.
func TestBuildCollectivesNullWhenUnknown(t *testing.T) {
	res := &collectives.Result{Matched: true, Comparable: true, Clock: "one domain", Instances: []collectives.Instance{
		{Type: "all_reduce", Group: "g", Seq: 5, Ordinal: 5, GroupSize: 2, Bytes: 1024,
			Arrivals: []collectives.Arrival{{Rank: 0, Start: 10, End: 90, Wait: 0}, {Rank: 1, Start: 0, End: 90, Wait: 10}},
			Timed:    true, Skew: 10, Straggler: 0, Transfer: 80, AlgBW: 12.8, BusBW: 12.8, HasAlgBW: true, HasBusBW: true},
		{Type: "broadcast", Group: "g", Seq: -1, Ordinal: 3, GroupSize: -1, Bytes: -1, Missing: []int64{1},
			Arrivals: []collectives.Arrival{{Rank: 0, Start: 100, End: 110}},
			Skew:     7, Straggler: -1, Transfer: -1, AlgBW: 1, BusBW: 1},
	}, Ranks: []collectives.Rank{
		{Rank: 0, Input: 0, Collectives: 2, Time: 90, Matched: 2, Exposed: 40, HasExposed: true},
		{Rank: 1, Input: 1, Collectives: 1, Time: 90, Matched: 1, Wait: 10, StragglerCount: 0, Exposed: 99},
	}}
	run := &analysis.Run{Inputs: []analysis.Input{{Path: "r0.json"}, {Path: "r1.json"}}}
	j := BuildCollectives(res, run)
	wantJSON(t, "types", j.Types, `[{"name":"all_reduce","instances":1,"timed":1,"skew_mean_ns":10,"skew_max_ns":10,"transfer_mean_ns":80,`+
		`"busbw_mean_gbps":12.8,"bytes":1024,"straggler_rank":0,"straggler_count":1},`+
		`{"name":"broadcast","instances":1,"timed":0,"skew_mean_ns":null,"skew_max_ns":null,"transfer_mean_ns":null,`+
		`"busbw_mean_gbps":null,"bytes":0,"straggler_rank":null,"straggler_count":0}]`)
	wantJSON(t, "timed instance", j.Instances[0], `{"name":"all_reduce","group":"g","seq":5,"ordinal":null,"group_size":2,`+
		`"ranks":[{"rank":0,"start_ns":10,"end_ns":90,"wait_ns":0},{"rank":1,"start_ns":0,"end_ns":90,"wait_ns":10}],`+
		`"missing_ranks":[],"skew_ns":10,"straggler_rank":0,"transfer_ns":80,"bytes":1024,"algbw_gbps":12.8,"busbw_gbps":12.8}`)
	wantJSON(t, "untimed instance", j.Instances[1], `{"name":"broadcast","group":"g","seq":null,"ordinal":3,"group_size":null,`+
		`"ranks":[{"rank":0,"start_ns":100,"end_ns":110,"wait_ns":0}],`+
		`"missing_ranks":[1],"skew_ns":null,"straggler_rank":null,"transfer_ns":null,"bytes":null,"algbw_gbps":null,"busbw_gbps":null}`)
	wantJSON(t, "ranks", j.Ranks, `[{"rank":0,"input":"r0.json","collectives":2,"time_ns":90,"matched":2,"wait_ns":0,"straggler_count":0,"comm_exposed_ns":40},`+
		`{"rank":1,"input":"r1.json","collectives":1,"time_ns":90,"matched":1,"wait_ns":10,"straggler_count":0,"comm_exposed_ns":null}]`)
}

// The text section says how many instances are not on every rank read, as
// a number beside the header's count; with none missing, no such line.
func TestCollectivesTextUnmatchedCount(t *testing.T) {
	inst := func(missing ...int64) collectives.Instance {
		return collectives.Instance{Type: "allreduce", Group: "g", Seq: 1, Straggler: -1, Transfer: -1,
			Arrivals: []collectives.Arrival{{Rank: 0}}, Missing: missing}
	}
	for _, c := range []struct {
		ins  []collectives.Instance
		want string
	}{
		{[]collectives.Instance{inst(), inst(1), inst(1)}, "not on every rank read: 2 of 3 instances (gap unmatched_collective)"},
		{[]collectives.Instance{inst(), inst()}, ""},
	} {
		var b strings.Builder
		res := &collectives.Result{Matched: true, Instances: c.ins, Ranks: []collectives.Rank{{Rank: 0}}}
		if err := CollectivesText(&b, res); err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(b.String(), "not on every rank read")
		if got != (c.want != "") || c.want != "" && !strings.Contains(b.String(), c.want) {
			t.Errorf("got:\n%s\nwant a line %q", b.String(), c.want)
		}
	}
}

// The section's own figures say what the mismatch and clock-offset gaps
// make unsure (the third sweep: a 3-hour clock offset showed as a 3-hour
// skew, and a rank disagreeing on a size as a bandwidth, with the gaps
// named only in the accounting far below); without those gaps, no line.
func TestCollectivesTextSaysMismatchAndOffset(t *testing.T) {
	inst := collectives.Instance{Type: "allreduce", Group: "g", Seq: 1, Straggler: -1, Transfer: -1, Arrivals: []collectives.Arrival{{Rank: 0}}}
	mis := &capture.Gap{Kind: collectives.CollectiveMismatch, Count: 1}
	off := &capture.Gap{Kind: collectives.CollectiveClockOffset, Count: 2}
	off.SetFigure("max_overlap_ns", 10_800_000_000_000)
	for _, c := range []struct {
		gaps []*capture.Gap
		want []string
	}{
		{[]*capture.Gap{mis, off}, []string{"ranks disagree: 1 of 3 instances (gap collective_mismatch)",
			"clocks offset: 2 of 3 instances (gap collective_clock_offset) ended on a rank before another rank started them: skew,\n  waits and stragglers are off by at least 10800.000 s"}},
		{nil, nil},
	} {
		var b strings.Builder
		res := &collectives.Result{Matched: true, Instances: []collectives.Instance{inst, inst, inst}, Ranks: []collectives.Rank{{Rank: 0}}, Gaps: c.gaps}
		if err := CollectivesText(&b, res); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("got\n%s\nwant it to hold %q", b.String(), w)
			}
		}
		if c.want == nil && (strings.Contains(b.String(), "disagree") || strings.Contains(b.String(), "clocks offset")) {
			t.Errorf("no such gap: got\n%s\nwant no disagree or clocks offset line", b.String())
		}
	}
}
