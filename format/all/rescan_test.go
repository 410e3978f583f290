package all

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
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
	dir := t.TempDir()
	path := fixture.Write(t, dir, "run.kept", []byte(b.String()))
	var got capture.Collect
	c, err := format.ReadFile(path, "", nil, &got)
	if err != nil {
		t.Fatal(err)
	}
	if c.Source.Format != "npu-prof" || len(got.Dispatches) == 0 || c.Accounting.CountOf(capture.EmptyCapture) != 0 {
		t.Fatalf("got read as %s with %d dispatches, want npu-prof with some and no empty_capture", c.Source.Format, len(got.Dispatches))
	}
	g := c.Accounting.Find(format.DetectedByScan)
	if g == nil || !g.Note || !strings.Contains(g.Items[0].What, "3 lines claimed by npu-prof") {
		t.Fatalf("the scan is not stated: got %+v, want a note naming 3 lines claimed by npu-prof", g)
	}
	// The negative arm: with nothing any reader claims, the first reader's
	// empty capture stands.
	fixture.Write(t, dir, "run.kept", []byte(strings.ReplaceAll(b.String(), "[prof]", "[info]")))
	c, err = format.ReadFile(path, "", nil, nil)
	if err != nil || c.Accounting.CountOf(capture.EmptyCapture) == 0 || c.Accounting.Find(format.DetectedByScan) != nil {
		t.Fatalf("no claimed line: got %v %+v; want no error, an empty_capture and no scan note", err, c.Accounting.Gaps)
	}
}

// A raw log whose first 64 KiB hold no line of any format (a long loading
// log, no kept-trace header) is refused by every sniffer; the whole file
// is then scanned, and hrx lines further in are found and read as
// hrx-serial, as are NPU engine lines as npu-prof. Without such lines it
// is no format.
func TestScanFindsFormatPastUnclaimedHead(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 100<<10; i++ {
		fmt.Fprintf(&b, "llama_model_load: tensor %d loaded\n", i)
	}
	loading := b.String()
	hrx := "hrx debug serial: begin phase=command-program main_commands=1\n" +
		"hrx debug serial: end phase=command-program main_commands=1\n"
	npu := "[L] -1 0.012345 0.4521\n[mla] L3 attn_absmax=1.2345 mlp_absmax=2.3456 x_absmax=3.4567\n"
	dir := t.TempDir()
	for _, tc := range []struct{ name, tail, want string }{{"hrx", hrx, "hrx-serial"}, {"npu", npu, "npu-prof"}} {
		path := fixture.Write(t, dir, tc.name+".log", []byte(loading+tc.tail))
		if _, conf := format.Detect([]byte(loading[:64<<10])); conf != format.No {
			t.Fatalf("got the loading log's head claimed (%v), want No: else the test does not test the scan", conf)
		}
		c, err := format.ReadFile(path, "", nil, nil)
		if err != nil {
			t.Fatalf("%s: got error %v, want none", tc.name, err)
		}
		g := c.Accounting.Find(format.DetectedByScan)
		if c.Source.Format != tc.want || g == nil || g.Items[0].What != "2 lines claimed by "+tc.want {
			t.Fatalf("%s: got %s with %+v, want %s found by the scan", tc.name, c.Source.Format, g, tc.want)
		}
	}
	path := fixture.Write(t, dir, "none.log", []byte(loading+"[prof] started\n"))
	if c, err := format.ReadFile(path, "", nil, nil); !errors.Is(err, format.ErrUnknownFormat) {
		t.Fatalf("no evidence in the whole file: got %v, %+v, want no reader", err, c)
	}
}
