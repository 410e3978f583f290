package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/internal/golden"
)

// The time breakdown end to end (docs/breakdown.md): a Kineto trace with
// every idle cause planted at a known size gives exactly those figures in
// the text, JSON and HTML reports.

// plantedTrace is GPU 0 with each cause planted (times in µs) and GPU 1,
// whose kernels have no launch call.
//
//	K1 [1000,1100) s7, launched [990,995]
//	cudaDeviceSynchronize [996,1120] on the thread, then
//	K2 [1145,1200) s7, launched [1130,1140]: host_wait 40 (after the sync), launch_latency 5
//	K3 [1208,1300) s7, launched [1141,1143]: queued, launch_latency 8
//	K4 [1312,1400) s13, launched [1144,1146]: waited on s7, other_stream 12
//	nccl [1380,1420) s20, launched [1147,1149]: comm 40, 20 of it under K4
//	K6 [3420,3500) s13, launched [1150,1152]: unrecorded 2000
//	K7 [3600,3700) s13, launched [1153,1155]: unexplained 100
//	cudaGraphLaunch [3690,3880] replays [3770,3850) [3860,3900) [3920,3940) on s7:
//	  host_wait 70 for the first; launch_latency 10 and 20 after (never host_wait)
//	Memcpy HtoD [3950,3980) s7, launched [3890,3895] on another thread: launch_latency 10
//	Memset [3980,3990) s7, launched [3896,3897]
//	GPU 1: [1000,1100) and [1200,1300), no launch calls: unexplained 100
func plantedTrace() string {
	var ev []string
	call := func(name string, tid, corr int, ts, dur int) {
		ev = append(ev, fmt.Sprintf(`{"ph": "X", "cat": "cuda_runtime", "name": %q, "pid": 100, "tid": %d, "ts": %d, "dur": %d, "args": {"cbid": 211, "correlation": %d}}`, name, tid, ts, dur, corr))
	}
	kern := func(cat, name string, dev, stream, corr, ts, dur int) {
		c := ""
		if corr > 0 {
			c = fmt.Sprintf(`, "correlation": %d`, corr)
		}
		ev = append(ev, fmt.Sprintf(`{"ph": "X", "cat": %q, "name": %q, "pid": %d, "tid": %d, "ts": %d, "dur": %d, "args": {"device": %d, "stream": %d%s}}`, cat, name, dev, stream, ts, dur, dev, stream, c))
	}
	// launch is a cudaLaunchKernel on thread 100 and its kernel on device 0.
	launch := func(corr, ts, dur int, name string, stream, kts, kdur int) {
		call("cudaLaunchKernel", 100, corr, ts, dur)
		kern("kernel", name, 0, stream, corr, kts, kdur)
	}
	launch(1, 990, 5, "gemm_a", 7, 1000, 100)
	ev = append(ev, `{"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 100, "tid": 100, "ts": 996, "dur": 124, "args": {"cbid": 165, "correlation": 90}}`)
	launch(2, 1130, 10, "gemm_b", 7, 1145, 55)
	launch(3, 1141, 2, "elementwise", 7, 1208, 92)
	launch(4, 1144, 2, "gemm_c", 13, 1312, 88)
	launch(5, 1147, 2, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 20, 1380, 40)
	launch(6, 1150, 2, "gemm_d", 13, 3420, 80)
	launch(7, 1153, 2, "gemm_e", 13, 3600, 100)
	call("cudaGraphLaunch", 100, 8, 3690, 190)
	kern("kernel", "graph_k1", 0, 7, 8, 3770, 80)
	kern("kernel", "graph_k2", 0, 7, 8, 3860, 40)
	kern("kernel", "graph_k3", 0, 7, 8, 3920, 20)
	call("cudaMemcpyAsync", 101, 9, 3890, 5)
	kern("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 7, 9, 3950, 30)
	call("cudaMemsetAsync", 101, 10, 3896, 1)
	kern("gpu_memset", "Memset (Device)", 0, 7, 10, 3980, 10)
	kern("kernel", "gpu1_a", 1, 7, 0, 1000, 100)
	kern("kernel", "gpu1_b", 1, 7, 0, 1200, 100)
	return `{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Test GPU"}, {"id": 1, "name": "Test GPU"}], "traceEvents": [` +
		strings.Join(ev, ",\n  ") + `,
  {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 0}]}`
}

// plantedDevice is what the JSON of a device row must hold.
type plantedDevice struct {
	Device   string           `json:"device"`
	Window   int64            `json:"window_ns"`
	Busy     map[string]int64 `json:"busy_ns"`
	Idle     map[string]int64 `json:"idle_ns"`
	Comm     int64            `json:"comm_total_ns"`
	Overlap  int64            `json:"comm_overlapped_ns"`
	Exposed  int64            `json:"comm_exposed_ns"`
	Sync     *int64           `json:"host_wait_after_sync_ns"`
	Graph    int64            `json:"graph_busy_ns"`
	Launches bool             `json:"launch_records"`
	Reasons  []string         `json:"reasons"`
	Memcpy   map[string]int64 `json:"memcpy_by_direction"`
}

const us = 1000

var plantedGPU0 = plantedDevice{Device: "device 0", Window: 2990 * us,
	Busy: map[string]int64{"compute": 655 * us, "comm": 20 * us, "memcpy": 30 * us, "memset": 10 * us},
	Idle: map[string]int64{"host_wait": 110 * us, "launch_latency": 53 * us, "other_stream": 12 * us, "unrecorded": 2000 * us, "unexplained": 100 * us},
	Comm: 40 * us, Overlap: 20 * us, Exposed: 20 * us, Graph: 140 * us, Launches: true,
	Memcpy: map[string]int64{"htod": 30 * us, "dtoh": 0, "dtod": 0, "ptop": 0, "other": 0},
}

var plantedGPU1 = plantedDevice{Device: "device 1", Window: 300 * us,
	Busy: map[string]int64{"compute": 200 * us, "comm": 0, "memcpy": 0, "memset": 0},
	Idle: map[string]int64{"host_wait": 0, "launch_latency": 0, "other_stream": 0, "unrecorded": 0, "unexplained": 100 * us},
}

func writePlanted(t *testing.T) string {
	t.Helper()
	return writeFile(t, t.TempDir(), "planted.json", plantedTrace())
}

func checkDevice(t *testing.T, got, want plantedDevice) {
	t.Helper()
	if got.Device != want.Device || got.Window != want.Window || fmt.Sprint(got.Busy) != fmt.Sprint(want.Busy) || fmt.Sprint(got.Idle) != fmt.Sprint(want.Idle) {
		t.Errorf("%s: got window %d busy %v idle %v, want window %d busy %v idle %v", got.Device, got.Window, got.Busy, got.Idle, want.Window, want.Busy, want.Idle)
	}
	if got.Comm != want.Comm || got.Overlap != want.Overlap || got.Exposed != want.Exposed || got.Graph != want.Graph {
		t.Errorf("%s: got comm %d (%d overlapped, %d exposed), graph busy %d; want %d (%d, %d), %d", got.Device, got.Comm, got.Overlap, got.Exposed, got.Graph,
			want.Comm, want.Overlap, want.Exposed, want.Graph)
	}
	var sum int64
	for _, v := range got.Busy {
		sum += v
	}
	for _, v := range got.Idle {
		sum += v
	}
	if sum != got.Window {
		t.Errorf("%s: busy + idle = %d, want the window %d", got.Device, sum, got.Window)
	}
	if got.Launches != want.Launches {
		t.Errorf("%s: launch_records got %v, want %v", got.Device, got.Launches, want.Launches)
	}
}

func TestBreakdownPlantedJSON(t *testing.T) {
	path := writePlanted(t)
	out := tallyOK(t, "report", "--json", path)
	var doc struct {
		Breakdown struct {
			Devices      []plantedDevice `json:"devices"`
			SyncRecorded bool            `json:"sync_recorded"`
		} `json:"breakdown"`
	}
	decodeJSON(t, out, &doc)
	ds := doc.Breakdown.Devices
	if len(ds) != 2 {
		t.Fatalf("devices: got %d, want 2", len(ds))
	}
	checkDevice(t, ds[0], plantedGPU0)
	checkDevice(t, ds[1], plantedGPU1)
	if fmt.Sprint(ds[0].Memcpy) != fmt.Sprint(plantedGPU0.Memcpy) {
		t.Errorf("memcpy by direction: got %v, want %v", ds[0].Memcpy, plantedGPU0.Memcpy)
	}
	if !doc.Breakdown.SyncRecorded || ds[0].Sync == nil || *ds[0].Sync != 40*us {
		t.Errorf("host_wait_after_sync_ns: got %v (sync recorded %v), want 40000", ds[0].Sync, doc.Breakdown.SyncRecorded)
	}
	if r := strings.Join(ds[1].Reasons, "\n"); !strings.Contains(r, "the format records no launch calls") {
		t.Errorf("GPU 1 reasons: got %q, want the no-launch reason", r)
	}
}

func TestBreakdownPlantedText(t *testing.T) {
	path := writePlanted(t)
	out := tallyOK(t, "report", path)
	containsAll(t, "text report", out,
		"  device 0: window 2.990 ms, 12 dispatches on 3 queues\n",
		"    busy  715.000 µs   23.9%  compute 655.000 µs 21.9% · comm 20.000 µs 0.7% · memcpy 30.000 µs 1.0% ·\n"+
			"                              memset 10.000 µs 0.3%\n",
		"    idle    2.275 ms   76.1%  host_wait 110.000 µs 3.7% (40.000 µs after a sync call) · launch_latency 53.000 µs 1.8% ·\n",
		"host_wait 110.000 µs 3.7% (40.000 µs after a sync call)",
		"launch_latency 53.000 µs 1.8%", "other_stream 12.000 µs 0.4%", "unrecorded 2.000 ms 66.9%", "unexplained 100.000 µs 3.3%",
		"comm 40.000 µs in all: 20.000 µs of it hidden under compute, 20.000 µs exposed",
		"memcpy by direction: HtoD 30.000 µs",
		"graph replays: 140.000 µs of the busy time ran behind graph launches",
		"  device 1: window 300.000 µs, 2 dispatches\n",
		"    idle  100.000 µs   33.3%  unexplained 100.000 µs 33.3%\n",
		"note: cause unknown: the format records no launch calls",
	)
	// The block keeps within 120 columns (the rest of the report is not
	// this test's).
	block, _, _ := strings.Cut(out[strings.Index(out, "where device time went"):], "\n\n")
	for i, l := range strings.Split(block, "\n") {
		if n := len([]rune(l)); n > 120 {
			t.Errorf("line %d is %d columns, want at most 120: %q", i+1, n, l)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}

// bdBar matches one device's bar on the page.
var (
	bdBar  = regexp.MustCompile(`<div class="bdrow[^"]*" data-device="([^"]*)"[^>]*data-window-ns="(\d+)">`)
	bdPart = regexp.MustCompile(`<rect class="bd-[a-z_]+ (?:busy|idle)" x="[0-9.]+" width="[0-9.]+" height="20" data-part="([a-z_]+)" data-ns="(\d+)">`)
)

// htmlBars reads each bar's window and parts from the page.
func htmlBars(t *testing.T, page string) []plantedDevice {
	t.Helper()
	var out []plantedDevice
	locs := bdBar.FindAllStringSubmatchIndex(page, -1)
	for i, l := range locs {
		end := len(page)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		d := plantedDevice{Device: page[l[2]:l[3]], Busy: map[string]int64{"compute": 0, "comm": 0, "memcpy": 0, "memset": 0},
			Idle: map[string]int64{"host_wait": 0, "launch_latency": 0, "other_stream": 0, "unrecorded": 0, "unexplained": 0}}
		d.Window, _ = strconv.ParseInt(page[l[4]:l[5]], 10, 64)
		for _, m := range bdPart.FindAllStringSubmatch(page[l[1]:end], -1) {
			v, _ := strconv.ParseInt(m[2], 10, 64)
			if _, ok := d.Busy[m[1]]; ok {
				d.Busy[m[1]] = v
			} else {
				d.Idle[m[1]] = v
			}
		}
		out = append(out, d)
	}
	return out
}

func TestBreakdownPlantedHTML(t *testing.T) {
	path := writePlanted(t)
	out := filepath.Join(t.TempDir(), "r.html")
	tallyOK(t, "report", "--html", out, path)
	page := readFile(t, out)
	bars := htmlBars(t, page)
	if len(bars) != 2 {
		t.Fatalf("bars: got %d, want 2", len(bars))
	}
	for i, want := range []plantedDevice{plantedGPU0, plantedGPU1} {
		got := bars[i]
		if got.Device != want.Device || got.Window != want.Window || fmt.Sprint(got.Busy) != fmt.Sprint(want.Busy) || fmt.Sprint(got.Idle) != fmt.Sprint(want.Idle) {
			t.Errorf("bar %d: got %s window %d busy %v idle %v, want %s window %d busy %v idle %v", i, got.Device, got.Window, got.Busy, got.Idle,
				want.Device, want.Window, want.Busy, want.Idle)
		}
	}
	containsAll(t, "page", page, "host_wait 110.000 µs (3.7%), 40.000 µs after a sync call", "comm 40.000 µs in all: 20.000 µs hidden under compute, 20.000 µs exposed",
		"cause unknown: the format records no launch calls")
}

// --breakdown=false leaves the block, the launch lines and the JSON object
// out.
func TestBreakdownOff(t *testing.T) {
	path := writePlanted(t)
	_, out, _ := tally("report", "--breakdown=false", path)
	_, js, _ := tally("report", "--breakdown=false", "--json", path)
	if strings.Contains(out, "where device time went") || strings.Contains(out, "  launch: ") || strings.Contains(js, `"breakdown"`) {
		t.Errorf("--breakdown=false: got the breakdown in the text or JSON, want none")
	}
	_, out, _ = tally("report", path)
	if !strings.Contains(out, "where device time went") {
		t.Errorf("the default report: got no breakdown, want \"where device time went\"")
	}
}

// Many inputs: each section has its own breakdown, and the merged one lists
// every input's rows and their total (the sum of windows), in the JSON and
// the text.
func TestBreakdownManyInputs(t *testing.T) {
	dir := t.TempDir()
	for i, r := range []string{"rank0", "rank1"} {
		// Not byte for byte the same (a copy is read once): two ranks.
		writeFile(t, dir, filepath.Join(r, "trace.json"), plantedTrace()+strings.Repeat("\n", i))
	}
	out := tallyOK(t, "report", "--json", dir)
	type bd struct {
		Devices []struct {
			Input  *int             `json:"input"`
			Device string           `json:"device"`
			Window int64            `json:"window_ns"`
			Busy   map[string]int64 `json:"busy_ns"`
			Idle   map[string]int64 `json:"idle_ns"`
		} `json:"devices"`
		Total *struct {
			Window  int64            `json:"window_ns"`
			Busy    map[string]int64 `json:"busy_ns"`
			Idle    map[string]int64 `json:"idle_ns"`
			Reasons []string         `json:"reasons"`
		} `json:"total"`
	}
	var doc struct {
		Breakdown bd `json:"breakdown"`
		Sections  []struct {
			Breakdown *bd `json:"breakdown"`
		} `json:"sections"`
	}
	decodeJSON(t, out, &doc)
	m := doc.Breakdown
	if len(m.Devices) != 4 || m.Total == nil || len(doc.Sections) != 2 {
		t.Fatalf("got %d merged rows, total %v, %d sections; want 4 rows, a total, 2 sections", len(m.Devices), m.Total != nil, len(doc.Sections))
	}
	for i, s := range doc.Sections {
		if s.Breakdown == nil || len(s.Breakdown.Devices) != 2 || s.Breakdown.Total != nil {
			t.Fatalf("section %d: got %+v, want its own 2 rows and no total", i, s.Breakdown)
		}
	}
	want := 2 * (plantedGPU0.Window + plantedGPU1.Window)
	if m.Total.Window != want || m.Total.Idle["unrecorded"] != 2*plantedGPU0.Idle["unrecorded"] || m.Total.Busy["compute"] != 2*(plantedGPU0.Busy["compute"]+plantedGPU1.Busy["compute"]) {
		t.Errorf("total: got window %d busy %v idle %v, want window %d and the rows' sums", m.Total.Window, m.Total.Busy, m.Total.Idle, want)
	}
	var sum int64
	for _, v := range m.Total.Busy {
		sum += v
	}
	for _, v := range m.Total.Idle {
		sum += v
	}
	if sum != m.Total.Window || !strings.Contains(strings.Join(m.Total.Reasons, " "), "sum of the rows' windows") {
		t.Errorf("total: busy + idle = %d, want %d; reasons %q, want the window's meaning", sum, m.Total.Window, m.Total.Reasons)
	}
	if m.Devices[0].Input == nil || m.Devices[3].Input == nil || *m.Devices[0].Input == *m.Devices[3].Input {
		t.Errorf("merged rows: want each naming its input")
	}
	_, text, _ := tally("report", dir)
	if !strings.Contains(text, "  all 4 device rows: window 6.580 ms, 28 dispatches") {
		t.Errorf("text: got no total row in the merged block, want \"all 4 device rows: window 6.580 ms, 28 dispatches\"")
	}
}

// The launch statistics of the planted trace: the per-program line, the
// --launch-stats table and the JSON agree.
func TestBreakdownPlantedLaunchStats(t *testing.T) {
	path := writePlanted(t)
	_, out, _ := tally("report", "--launch-stats", path)
	containsAll(t, "text report", out,
		"  launch: host launch calls 221.000 µs in 12 launched dispatches (30.1% of the device time);\n"+
			"    launch→start mean 436.083 µs, p50 55.040 µs, p99 2.441 ms, max 2.445 ms (3 from a graph launch call);\n",
		"kernel (launch statistics)\n",
		"             1    10.000 µs     5.000 µs     5.000 µs     5.000 µs     5.000 µs      0  gemm_b\n",
		"             1   190.000 µs  -110.000 µs  -110.000 µs  -110.000 µs  -110.000 µs      0  graph_k1\n",
	)
	if _, plain, _ := tally("report", path); strings.Contains(plain, "kernel (launch statistics)") {
		t.Error("got the launch statistics table without --launch-stats, want none")
	}
	_, js, _ := tally("report", "--json", path)
	var doc struct {
		Breakdown struct {
			Programs []struct {
				Program    string `json:"program"`
				HostLaunch int64  `json:"host_launch_ns"`
				Bound      bool   `json:"launch_bound"`
				Delay      *struct {
					Count int64 `json:"count"`
					Max   int64 `json:"max_ns"`
					Min   int64 `json:"min_ns"`
					Graph int64 `json:"from_graph_launch"`
				} `json:"delay"`
			} `json:"programs"`
		} `json:"breakdown"`
	}
	decodeJSON(t, js, &doc)
	p := doc.Breakdown.Programs[0]
	if p.HostLaunch != 221*us || p.Bound || p.Delay == nil || p.Delay.Count != 12 || p.Delay.Max != 2445*us || p.Delay.Min != -110*us || p.Delay.Graph != 3 {
		t.Errorf("program %s: got host launch %d, bound %v, delay %+v; want 221000, not bound, 12 delays from -110000 to 2445000, 3 from a graph launch",
			p.Program, p.HostLaunch, p.Bound, p.Delay)
	}
}

// docs/breakdown.md shows the planted trace's block as tally prints it.
func TestBreakdownDocExample(t *testing.T) {
	doc := readFile(t, "../../docs/breakdown.md")
	_, rest, _ := strings.Cut(doc, "```\n")
	example, _, _ := strings.Cut(rest, "```\n")
	_, out, _ := tally("report", writePlanted(t))
	block, _, _ := strings.Cut(out[strings.Index(out, "where device time went"):], "\n  the capture has gaps")
	if example != block+"\n" {
		t.Errorf("docs/breakdown.md's example differs from the report:\n%s", golden.Diff("docs/breakdown.md", "tally report planted.json", []byte(example), []byte(block+"\n")))
	}
	// The launch lines keep within 120 columns too.
	for _, l := range strings.Split(out, "\n") {
		if (strings.HasPrefix(l, "  launch:") || strings.HasPrefix(l, "    launch→") || strings.HasPrefix(l, "  LAUNCH-BOUND")) && len([]rune(l)) > 120 {
			t.Errorf("launch line of %d columns, want at most 120: %q", len([]rune(l)), l)
		}
	}
}
