package rocprof

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// TestJSONSample checks the rocprofv3 JSON sample against an independent
// computation: the whole document decoded with encoding/json into generic
// values, names through kernel_symbols' formatted_kernel_name.
func TestJSONSample(t *testing.T) {
	path := "testdata/tracelens__rocprofv3_908_results.json.gz"
	r := readPath(t, path, "")
	if r.c.Source.Format != Name || len(r.disp) != 43915 {
		t.Fatalf("got %s with %d dispatches, want %s with 43915:\n%s", r.c.Source.Format, len(r.disp), Name, gapText(r.c))
	}
	var doc struct {
		Tool []struct {
			Symbols []jSymbol `json:"kernel_symbols"`
			Buffers struct {
				Dispatch []struct {
					Start int64 `json:"start_timestamp"`
					End   int64 `json:"end_timestamp"`
					Info  struct {
						KernelID uint64  `json:"kernel_id"`
						Queue    jHandle `json:"queue_id"`
					} `json:"dispatch_info"`
				} `json:"kernel_dispatch"`
			} `json:"buffer_records"`
		} `json:"rocprofiler-sdk-tool"`
	}
	if err := json.Unmarshal(gunzip(t, path), &doc); err != nil {
		t.Fatal(err)
	}
	names := map[uint64]string{}
	for _, s := range doc.Tool[0].Symbols {
		names[s.KernelID] = s.Formatted
	}
	want := map[string]int64{}
	queues := map[uint64]bool{}
	for _, d := range doc.Tool[0].Buffers.Dispatch {
		want[names[d.Info.KernelID]] += d.End - d.Start
		queues[d.Info.Queue.Handle] = true
	}
	got, _ := totals(r)
	if len(got) != len(want) {
		t.Fatalf("%d kernels, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d, want %d", k, got[k], v)
		}
	}
	if len(r.c.Queues) != len(queues) || len(queues) != 5 {
		t.Errorf("%d queues, want %d", len(r.c.Queues), len(queues))
	}
	if r.c.Programs[0].Name != "pid 908" || !strings.HasPrefix(r.c.Queues[0].Device, "agent 2 (gfx950)") {
		t.Errorf("got program %s device %s, want pid 908 on agent 2 (gfx950)", r.c.Programs[0].Name, r.c.Queues[0].Device)
	}
	// The spec counts 1,275 dispatches that start before the previous one
	// on their queue ended.
	if g := r.c.Accounting.Find(capture.OverlappingEvents); g == nil || g.Count != 1275 {
		t.Errorf("overlaps: want an OverlappingEvents gap of 1275, got:\n%s", gapText(r.c))
	}
}

const miniJSON = `{"rocprofiler-sdk-tool": [{"metadata": {"pid": 7},
 "agents": [{"id": {"handle": 5}, "type": 2, "node_id": 2, "name": "gfx950"}],
 "strings": {"buffer_records": [{"kind": "NONE", "operations": []}, {"kind": "KERNEL_DISPATCH", "operations": ["NONE", "KERNEL_DISPATCH_ENQUEUE", "KERNEL_DISPATCH_COMPLETE"]}]},
 "kernel_symbols": [{"kernel_id": 0, "formatted_kernel_name": "0"}, {"kernel_id": 1, "kernel_name": "k.kd", "formatted_kernel_name": "k"}],
 "buffer_records": {"hip_api": [{"x": 1}], "kernel_dispatch": [
  {"kind": 1, "operation": 2, "start_timestamp": 10, "end_timestamp": 20, "dispatch_info": {"agent_id": {"handle": 5}, "queue_id": {"handle": 1}, "kernel_id": 1, "dispatch_id": 1}},
  {"kind": 1, "operation": 2, "start_timestamp": 30, "end_timestamp": 25, "dispatch_info": {"agent_id": {"handle": 5}, "queue_id": {"handle": 1}, "kernel_id": 1, "dispatch_id": 2}},
  {"kind": 1, "operation": 2, "start_timestamp": 40, "end_timestamp": 50, "dispatch_info": {"agent_id": {"handle": 5}, "queue_id": {"handle": 1}, "kernel_id": 0, "dispatch_id": 3}},
  {"kind": 1, "operation": 2, "start_timestamp": "x", "end_timestamp": 50, "dispatch_info": {}},
  {"kind": 1, "operation": 2, "start_timestamp": 60, "end_timestamp": 70, "dispatch_info": {"agent_id": {"handle": 5}, "queue_id": {"handle": 1}, "kernel_id": 1, "dispatch_id": 1}}
 ]}}]}`

func TestJSONGaps(t *testing.T) {
	r := readJSONString(t, miniJSON)
	if len(r.disp) != 2 {
		t.Fatalf("got %d dispatches, want 2:\n%s", len(r.disp), gapText(r.c))
	}
	a := &r.c.Accounting
	for _, k := range []capture.Kind{capture.InvalidEvent, capture.UnresolvedName, capture.SkippedInput, capture.DuplicateDispatchID} {
		if g := a.Find(k); g == nil || g.Count != 1 {
			t.Errorf("%s: want one, got:\n%s", k, gapText(r.c))
		}
	}
	if a.Find(capture.UnresolvedName).Items[0].Kernel != "pid 7:#0" {
		t.Errorf("want the unresolved kernel named pid 7:#0, got:\n%s", gapText(r.c))
	}
	if in := a.InputFor("records"); in.Read != 5 || in.Used != 2 {
		t.Errorf("got records %+v, want 5 read, 2 used", in)
	}
	// Dispatches before the symbols are held and resolved afterwards.
	i := strings.Index(miniJSON, `"kernel_symbols"`)
	j := strings.Index(miniJSON, `"buffer_records": {`)
	moved := miniJSON[:i] + miniJSON[j:len(miniJSON)-3] + ", " + miniJSON[i:j-3] + "}]}"
	r2 := readJSONString(t, moved)
	if len(r2.disp) != 2 || r2.c.Kernels[r2.disp[0].Kernel].Name != "k" {
		t.Fatalf("symbols after dispatches: want 2 dispatches of k, got:\n%s", gapText(r2.c))
	}
}

func readJSONString(t testing.TB, s string) result {
	t.Helper()
	var col capture.Collect
	c, err := readJSON(strings.NewReader(s), "mem.json", &col, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, c, col.Dispatches)
	return result{c, col.Dispatches}
}

func TestCutJSON(t *testing.T) {
	data := gunzip(t, "testdata/tracelens__rocprofv3_908_results.json.gz")
	// The sample is 37.5 MB; cut it at a handful of places in the
	// dispatch array and in the symbol table before it.
	for _, frac := range []float64{0.05, 0.3, 0.5, 0.77, 0.9999} {
		o := int(float64(len(data)) * frac)
		var col capture.Collect
		c, err := readJSON(bytes.NewReader(data[:o]), "cut.json", &col, 0)
		if err != nil {
			t.Fatalf("cut at %d: got error %v, want none", o, err)
		}
		g := c.Accounting.Find(capture.TruncatedInput)
		if c.Accounting.Complete() || g == nil || !strings.Contains(g.Summary, "ends early") {
			t.Fatalf("cut at %d: want incomplete with a TruncatedInput gap saying ends early, got:\n%s", o, gapText(c))
		}
		checkModel(t, c, col.Dispatches)
	}
	// Not JSON at all: a positioned error.
	if _, err := readJSON(strings.NewReader("{]"), "x.json", nil, 0); err == nil || !strings.Contains(err.Error(), "x.json: byte") {
		t.Fatalf("got %v, want an error at x.json: byte …", err)
	}
}
