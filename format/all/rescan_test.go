package all

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// An engine that prints a long loading log before its first profiler line,
// kept by `tally record`: the head (a kept-trace header and loading lines)
// points at hrx-serial, which finds nothing; the whole input is then
// scanned and read as npu-prof, and the capture says so.
func TestRescanFindsFormatPastTheHead(t *testing.T) {
	var b strings.Builder
	b.WriteString("# tally kept trace v1 clock=monotonic unit=ns pid=1 cmd=engine\n")
	ts := int64(1000)
	for b.Len() < 200<<10 {
		fmt.Fprintf(&b, "%d loading weights: shard %d of 4096 ok\n", ts, ts)
		ts += 10
	}
	for i, n := range []int{50, 100, 150} {
		fmt.Fprintf(&b, "%d [prof] npu_gemm n=%d pack=0.0 quant+launch=0.2 wait=%d.0 readback=0.0 ms (N=2048)\n", ts+int64(i), n, 3+i)
	}
	path := filepath.Join(t.TempDir(), "run.kept")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var got capture.Collect
	c, err := format.ReadFile(path, "", nil, &got)
	if err != nil {
		t.Fatal(err)
	}
	if c.Source.Format != "npu-prof" || len(got.Dispatches) == 0 || c.Accounting.CountOf(capture.EmptyCapture) != 0 {
		t.Fatalf("read as %s with %d dispatches", c.Source.Format, len(got.Dispatches))
	}
	g := c.Accounting.Find(format.DetectedByScan)
	if g == nil || !g.Note || !strings.Contains(g.Items[0].What, "3 lines claimed by npu-prof") {
		t.Fatalf("the scan is not stated: %+v", g)
	}
	// The negative arm: with nothing any reader claims, the first reader's
	// empty capture stands.
	os.WriteFile(path, []byte(strings.ReplaceAll(b.String(), "[prof]", "[info]")), 0o644)
	c, err = format.ReadFile(path, "", nil, nil)
	if err != nil || c.Accounting.CountOf(capture.EmptyCapture) == 0 || c.Accounting.Find(format.DetectedByScan) != nil {
		t.Fatalf("no claimed line: %v %+v", err, c.Accounting.Gaps)
	}
}
