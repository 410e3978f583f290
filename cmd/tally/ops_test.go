package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// genOpsTrace writes a Kineto trace of layers layers with planted ops,
// shapes and kernel times (µs, as Kineto writes them), each layer:
//   - aten::mm bf16 [1024,2048]·[2048,4096], its kernel 100 µs;
//   - aten::add float [1024,1024]+[1024,1024], its kernel 10 µs;
//   - a record_function range "region" (no shapes) around a graph launch
//     replaying two kernels of 5 µs;
//   - a 3 µs kernel whose launch is not in the trace (under no op).
func genOpsTrace(t *testing.T, dir, name string, layers int) string {
	t.Helper()
	var ev []string
	host := func(cat, name string, ts, dur int, args string) {
		ev = append(ev, fmt.Sprintf(`{"ph":"X","cat":%q,"name":%q,"pid":1,"tid":1,"ts":%d,"dur":%d,"args":{%s}}`, cat, name, ts, dur, args))
	}
	launch := func(name string, corr, ts int) {
		ev = append(ev, fmt.Sprintf(`{"ph":"X","cat":"cuda_runtime","name":%q,"pid":1,"tid":1,"ts":%d,"dur":2,"args":{"correlation":%d}}`, name, ts, corr))
	}
	kern := func(name string, corr, ts, dur int) {
		ev = append(ev, fmt.Sprintf(`{"ph":"X","cat":"kernel","name":%q,"pid":0,"tid":7,"ts":%d,"dur":%d,"args":{"device":0,"stream":7,"correlation":%d}}`, name, ts, dur, corr))
	}
	for i := 0; i < layers; i++ {
		h, c := 1000*i, 10*i+1
		host("cpu_op", "aten::mm", h, 20, `"Input Dims":[[1024,2048],[2048,4096]],"Input type":["c10::BFloat16","c10::BFloat16"],"Concrete Inputs":["",""]`)
		launch("cudaLaunchKernel", c, h+5)
		kern("gemm_kernel", c, h+10, 100)
		host("cpu_op", "aten::add", h+100, 20, `"Input Dims":[[1024,1024],[1024,1024],[]],"Input type":["float","float","Scalar"],"Concrete Inputs":["","","1"]`)
		launch("cudaLaunchKernel", c+1, h+105)
		kern("add_kernel", c+1, h+120, 10)
		host("user_annotation", "region", h+200, 50, `"External id":1`)
		launch("cudaGraphLaunch", c+2, h+210)
		kern("graph_a", c+2, h+220, 5)
		kern("graph_b", c+2, h+230, 5)
		kern("orphan", 9_000_000+i, h+240, 3)
	}
	ev = append(ev, `{"name":"Record Window End","ph":"i","s":"g","pid":"","tid":"","ts":0}`)
	doc := `{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[` + strings.Join(ev, ",\n") + "]}"
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type opsDoc struct {
	Ops []struct {
		Name          string   `json:"name"`
		Calls         int64    `json:"calls"`
		Dispatches    int64    `json:"dispatches"`
		DeviceNS      *int64   `json:"device_ns"`
		HostNS        *int64   `json:"host_ns"`
		GraphLaunches int64    `json:"graph_launches"`
		FLOPs         *float64 `json:"flops"`
		Bytes         *float64 `json:"bytes"`
		TFLOPS        *float64 `json:"tflops"`
		TBps          *float64 `json:"tbps"`
		OfPeak        *float64 `json:"of_peak"`
		Bound         string   `json:"bound"`
		Kernels       []struct {
			Name string `json:"name"`
		} `json:"kernels"`
	} `json:"ops"`
	Unattributed *int64 `json:"ops_unattributed_device_ns"`
	Unmodelled   *int64 `json:"ops_unmodelled_device_ns"`
	Table        struct {
		Level     string `json:"level"`
		Peaks     string `json:"peaks"`
		DeviceNS  *int64 `json:"device_ns"`
		Modelled  *int64 `json:"modelled_device_ns"`
		NoShapes  *int64 `json:"unmodelled_no_shapes_device_ns"`
		UnattDisp int64  `json:"unattributed_dispatches"`
	} `json:"op_table"`
	Sections []opsDoc `json:"sections"`
}

func closeTo(p *float64, want float64) bool {
	return p != nil && math.Abs(*p-want) <= 1e-6*math.Max(1, math.Abs(want))
}

// checkOpsDoc checks the figures of n layers of genOpsTrace, worked by
// hand: mm FLOPs 2·1024·4096·2048 = 17179869184 a call in 100 µs
// (171.79869184 TFLOP/s, 17.36% of H100 SXM's 989.5 bf16 TFLOP/s); add
// bytes 3 × 4 MiB = 12582912 a call in 10 µs (1.2582912 TB/s, 37.56% of
// 3.35 TB/s).
func checkOpsDoc(t *testing.T, what string, d *opsDoc, n int64) {
	t.Helper()
	if d.Table.Level != "inner" || d.Table.Peaks != "H100 SXM" || d.Table.DeviceNS == nil || *d.Table.DeviceNS != n*123_000 {
		t.Errorf("%s: got table %+v, want inner level, H100 SXM peaks, %d ns", what, d.Table, n*123_000)
	}
	if d.Unattributed == nil || *d.Unattributed != n*3_000 || d.Table.UnattDisp != n {
		t.Errorf("%s: got unattributed %v ns in %d dispatches, want %d in %d", what, d.Unattributed, d.Table.UnattDisp, n*3_000, n)
	}
	if d.Unmodelled == nil || *d.Unmodelled != n*10_000 || *d.Table.NoShapes != n*10_000 || *d.Table.Modelled != n*110_000 {
		t.Errorf("%s: got unmodelled %v, modelled %v; want %d (region, no shapes), %d", what, d.Unmodelled, d.Table.Modelled, n*10_000, n*110_000)
	}
	if len(d.Ops) != 3 {
		t.Fatalf("%s: got %d ops, want mm, region, add", what, len(d.Ops))
	}
	mm, region, add := d.Ops[0], d.Ops[1], d.Ops[2]
	if mm.Name != "aten::mm" || mm.Calls != n || mm.Dispatches != n || *mm.DeviceNS != n*100_000 || *mm.HostNS != n*20_000 ||
		!closeTo(mm.FLOPs, float64(n)*17179869184) || !closeTo(mm.Bytes, float64(n)*29360128) ||
		!closeTo(mm.TFLOPS, 171.79869184) || !closeTo(mm.OfPeak, 17179869184/989.5e3/100_000) || mm.Bound != "compute" {
		t.Errorf("%s: mm: got %+v", what, mm)
	}
	if region.Name != "region" || region.Dispatches != 2*n || region.GraphLaunches != n || region.FLOPs != nil || region.Bytes != nil || region.TFLOPS != nil {
		t.Errorf("%s: region: got %+v, want %d graph-replayed dispatches of %d launches, no model (flops and bytes null)", what, region, 2*n, n)
	}
	if add.Name != "aten::add" || add.FLOPs != nil || !closeTo(add.Bytes, float64(n)*12582912) || !closeTo(add.TBps, 1.2582912) ||
		!closeTo(add.OfPeak, 12582912/3.35e3/10_000) || add.Bound != "memory" || len(add.Kernels) != 1 || add.Kernels[0].Name != "add_kernel" {
		t.Errorf("%s: add: got %+v", what, add)
	}
}

func TestReportByOpGenerated(t *testing.T) {
	dir := t.TempDir()
	p := genOpsTrace(t, dir, "a.json", 4)
	code, out, errOut := tally("report", "--by", "op", "--json", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d opsDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	checkOpsDoc(t, "one input", &d, 4)

	// Text: the figures, within 120 columns.
	_, txt, _ := tally("report", "--by", "op", p)
	for _, want := range []string{"ops (inner level", "under no op", "aten::mm → gemm_kernel", "(launch under no op) → orphan", "171.8", "17.4%", "peaks: H100 SXM",
		"modelled (FLOPs or bytes from recorded shapes): 89.4%; unmodelled 8.1% (8.1% without shapes, 0.0% outside the models)"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
	sec := txt[strings.Index(txt, "\nops ("):]
	sec = sec[:strings.Index(sec, "\n\n")]
	for _, l := range strings.Split(sec, "\n") {
		if utf8.RuneCountInString(l) > 120 {
			t.Errorf("got a line of %d columns, want at most 120: %q", utf8.RuneCountInString(l), l)
		}
	}

	// Without --by op: no op fields at all (v1 is only added to).
	_, plain, _ := tally("report", "--json", p)
	if strings.Contains(plain, `"ops"`) || strings.Contains(plain, "op_table") {
		t.Error("a report without --by op has op fields")
	}

	// Many inputs: each section its own table, the merged one adds them.
	genOpsTrace(t, dir, "b.json", 2)
	_, many, _ := tally("report", "--by", "op", "--json", dir)
	var m opsDoc
	if err := json.Unmarshal([]byte(many), &m); err != nil {
		t.Fatal(err)
	}
	checkOpsDoc(t, "merged", &m, 6)
	if len(m.Sections) != 2 {
		t.Fatalf("got %d sections, want 2", len(m.Sections))
	}
	checkOpsDoc(t, "section a", &m.Sections[0], 4)
	checkOpsDoc(t, "section b", &m.Sections[1], 2)

	// A peak override; the outer level.
	_, ov, _ := tally("report", "--by", "op", "--json", "--peak-tflops", "100", "--peak-tbps", "1", p)
	var o opsDoc
	if err := json.Unmarshal([]byte(ov), &o); err != nil {
		t.Fatal(err)
	}
	if o.Table.Peaks != "--peak-tflops" || !closeTo(o.Ops[0].OfPeak, 17179869184/100e3/100_000) {
		t.Errorf("--peak-tflops 100: got peaks %q, of peak %v; want 0.171799", o.Table.Peaks, o.Ops[0].OfPeak)
	}
}

func TestReportByOpFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--by", "ops"},
		{"--op-level", "outer"},
		{"--by", "op", "--op-level", "middle"},
		{"--by", "op", "--peak-device", "Z80"},
		{"--by", "op", "--peak-tflops", "-1"},
	} {
		code, _, errOut := tally(append(append([]string{"report"}, args...), example)...)
		if code != 2 || !strings.Contains(errOut, "tally report: ") {
			t.Errorf("%v: got exit %d (%q), want 2 with the reason", args, code, errOut)
		}
	}
	// A format without host ops says so, and counts everything unattributed.
	code, out, errOut := tally("report", "--by", "op", "--manifests", kernels, example)
	if code > 1 || !strings.Contains(out, "this format records no host ops") || !strings.Contains(out, "0.0% attributed to 0 op names") {
		t.Errorf("hrx with --by op: got exit %d, %s%s", code, out, errOut)
	}
}
