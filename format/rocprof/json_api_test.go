package rocprof

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// genJSON writes a rocprofv3-shaped JSON document: dispatches with the
// given correlation ids (dispatch i starts at 1000*i+500), hip_api records
// (function name, correlation id; call i at [1000*corr, 1000*corr+300]),
// and memory copies; apiFirst puts hip_api before kernel_dispatch (the
// writer puts it after).
func genJSON(dispCorr []uint64, api []jsonCall, copies []uint64, apiFirst bool) string {
	ops := []string{"NONE", "hipLaunchKernel", "hipMemcpyAsync", "hipGraphLaunch", "hipGetLastError", "hipModuleLaunchKernel"}
	opIdx := map[string]int{}
	for i, o := range ops {
		opIdx[o] = i
	}
	kinds, _ := json.Marshal([]jKind{
		{Kind: "NONE"}, {Kind: "KERNEL_DISPATCH", Operations: []string{"NONE", "KERNEL_DISPATCH_ENQUEUE", "KERNEL_DISPATCH_COMPLETE"}},
		{Kind: "HIP_RUNTIME_API_EXT", Operations: ops}, {Kind: "MEMORY_COPY", Operations: []string{"NONE", "MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST"}},
	})
	var disp, calls, cps []string
	for i, c := range dispCorr {
		disp = append(disp, fmt.Sprintf(`{"kind": 1, "operation": 2, "correlation_id": {"internal": %d, "external": 0}, "start_timestamp": %d, "end_timestamp": %d, "dispatch_info": {"agent_id": {"handle": 5}, "queue_id": {"handle": 1}, "kernel_id": 1, "dispatch_id": %d}}`,
			c, 1000*i+500, 1000*i+510+i, i+1))
	}
	for _, a := range api {
		calls = append(calls, fmt.Sprintf(`{"size": 56, "kind": 2, "operation": %d, "correlation_id": {"internal": %d, "external": 0}, "start_timestamp": %d, "end_timestamp": %d, "thread_id": 9}`,
			opIdx[a.name], a.corr, 1000*a.corr, 1000*a.corr+300))
	}
	for i, c := range copies {
		cps = append(cps, fmt.Sprintf(`{"size": 64, "kind": 3, "operation": %d, "correlation_id": {"internal": %d, "external": 0}, "start_timestamp": %d, "end_timestamp": %d, "thread_id": 9, "dst_agent_id": {"handle": 5}, "src_agent_id": {"handle": 4}, "bytes": 4096}`,
			1+i%2, c, 100000+100*i, 100050+100*i))
	}
	kd := `"kernel_dispatch": [` + strings.Join(disp, ",\n") + `]`
	ha := `"hip_api": [` + strings.Join(calls, ",\n") + `]`
	mc := `"memory_copy": [` + strings.Join(cps, ",\n") + `]`
	buffers := kd + ", " + ha + ", " + mc
	if apiFirst {
		buffers = ha + ", " + kd + ", " + mc
	}
	return `{"rocprofiler-sdk-tool": [{"metadata": {"pid": 7},
 "agents": [{"id": {"handle": 5}, "type": 2, "node_id": 2, "name": "gfx950"}, {"id": {"handle": 4}, "type": 1, "node_id": 0, "name": "cpu"}],
 "strings": {"buffer_records": ` + string(kinds) + `},
 "kernel_symbols": [{"kernel_id": 0, "formatted_kernel_name": "0"}, {"kernel_id": 1, "kernel_name": "k.kd", "formatted_kernel_name": "k"}],
 "buffer_records": {` + buffers + `}}]}`
}

type jsonCall struct {
	name string
	corr uint64
}

func TestJSONHIPAPI(t *testing.T) {
	// Dispatches 1..10 with ids 1..8, 8, 20 (8 shared; 20 has no call);
	// calls for 1..8 except 4 (missing inside the range), launches 9, 10
	// and a graph launch 11 without dispatches, a hipGetLastError 12.
	disp := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 8, 20}
	var api []jsonCall
	for i := uint64(1); i <= 8; i++ {
		if i != 4 {
			api = append(api, jsonCall{"hipLaunchKernel", i})
		}
	}
	api = append(api, jsonCall{"hipLaunchKernel", 9}, jsonCall{"hipModuleLaunchKernel", 10}, jsonCall{"hipGraphLaunch", 11}, jsonCall{"hipGetLastError", 12}, jsonCall{"", 0})
	// Independent: plain maps over the same lists.
	callOf := map[uint64]string{}
	for _, a := range api {
		if a.corr != 0 {
			callOf[a.corr] = a.name
		}
	}
	has := map[uint64]int{}
	var orphans, orphanNS int64
	for i, c := range disp {
		has[c]++
		if callOf[c] == "" {
			orphans++
			orphanNS += int64(10 + i)
		}
	}
	unl := map[string]int64{}
	for c, n := range callOf {
		if has[c] == 0 && n != "hipGetLastError" {
			unl[n]++
		}
	}
	if orphans != 2 || len(unl) != 3 {
		t.Fatalf("the generated data changed: got %d orphans, %v unlaunched; want 2 and 3 names", orphans, unl)
	}
	for _, apiFirst := range []bool{false, true} {
		r := readJSONString(t, genJSON(disp, api, nil, apiFirst))
		a := &r.c.Accounting
		g := a.Find(capture.GPUEventWithoutLaunch)
		if g == nil || g.Count != orphans || figure(g, "inside_api_range") != 1 {
			t.Fatalf("apiFirst %v: orphans want %d\n%s", apiFirst, orphans, gapText(r.c))
		}
		// Times only when the calls came first.
		if ns, ok := g.Figure("total_ns"); ok != apiFirst || (ok && ns != orphanNS) {
			t.Errorf("apiFirst %v: got total_ns %d %v, want %d only when the API comes first", apiFirst, ns, ok, orphanNS)
		}
		u := a.Find(capture.LaunchWithoutGPUEvent)
		if u == nil || u.Count != 3 {
			t.Fatalf("unlaunched: want a LaunchWithoutGPUEvent gap of 3, got:\n%s", gapText(r.c))
		}
		for n, c := range unl {
			if figure(u, n) != c {
				t.Errorf("%s: %d, want %d", n, figure(u, n), c)
			}
		}
		if g := a.Find(capture.GraphLaunch); g == nil || g.Count != 1 || figure(g, "max_kernels_per_launch") != 2 {
			t.Errorf("shared: want one GraphLaunch gap with max_kernels_per_launch 2, got:\n%s", gapText(r.c))
		}
		launched := 0
		for _, d := range r.disp {
			if d.Launch.Valid {
				launched++
				if c := disp[(d.Device.Begin-500)/1000]; d.Launch.Begin != int64(1000*c) || d.Launch.End != int64(1000*c+300) {
					t.Errorf("dispatch at %d: got launch %+v, want %d–%d", d.Device.Begin, d.Launch, 1000*c, 1000*c+300)
				}
			}
		}
		if want := map[bool]int{false: 0, true: 8}[apiFirst]; launched != want {
			t.Errorf("apiFirst %v: %d launches, want %d", apiFirst, launched, want)
		}
		if in := a.InputFor("API records"); in.Read != int64(len(api)) || in.Used != int64(len(api))-1 {
			t.Errorf("got API records %+v, want %d read, one fewer used", in, len(api))
		}
	}
	// Negative arm: no hip_api records (the sample's case) — no linkage
	// gaps, only the shared-id note.
	r := readJSONString(t, genJSON(disp, nil, nil, false))
	if a := &r.c.Accounting; a.Find(capture.GPUEventWithoutLaunch) != nil || a.Find(capture.LaunchWithoutGPUEvent) != nil || !a.Complete() {
		t.Errorf("want complete with no launch gaps, got:\n%s", gapText(r.c))
	}
}

func TestJSONMemoryCopies(t *testing.T) {
	copies := []uint64{2, 0, 3}
	api := []jsonCall{{"hipMemcpyAsync", 2}, {"hipLaunchKernel", 1}}
	r := readJSONString(t, genJSON([]uint64{1}, api, copies, true))
	var n int
	var ns int64
	byName := map[string]int{}
	for _, d := range r.disp {
		k := r.c.Kernels[d.Kernel]
		if k.Category != "memcpy" {
			continue
		}
		n++
		dur, _ := d.Device.Duration()
		ns += dur
		byName[k.Name]++
		if r.c.Queues[d.Queue].Device != "agent 2 (gfx950)" || r.c.Queues[d.Queue].Name != "copies from agent 0 (cpu)" {
			t.Errorf("got queue %+v, want agent 2 (gfx950)'s copies from agent 0 (cpu)", r.c.Queues[d.Queue])
		}
		// The copy with id 2 has its hipMemcpyAsync as launch.
		if d.Device.Begin == 100000 && (!d.Launch.Valid || d.Launch.Begin != 2000) {
			t.Errorf("got copy launch %+v, want one at 2000", d.Launch)
		}
	}
	if n != 3 || ns != 150 || byName["memory copy MEMORY_COPY_HOST_TO_DEVICE"] != 2 || byName["memory copy MEMORY_COPY_DEVICE_TO_HOST"] != 1 {
		t.Fatalf("got %d copies, %d ns, %v; want 3, 150 ns, 2 host-to-device and 1 device-to-host", n, ns, byName)
	}
	// Copies are not kernels: the copy whose id has no call (3) is no
	// "dispatch without API call", and a capture of copies alone still has
	// no kernel dispatch.
	if a := &r.c.Accounting; a.Find(capture.GPUEventWithoutLaunch) != nil || !a.Complete() {
		t.Error("want complete with no orphans, got:\n" + gapText(r.c))
	}
	r = readJSONString(t, genJSON(nil, nil, copies, false))
	if len(r.disp) != 3 || r.c.Accounting.Find(capture.EmptyCapture) == nil {
		t.Errorf("copies only: got %d dispatches, want 3 and an EmptyCapture gap:\n%s", len(r.disp), gapText(r.c))
	}
}
