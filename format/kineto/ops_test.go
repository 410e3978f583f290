package kineto

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

func hostEv(cat, name string, tid int, ts, dur string, args string) string {
	if args == "" {
		args = `{"External id": 1}`
	}
	return fmt.Sprintf(`{"ph": "X", "cat": %q, "name": %q, "pid": 100, "tid": %d, "ts": %s, "dur": %s, "args": %s}`, cat, name, tid, ts, dur, args)
}

func shapes(dims, types string) string {
	return fmt.Sprintf(`{"External id": 3, "Record function id": 0, "Input Dims": %s, "Input type": %s, "Input Strides": [[1]], "Concrete Inputs": ["", "", ""], "Sequence number": 7}`, dims, types)
}

// opsTrace has every case of attribution: nested ops, a launch under the
// outer op only, one under a module frame only, one on a thread where only
// another thread's op spans its time, a device event without a launch
// call, a graph launch under a record_function range, and a repeated
// signature. Host ops come last: file order is not time order. Device
// events come before their calls (CUPTI's order: linked at the call or at
// the end) or after them (linked at once, so a spilled record carries its
// call's thread).
func opsTrace(callsFirst bool) string {
	dev := []string{
		kernel("gemm", "1", "1000", "10"),
		kernel("bias", "2", "1020", "10"),
		kernel("x", "3", "1040", "10"),
		kernel("orphan", "9", "1060", "10"),
		kernel("g1", "4", "1080", "10"),
		kernel("g2", "4", "1100", "10"),
		kernel("g3", "4", "1120", "10"),
		kernel("gemm", "5", "1140", "10"),
	}
	calls := []string{
		// A call on another thread first: the launching thread is not
		// thread 0 of the reader's table.
		`{"ph": "X", "cat": "cuda_runtime", "name": "cudaGetDevice", "pid": 100, "tid": 300, "ts": 1, "dur": 1, "args": {"correlation": 50}}`,
		call("cudaLaunchKernel", "1", "30", "5"),
		call("cudaLaunchKernel", "2", "80", "5"),
		call("cudaLaunchKernel", "3", "200", "5"),
		call("cudaGraphLaunch", "4", "310", "5"),
		call("cudaLaunchKernel", "5", "405", "5"),
	}
	host := []string{
		hostEv("user_annotation", "ProfilerStep#1", 100, "0", "1000", ""),
		hostEv("python_function", "nn.Module: Block_0", 100, "0", "500", `{"Python id": 1}`),
		hostEv("python_function", "torch/nn/functional.py(1): linear", 100, "10", "100", `{"Python id": 2}`),
		hostEv("cpu_op", "aten::linear", 100, "10", "100", shapes(`[[8, 16], [32, 16], [32]]`, `["float", "float", "float"]`)),
		hostEv("cpu_op", "aten::addmm", 100, "20", "50", shapes(`[[32], [8, 16], [16, 32]]`, `["float", "float", "float"]`)),
		hostEv("cpu_op", "aten::other", 200, "190", "50", ""),
		hostEv("user_annotation", "graph region", 100, "300", "100", ""),
		hostEv("cpu_op", "aten::addmm", 100, "400", "20", shapes(`[[32], [8, 16], [16, 32]]`, `["float", "float", "float"]`)),
	}
	if callsFirst {
		return trace(append(append(calls, dev...), host...))
	}
	return trace(append(append(dev, calls...), host...))
}

func TestOpsAttribution(t *testing.T) {
	for _, callsFirst := range []bool{false, true} {
		t.Run(fmt.Sprint("calls first ", callsFirst), func(t *testing.T) { testOpsAttribution(t, callsFirst) })
	}
}

func testOpsAttribution(t *testing.T, callsFirst bool) {
	r := readOpts(t, opsTrace(callsFirst), &format.Options{Ops: true})
	c := r.c
	name := func(id capture.OpID) string {
		if o := c.Op(id); o != nil {
			return o.Name
		}
		return "-"
	}
	want := []struct{ kernel, inner, outer string }{
		{"gemm", "aten::addmm", "aten::linear"},
		{"bias", "aten::linear", "aten::linear"},
		{"x", "-", "-"},      // under a module frame and the step only
		{"orphan", "-", "-"}, // no launch call
		{"g1", "graph region", "graph region"},
		{"g2", "graph region", "graph region"},
		{"g3", "graph region", "graph region"},
		{"gemm", "aten::addmm", "aten::addmm"},
	}
	if len(r.disp) != len(want) {
		t.Fatalf("got %d dispatches, want %d", len(r.disp), len(want))
	}
	for i, w := range want {
		d := r.disp[i]
		k := c.Kernels[d.Kernel].Name
		if k != w.kernel || name(d.Op) != w.inner || name(d.OuterOp) != w.outer {
			t.Errorf("dispatch %d: got %s under %s (outer %s), want %s under %s (outer %s)", i, k, name(d.Op), name(d.OuterOp), w.kernel, w.inner, w.outer)
		}
	}
	if r.disp[0].Op != r.disp[7].Op {
		t.Errorf("the two addmm calls of one signature: got ops %d and %d, want one", r.disp[0].Op, r.disp[7].Op)
	}
	if l := r.disp[3].Link; l != capture.LinkNoLaunch {
		t.Errorf("orphan: got link %s, want no-launch", l)
	}
	addmm := c.Op(r.disp[0].Op)
	if addmm.Dims != "[[32],[8,16],[16,32]]" || addmm.Types != `["float","float","float"]` || addmm.Concrete != `["","",""]` || addmm.Path != "nn.Module: Block_0" || addmm.Kind != "cpu_op" {
		t.Errorf("addmm signature: got %+v, want dims [[32],[8,16],[16,32]], three floats, no concrete inputs, cpu_op under nn.Module: Block_0", addmm)
	}
	if addmm.Calls != 2 || addmm.HostNS != 70_000 || !addmm.HostValid {
		t.Errorf("addmm: got %d calls, %d ns, want 2 calls (each launched a kernel), 70000 ns", addmm.Calls, addmm.HostNS)
	}
	if lin := c.Op(r.disp[1].Op); lin.Calls != 1 || lin.HostNS != 100_000 {
		t.Errorf("linear: got %d calls, %d ns, want 1 and 100000", lin.Calls, lin.HostNS)
	}
	g := c.Op(r.disp[4].Op)
	if g.Kind != "user_annotation" || g.GraphLaunches != 1 || g.Calls != 1 {
		t.Errorf("graph region: got %+v, want a user_annotation with 1 graph launch and 1 call", g)
	}
	if len(c.Ops) != 3 {
		t.Errorf("got %d ops, want 3 (linear, addmm, graph region): aten::other and the step are no op of any dispatch", len(c.Ops))
	}
	if c.OpSource == "" || c.OpDevice != "Test GPU" {
		t.Errorf("got source %q, device %q; want a source and Test GPU", c.OpSource, c.OpDevice)
	}
	// The accounting is that of a read without ops: host ops stay
	// skipped events (not device work), only read.
	// Only the graph_launch note says what became of the graph's kernels.
	plain := readOpts(t, opsTrace(callsFirst), nil)
	withOps := gapText(c)
	const said = "and each is attributed to the host op around its launch (the op table's graph_launches); the ops inside the graph are not recorded"
	if !strings.Contains(withOps, said) {
		t.Errorf("got gaps\n%s\nwant the graph_launch note to say the graph's kernels are attributed: %q", withOps, said)
	}
	withOps = strings.Replace(withOps, said, "but per-op attribution is unavailable for them", 1)
	if a, b := gapText(plain.c), withOps; a != b {
		t.Errorf("with ops: got accounting\n%s\nwant the one without\n%s", b, a)
	}
	for i, d := range plain.disp {
		if d.Op != capture.NoOp || d.OuterOp != capture.NoOp {
			t.Errorf("without Ops, dispatch %d: got op %d/%d, want none", i, d.Op, d.OuterOp)
		}
	}
	if len(plain.c.Ops) != 0 || plain.c.OpSource != "" {
		t.Errorf("without Ops: got %d ops, source %q; want none", len(plain.c.Ops), plain.c.OpSource)
	}
}

// Overlapping (not nested) spans on one thread and a launch exactly at an
// op's end: the innermost span starting last is taken, and an op ending at
// the launch still encloses it.
func TestOpsPlacementEdges(t *testing.T) {
	r := readOpts(t, trace([]string{
		hostEv("cpu_op", "A", 100, "0", "10", ""),
		hostEv("cpu_op", "B", 100, "5", "10", ""),
		hostEv("cpu_op", "C", 100, "20", "10", ""),
		call("cudaLaunchKernel", "1", "7", "1"),
		call("cudaLaunchKernel", "2", "3", "1"),
		call("cudaLaunchKernel", "3", "30", "1"),
		call("cudaLaunchKernel", "4", "17", "1"),
		kernel("k1", "1", "100", "1"),
		kernel("k2", "2", "110", "1"),
		kernel("k3", "3", "120", "1"),
		kernel("k4", "4", "130", "1"),
	}), &format.Options{Ops: true})
	got := ""
	for _, d := range r.disp {
		n := "-"
		if o := r.c.Op(d.Op); o != nil {
			n = o.Name
		}
		got += n
	}
	if got != "BAC-" {
		t.Errorf("got ops %q, want BAC- (B starts last around 7; only A holds 3; C ends at 30; nothing at 17)", got)
	}
}

// The shared CUDA-graph and torch.compile traces: every dispatch with a
// launch call is attributed (graph kernels to the range around their
// launch, Triton kernels to their Inductor launcher op).
func TestOpsSharedGraphAndCompile(t *testing.T) {
	for _, tc := range []struct {
		file                 string
		dispatches, unattrib int
		wantOp               string // the op of most dispatches
		wantN                int
	}{
		{"tracelens__vllm_decode_full_graph_execution.json.gz", 434, 0, "execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)", 421},
		{"tracelens__torch_compile_triton.json.gz", 12, 0, "aten::mm", 7},
		{"hta__triton_example.json.gz", 1, 0, "triton_poi_fused_add_cos_sin_0", 1},
	} {
		s := readSample(t, "testdata/"+tc.file, &format.Options{Ops: true})
		n := map[string]int{}
		unattrib := 0
		for _, d := range s.disp {
			o := s.c.Op(d.Op)
			if o == nil {
				unattrib++
				if d.Link == capture.LinkLaunched || d.Link == capture.LinkGraph {
					t.Errorf("%s: %s: got no op for a kernel with a launch call, want one", tc.file, s.c.Kernels[d.Kernel].Name)
				}
				continue
			}
			n[o.Name]++
		}
		if len(s.disp) != tc.dispatches || unattrib != tc.unattrib || n[tc.wantOp] != tc.wantN {
			t.Errorf("%s: got %d dispatches, %d unattributed, %d under %s; want %d, %d, %d", tc.file, len(s.disp), unattrib, n[tc.wantOp], tc.wantOp, tc.dispatches, tc.unattrib, tc.wantN)
		}
	}
	s := readSample(t, "testdata/tracelens__torch_compile_triton.json.gz", &format.Options{Ops: true})
	triton := 0
	for _, d := range s.disp {
		if o := s.c.Op(d.Op); o != nil && o.Name[:7] == "triton_" {
			triton++
			if s.c.Op(d.OuterOp).Name != "Torch-Compiled Region: 0/0" {
				t.Errorf("Triton kernel %s: got outer op %s, want the compiled region", s.c.Kernels[d.Kernel].Name, s.c.Op(d.OuterOp).Name)
			}
		}
	}
	if triton != 4 {
		t.Errorf("got %d Triton kernels attributed to their launcher ops, want 4", triton)
	}
}

// Every shared trace read with ops: the same dispatches (but for their
// ops) and the same accounting (but for the graph_launch note's phrase),
// so attribution adds no gap; every op id resolves; and the dispatches
// under no op are counted, never hidden.
func TestOpsSharedTracesNoFalseGaps(t *testing.T) {
	const said = "and each is attributed to the host op around its launch (the op table's graph_launches); the ops inside the graph are not recorded"
	for _, path := range samples(t) {
		plain := readSample(t, path, nil)
		ops := readSample(t, path, &format.Options{Ops: true})
		a, b := gapText(plain.c), strings.Replace(gapText(ops.c), said, "but per-op attribution is unavailable for them", 1)
		if a != b {
			t.Errorf("%s: with ops: got accounting\n%s\nwant the one without\n%s", path, b, a)
		}
		if len(plain.disp) != len(ops.disp) {
			t.Fatalf("%s: got %d dispatches with ops, want %d", path, len(ops.disp), len(plain.disp))
		}
		under, launched := 0, 0
		for i := range ops.disp {
			d, p := ops.disp[i], plain.disp[i]
			if d.Op != capture.NoOp && ops.c.Op(d.Op) == nil {
				t.Fatalf("%s: dispatch %d: got op %d, want one of the %d ops", path, i, d.Op, len(ops.c.Ops))
			}
			if d.Link == capture.LinkLaunched || d.Link == capture.LinkGraph {
				launched++
				if d.Op == capture.NoOp {
					under++
				}
			}
			d.Op, d.OuterOp = capture.NoOp, capture.NoOp
			// A collective is a copy per read (capture.Collect): compared
			// by value.
			if (d.Collective == nil) != (p.Collective == nil) || d.Collective != nil && *d.Collective != *p.Collective {
				t.Fatalf("%s: dispatch %d's collective with ops: got %+v, want %+v as without", path, i, d.Collective, p.Collective)
			}
			d.Collective, p.Collective = nil, nil
			if d != p {
				t.Fatalf("%s: dispatch %d with ops: got %+v, want %+v as without (but for its ops)", path, i, d, p)
			}
		}
		t.Logf("%s: %d dispatches, %d launched, %d of them under no op, %d op signatures", path, len(ops.disp), launched, under, len(ops.c.Ops))
	}
}

// More spans than one chunk holds (spanChunk), in time order and in
// reverse (sorted by build), each op nested in a block that crosses
// chunk boundaries, the device events in launch order or scattered
// through the file (launches placed out of time order: place's search
// goes back and forth), every other launch at its op's very start: every
// launch gets its own op and block.
func TestOpsManySpans(t *testing.T) {
	const n, per = 2*spanChunk + 100, 10 // ops, ops per block
	var host []string
	for i := range n {
		ts := 1000 * i
		if i%per == 0 {
			host = append(host, hostEv("user_annotation", fmt.Sprintf("block_%d", i/per), 100, fmt.Sprint(ts), fmt.Sprint(1000*per-1), ""))
		}
		host = append(host, hostEv("cpu_op", fmt.Sprintf("op_%d", i%(2*per+1)), 100, fmt.Sprint(ts+1), "500", ""))
	}
	for _, tc := range []struct{ reverse, scatter bool }{{false, false}, {true, false}, {false, true}} {
		if tc.reverse {
			slices.Reverse(host)
		}
		var dev []string
		for j := range n {
			i := j
			if tc.scatter {
				i = (j * 7919) % n // a permutation: n is not a multiple of 7919
			}
			dev = append(dev, call("cudaLaunchKernel", fmt.Sprint(i+1), fmt.Sprint(1000*i+1+i%2), "1"), kernel(fmt.Sprintf("k%d", i), fmt.Sprint(i+1), fmt.Sprint(100_000_000+1000*i), "10"))
		}
		r := readWith(t, trace(append(dev, host...)), &format.Options{Ops: true}, config{bufSize: 1 << 16, logRecords: 1 << 10})
		if len(r.disp) != n {
			t.Fatalf("%+v: got %d dispatches, want %d", tc, len(r.disp), n)
		}
		calls := map[string]int64{}
		for _, d := range r.disp {
			var i int
			fmt.Sscanf(r.c.Kernels[d.Kernel].Name, "k%d", &i)
			in, out := r.c.Op(d.Op), r.c.Op(d.OuterOp)
			if in == nil || out == nil || in.Name != fmt.Sprintf("op_%d", i%(2*per+1)) || out.Name != fmt.Sprintf("block_%d", i/per) {
				t.Fatalf("%+v: launch %d: got %+v under %+v, want op_%d under block_%d", tc, i, in, out, i%(2*per+1), i/per)
			}
			calls[in.Name] = in.Calls
		}
		if calls["op_0"] != int64((n+2*per)/(2*per+1)) {
			t.Errorf("%+v: op_0: got %d calls, want %d", tc, calls["op_0"], (n+2*per)/(2*per+1))
		}
	}
}

// A module frame and an op of exactly the same span, in either file
// order: the op encloses the frame, so the frame's module is the path of
// ops inside it, not of the op itself.
func TestOpsModuleSameSpan(t *testing.T) {
	mod := hostEv("python_function", "nn.Module: M", 100, "10", "100", `{"Python id": 1}`)
	op := hostEv("cpu_op", "aten::linear", 100, "10", "100", "")
	inner := hostEv("cpu_op", "aten::addmm", 100, "20", "50", "")
	dev := []string{call("cudaLaunchKernel", "1", "30", "5"), kernel("k", "1", "1000", "10"), call("cudaLaunchKernel", "2", "80", "5"), kernel("k", "2", "1020", "10")}
	for _, host := range [][]string{{mod, op, inner}, {op, mod, inner}, {inner, op, mod}} {
		r := readOpts(t, trace(append(host, dev...)), &format.Options{Ops: true})
		a, b := r.c.Op(r.disp[0].Op), r.c.Op(r.disp[1].Op)
		if a == nil || b == nil || a.Name != "aten::addmm" || a.Path != "nn.Module: M" || b.Name != "aten::linear" || b.Path != "" {
			t.Errorf("got %+v and %+v, want aten::addmm under nn.Module: M, aten::linear with no path", a, b)
		}
	}
}

// firstAfter (a gallop from the thread's last placement, then a bisection)
// against a plain binary search: two threads of spans with repeated
// starts across chunks, and times in order, in reverse, at random and at
// the starts themselves.
func TestOpsFirstAfter(t *testing.T) {
	h := newHostOps()
	const n = spanChunk + 500
	var starts [2][]int64
	rng := rand.New(rand.NewPCG(1, 2))
	for th := range int32(2) {
		ts := int64(0)
		for range n {
			ts += int64(rng.IntN(3)) // repeated starts
			starts[th] = append(starts[th], ts)
			last := len(h.spans) - 1
			if last < 0 || len(h.spans[last]) == spanChunk {
				h.spans = append(h.spans, make([]hostSpan, 0, spanChunk))
				last++
			}
			h.spans[last] = append(h.spans[last], hostSpan{start: ts, end: ts + 1, link: th})
			h.n++
		}
	}
	h.build(2)
	var times []int64
	for i := range 3 * n {
		switch i % 3 {
		case 0:
			times = append(times, int64(rng.IntN(n+10))-5)
		case 1:
			times = append(times, starts[0][rng.IntN(n)])
		default:
			times = append(times, int64(i/3))
		}
	}
	rev := slices.Clone(times)
	slices.Reverse(rev)
	times = append(times, rev...)
	for _, tm := range times {
		for th := range uint32(2) {
			want := h.lo[th] + int32(sort.Search(n, func(k int) bool { return starts[th][k] > tm }))
			if got := h.firstAfter(th, tm); got != want {
				t.Fatalf("thread %d, t %d: got %d, want %d", th, tm, got, want)
			}
		}
	}
}
