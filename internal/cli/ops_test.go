package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/tallyprof/tally/export"
	"github.com/tallyprof/tally/internal/testfile"
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
	return writeFile(t, dir, name, doc)
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
		// Sigs are what the peer comparisons read.
		Sigs []struct {
			Dims     string   `json:"input_dims"`
			Calls    int64    `json:"calls"`
			DeviceNS int64    `json:"device_ns"`
			FLOPs    *float64 `json:"flops_per_call"`
			Bytes    *float64 `json:"bytes_per_call"`
		} `json:"modelled_signatures"`
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

// reportOps is `tally report --by op --json ARGS…`, which must exit 0.
func reportOps(t *testing.T, args ...string) *opsDoc {
	t.Helper()
	out := tallyOK(t, append([]string{"report", "--by", "op", "--json"}, args...)...)
	var d opsDoc
	decodeJSON(t, out, &d)
	return &d
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
		t.Errorf("%s: mm: got %+v, want %d calls of 100 µs, 171.8 TFLOPS, compute bound", what, mm, n)
	}
	if region.Name != "region" || region.Dispatches != 2*n || region.GraphLaunches != n || region.FLOPs != nil || region.Bytes != nil || region.TFLOPS != nil {
		t.Errorf("%s: region: got %+v, want %d graph-replayed dispatches of %d launches, no model (flops and bytes null)", what, region, 2*n, n)
	}
	if add.Name != "aten::add" || add.FLOPs != nil || !closeTo(add.Bytes, float64(n)*12582912) || !closeTo(add.TBps, 1.2582912) ||
		!closeTo(add.OfPeak, 12582912/3.35e3/10_000) || add.Bound != "memory" || len(add.Kernels) != 1 || add.Kernels[0].Name != "add_kernel" {
		t.Errorf("%s: add: got %+v, want 1.26 TB/s, memory bound, one kernel add_kernel", what, add)
	}
}

func TestReportByOpGenerated(t *testing.T) {
	dir := t.TempDir()
	p := genOpsTrace(t, dir, "a.json", 4)
	checkOpsDoc(t, "one input", reportOps(t, p), 4)

	// Text: the figures, within 120 columns.
	_, txt, _ := tally("report", "--by", "op", p)
	containsAll(t, "text", txt, "ops (inner level", "under no op", "aten::mm → gemm_kernel", "(launch under no op) → orphan", "region [4 graph launches]", "171.8", "17.4%", "peaks: H100 SXM",
		"modelled (FLOPs or bytes from recorded shapes): 89.4%; unmodelled 8.1% (8.1% without shapes, 0.0% outside the models)")
	sec := txt[strings.Index(txt, "\nops ("):]
	sec = sec[:strings.Index(sec, "\n\n")]
	for _, l := range strings.Split(sec, "\n") {
		if utf8.RuneCountInString(l) > 120 {
			t.Errorf("got a line of %d columns, want at most 120: %q", utf8.RuneCountInString(l), l)
		}
	}

	// --top caps the rows and sums the rest; the row under no op stays.
	_, top, _ := tally("report", "--by", "op", "--top", "1", p)
	if !strings.Contains(top, "… 2 more op names") || !strings.Contains(top, "(launch under no op) → orphan") || strings.Contains(top, "aten::add →") {
		t.Errorf("--top 1: got\n%s\nwant mm, a line for 2 more op names, and the row under no op", top)
	}

	// Without --by op: no op fields at all (v1 is only added to).
	_, plain, _ := tally("report", "--json", p)
	if strings.Contains(plain, `"ops"`) || strings.Contains(plain, "op_table") {
		t.Error("a report without --by op: got op fields, want none")
	}

	// Many inputs: each section its own table, the merged one adds them.
	genOpsTrace(t, dir, "b.json", 2)
	m := reportOps(t, dir)
	checkOpsDoc(t, "merged", m, 6)
	if len(m.Sections) != 2 {
		t.Fatalf("got %d sections, want 2", len(m.Sections))
	}
	checkOpsDoc(t, "section a", &m.Sections[0], 4)
	checkOpsDoc(t, "section b", &m.Sections[1], 2)

	// A peak override; the outer level.
	o := reportOps(t, "--peak-tflops", "100", "--peak-tbps", "1", p)
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
		{"--by", "op", "--peak-tflops", "NaN"},
		{"--by", "op", "--peak-tbps", "+Inf"},
		// The fourth sweep: finite but absurd peaks are refused too.
		{"--by", "op", "--peak-tflops", "1e-300"},
		{"--by", "op", "--peak-tbps", "0.0001"},
		{"--by", "op", "--peak-tflops", "1e7"},
	} {
		code, _, errOut := tally(append(append([]string{"report"}, args...), example)...)
		if code != 2 || !strings.Contains(errOut, "tally report: ") {
			t.Errorf("%v: got exit %d (%q), want 2 with the reason", args, code, errOut)
		}
	}
	// A format without host ops says so, and counts everything unattributed.
	code, out, errOut := tally("report", "--by", "op", "--manifests", kernels, example)
	if code > 1 || !strings.Contains(out, "this format records no host ops") || !strings.Contains(out, "0.0% attributed to 0 op names") {
		t.Errorf("hrx with --by op: got exit %d, %s%s; want 0 or 1, \"this format records no host ops\", 0.0%% attributed", code, out, errOut)
	}
}

// TestOpsMatchTraceLens compares tally's cost model with TraceLens's on
// the shared H100 trace (its output recorded in testdata, with command,
// commit and date). Per (op, input dims): the same calls, the same device
// time, the same FLOPs per call for GEMMs and attention, the same bytes
// for every op both model. The differences, each checked:
//   - elementwise and reduction ops: TraceLens counts one FLOP per output
//     element; tally models them by bytes only (flops null);
//   - attention: TraceLens models aten::_scaled_dot_product_flash_attention,
//     which tally sees between the outer aten::scaled_dot_product_attention
//     and the inner aten::_flash_attention_forward: the same figures are on
//     the outer op (--op-level outer) with dims of its own arity;
//   - aten::cat and aten::index_select: neither models them; aten::arange
//     and aten::_local_scalar_dense: TraceLens models them (a few bytes),
//     tally does not;
//   - reductions: TraceLens adds the (tiny) output to the bytes moved,
//     tally counts the input read; bytes are compared to 1e-6 relative;
//   - TraceLens splits some signatures that tally merges (the same dims
//     under other strides): calls and times are compared summed per dims.
func TestOpsMatchTraceLens(t *testing.T) {
	raw := readFile(t, "testdata/tracelens_ops_h100_qwen.json")
	var tl struct {
		Rows []struct {
			Name   string          `json:"name"`
			Dims   json.RawMessage `json:"Input Dims"`
			N      int64           `json:"operation_count"`
			GFLOPS *float64        `json:"GFLOPS"`
			MB     *float64        `json:"Data Moved (MB)"`
			KT     float64         `json:"Kernel Time (µs)_sum"`
		} `json:"unified_perf_summary"`
	}
	decodeJSON(t, raw, &tl)
	trace := "../../format/kineto/testdata/tracelens__h100_qwen1.5-0.5b.json.gz"
	type key struct{ name, dims string }
	type agg struct {
		calls        int64
		ns           float64
		flops, bytes *float64
		tlRows       int
	}
	ours := map[key]*agg{}
	// An op at both levels (aten::mul outside any other op) is taken from
	// the inner report only.
	for level, d := range []*opsDoc{reportOps(t, trace), reportOps(t, "--op-level", "outer", trace)} {
		mine := map[key]*agg{}
		for _, o := range d.Ops {
			for _, s := range o.Sigs {
				name, dims := o.Name, s.Dims
				if name == "aten::scaled_dot_product_attention" {
					name, dims = "aten::_scaled_dot_product_flash_attention", canonDims(t, dims, 3)
				}
				k := key{name, canonDims(t, dims, -1)}
				a := mine[k]
				if a == nil {
					a = &agg{flops: s.FLOPs, bytes: s.Bytes}
					mine[k] = a
				}
				a.calls += s.Calls
				a.ns += float64(s.DeviceNS) / 1e3
			}
		}
		for k, a := range mine {
			if level == 0 || ours[k] == nil {
				ours[k] = a
			}
		}
	}
	theirs := map[key]*agg{}
	var order []key
	for _, r := range tl.Rows {
		dims := string(r.Dims)
		if r.Name == "aten::_scaled_dot_product_flash_attention" {
			dims = canonDims(t, dims, 3)
		}
		k := key{r.Name, canonDims(t, dims, -1)}
		a := theirs[k]
		if a == nil {
			a = &agg{flops: r.GFLOPS, bytes: r.MB}
			theirs[k] = a
			order = append(order, k)
		}
		a.calls += r.N
		a.ns += r.KT
		a.tlRows++
	}
	gemm := 0
	for _, k := range order {
		th, us := theirs[k], ours[k]
		if us == nil {
			switch k.name {
			case "aten::cat", "aten::index_select", "aten::arange", "aten::_local_scalar_dense":
			default:
				t.Errorf("%s %s: got no op from tally, want it as TraceLens models it", k.name, k.dims)
			}
			continue
		}
		if th.calls != us.calls || math.Abs(th.ns-us.ns) > 0.01*float64(th.tlRows) {
			t.Errorf("%s %s: got %d calls in %.2f µs, want TraceLens's %d in %.2f µs", k.name, k.dims, us.calls, us.ns, th.calls, th.ns)
		}
		if us.bytes == nil || th.bytes != nil && math.Abs(*us.bytes/(1<<20)-*th.bytes) > 1e-6**th.bytes {
			t.Errorf("%s %s: got %s bytes a call, want TraceLens's %s MiB", k.name, k.dims, fv(us.bytes), fv(th.bytes))
		}
		switch k.name {
		case "aten::mm", "aten::addmm", "aten::bmm", "aten::_scaled_dot_product_flash_attention":
			gemm++
			if us.flops == nil || th.flops == nil || math.Abs(*us.flops/1e9-*th.flops) > 1e-9**th.flops {
				t.Errorf("%s %s: got %s FLOPs a call, want TraceLens's %s GFLOPs", k.name, k.dims, fv(us.flops), fv(th.flops))
			}
		default:
			if us.flops != nil {
				t.Errorf("%s %s: got %v FLOPs, want none (bytes only)", k.name, k.dims, *us.flops)
			}
		}
	}
	if gemm != 6 {
		t.Errorf("compared %d GEMM and attention signatures, want 6 (4 mm, 1 addmm, 1 flash attention)", gemm)
	}
}

// canonDims is a dims array as compact JSON, its first n entries (n < 0:
// all).
func canonDims(t *testing.T, s string, n int) string {
	t.Helper()
	var v []json.RawMessage
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("dims %s: got error %v, want a JSON list", s, err)
	}
	if n >= 0 && len(v) > n {
		v = v[:n]
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func fv(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// TestOpsGEMMFLOPsIndependent recomputes the GEMM FLOPs of shared traces
// from their own Input Dims, read with encoding/json apart from the
// reader: 2·M·N·K (×batch for bmm; + M·N for addmm's bias, as TraceLens
// counts it) summed over the calls that enclose, on their thread, a launch
// call whose correlation a device event carries. tally's per-op FLOPs must
// equal it.
func TestOpsGEMMFLOPsIndependent(t *testing.T) {
	for _, name := range []string{"tracelens__h100_qwen1.5-0.5b", "hta__negative_queue_length_rank0", "kineto__tb_plugin_resnet50_2021.pt.trace", "tracelens__torch_compile_triton"} {
		path := "../../format/kineto/testdata/" + name + ".json.gz"
		want := gemmFLOPs(t, path)
		if len(want) == 0 {
			t.Fatalf("%s: got no GEMM call that launched a kernel, want some", name)
		}
		d := reportOps(t, path)
		got := map[string]float64{}
		for _, o := range d.Ops {
			if o.FLOPs != nil && want[o.Name] != 0 {
				got[o.Name] = *o.FLOPs
			}
		}
		for op, w := range want {
			if math.Abs(got[op]-w) > 1e-12*w {
				t.Errorf("%s: %s: got %g FLOPs, want %g (2·M·N·K from the trace's Input Dims)", name, op, got[op], w)
			}
		}
		t.Logf("%s: %v", name, want)
	}
}

func gemmFLOPs(t *testing.T, path string) map[string]float64 {
	t.Helper()
	var doc struct {
		Events []struct {
			Ph, Cat, Name string
			Pid, Tid      any
			Ts, Dur       float64
			Args          struct {
				Dims []json.RawMessage `json:"Input Dims"`
				Corr *int64            `json:"correlation"`
			}
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(testfile.Gunzip(t, path), &doc); err != nil {
		t.Fatal(err)
	}
	type launch struct {
		thread string
		ts     float64
		corr   int64
	}
	device := map[int64]bool{}
	var launches []launch
	for _, e := range doc.Events {
		c := strings.ToLower(e.Cat)
		switch {
		case e.Args.Corr == nil || e.Ph != "X":
		case c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset" || c == "memcpy" || c == "memset":
			device[*e.Args.Corr] = true
		case c == "cuda_runtime" || c == "cuda_driver" || c == "runtime":
			launches = append(launches, launch{fmt.Sprint(e.Pid, "/", e.Tid), e.Ts, *e.Args.Corr})
		}
	}
	want := map[string]float64{}
	for _, e := range doc.Events {
		c := strings.ToLower(e.Cat)
		if e.Ph != "X" || (c != "cpu_op" && c != "operator") || len(e.Args.Dims) < 2 {
			continue
		}
		d := make([][]float64, len(e.Args.Dims))
		for i, r := range e.Args.Dims {
			_ = json.Unmarshal(r, &d[i]) // a tensor list stays nil
		}
		var fl float64
		switch {
		case e.Name == "aten::mm" && len(d[0]) == 2 && len(d[1]) == 2:
			fl = 2 * d[0][0] * d[1][1] * d[0][1]
		case e.Name == "aten::addmm" && len(d) >= 3 && len(d[1]) == 2 && len(d[2]) == 2:
			fl = 2*d[1][0]*d[2][1]*d[1][1] + d[1][0]*d[2][1]
		case e.Name == "aten::bmm" && len(d[0]) == 3 && len(d[1]) == 3:
			fl = 2 * d[0][0] * d[0][1] * d[1][2] * d[0][2]
		default:
			continue
		}
		th := fmt.Sprint(e.Pid, "/", e.Tid)
		for _, l := range launches {
			if l.thread == th && l.ts >= e.Ts && l.ts <= e.Ts+e.Dur && device[l.corr] {
				want[e.Name] += fl
				break
			}
		}
	}
	return want
}

// export --per-op: the op table as CSV, one row per op and one for the
// dispatches under no op (op ""), the figures of report --by op.
func TestExportPerOp(t *testing.T) {
	dir := t.TempDir()
	p := genOpsTrace(t, dir, "a.json", 4)
	out := filepath.Join(dir, "ops.csv")
	tallyOK(t, "export", "--to", "csv", "--per-op", "-o", out, p)
	raw := readFile(t, out)
	lines := strings.Split(strings.TrimSpace(raw), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "rank,input,op,calls,dispatches,timed,device_ns,host_ns,flops,bytes,modelled_ns,tflops,tbps,of_peak,top_kernel,export_id") {
		t.Fatalf("got\n%s\nwant a header, mm, region, add and the row under no op", raw)
	}
	for i, want := range []string{
		"0,0,aten::mm,4,4,4,400000,80000,68719476736,117440512,400000,171.79869184,0.29360128,0.173621719898939,gemm_kernel,",
		"0,0,region,4,8,8,40000,200000,,,0,,,,graph_a,",
		"0,0,aten::add,4,4,4,40000,80000,,50331648,40000,,1.2582912,0.375609313432836,add_kernel,",
		"0,0,,0,4,4,12000,,,,,,,,orphan,",
	} {
		if !strings.HasPrefix(lines[i+1], want) {
			t.Errorf("row %d: got %s, want it to start %s", i+1, lines[i+1], want)
		}
	}
	if code, _, errOut := tally("export", "--to", "pprof", "--per-op", "-o", filepath.Join(dir, "p.pb.gz"), p); code != 2 || !strings.Contains(errOut, "--per-op applies to csv, jsonl and parquet") {
		t.Errorf("pprof --per-op: got exit %d (%s), want 2 and why", code, errOut)
	}
	// Parquet: ops.parquet beside the other tables, the same rows.
	pq := filepath.Join(dir, "pq")
	tallyOK(t, "export", "--to", "parquet", "--per-op", "-o", pq, p)
	rows, err := parquet.ReadFile[export.OpRow](filepath.Join(pq, "ops.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || rows[0].Op != "aten::mm" || rows[0].FLOPs == nil || *rows[0].FLOPs != 68719476736 || rows[3].Op != "" || *rows[3].DeviceNS != 12000 {
		t.Errorf("ops.parquet: got %+v, want mm (68719476736 FLOPs), region, add and the 12000 ns under no op", rows)
	}
}

// The HTML page of many inputs with --by op: an ops section for the merged
// inputs and one per input.
func TestReportByOpHTMLMany(t *testing.T) {
	dir := t.TempDir()
	genOpsTrace(t, dir, "a.json", 4)
	genOpsTrace(t, dir, "b.json", 2)
	page := filepath.Join(dir, "r.html")
	tallyOK(t, "report", "--by", "op", "--html", page, "-o", filepath.Join(dir, "r.txt"), dir)
	raw := readFile(t, page)
	if n := strings.Count(raw, `<section class="ops">`); n != 3 {
		t.Errorf("got %d ops sections, want 3 (merged, a, b)", n)
	}
	if n := strings.Count(raw, `<circle class="op" `); n != 3 {
		t.Errorf("got %d roofline points, want 3 (mm in each)", n)
	}
}
