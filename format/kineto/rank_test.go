package kineto

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// The rank from distributedInfo is on the capture before the first dispatch
// streams, so sinks (timelines, multi-rank reports) can group by it.
func TestRankFromDistributedInfo(t *testing.T) {
	data := trace([]string{
		call("cudaLaunchKernel", "5", "1000.000", "2.5"),
		kernel("k", "5", "1010.000", "3.001"),
	}, `"distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8}`)
	var seen []string
	sink := capture.SinkFunc(func(c *capture.Capture, _ *capture.Dispatch) { seen = append(seen, c.Source.Rank) })
	c, err := readFrom(strings.NewReader(data), "rank3.json", &format.Options{}, sink, config{bufSize: 1 << 16, logRecords: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if c.Source.Rank != "3" || len(seen) != 1 || seen[0] != "3" {
		t.Errorf("got rank %q, seen by sink %q; want \"3\", seen once as \"3\"", c.Source.Rank, seen)
	}
	r := readT(t, trace([]string{kernel("k", "5", "1010.000", "3.001")}))
	if r.c.Source.Rank != "" {
		t.Errorf("no distributedInfo: rank %q, want empty", r.c.Source.Rank)
	}
}
