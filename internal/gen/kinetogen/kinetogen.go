// Package kinetogen writes synthetic PyTorch profiler (Kineto) traces of any
// size, shaped like the real ones in format/kineto/testdata: the header
// keys, then every host event (ops, Python frames, step annotations), then
// the device section in CUPTI order (each kernel just before its launch
// call, with flows), then the GPU step annotations and the metadata, then
// baseTimeNanoseconds after traceEvents. It includes the classes tally must
// state: kernels launched before the window (no launch call), graph
// launches replaying many kernels, launches with no device event at the
// end of the window, memcpy/memset, a second stream.
//
// The output is deterministic for a seed. Stats says what was written, so
// tests can check a reader against it exactly.
package kinetogen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand"
	"strconv"
)

// Config shapes a trace.
type Config struct {
	// TargetBytes is the approximate size to write; at least one step is
	// written.
	TargetBytes int64
	Seed        int64
	// OpsPerStep is the number of host ops per ProfilerStep (default 2000).
	OpsPerStep int
	// Orphans are kernels launched before the profiling window (default
	// 200): device events whose correlation id no call carries.
	Orphans int
	// GraphEvery makes every n-th launch a cudaGraphLaunch replaying
	// GraphKernels kernels (defaults 97 and 20).
	GraphEvery, GraphKernels int
	// TailLaunches are launch calls at the end of the window whose work
	// Kineto dropped (default 7).
	TailLaunches int
	// Backward is the number of ops at the end of each step launched from
	// the autograd engine's thread (default 0): as in real training traces
	// the GPU step annotation spans only the main thread's device work, so
	// theirs lies outside it.
	Backward int
}

// Stats is what Write wrote.
type Stats struct {
	Bytes          int64
	Events         int64
	Steps          int
	DeviceEvents   int64 // kernel + memcpy + memset
	Kernels        int64 // category kernel
	Memcpy, Memset int64
	DeviceNS       int64
	Orphans        int64 // device events without launch call
	OrphanNS       int64
	GraphLaunches  int64
	GraphEvents    int64
	TailLaunches   int64 // launch calls without device event
	RuntimeCalls   int64
	Annotations    int64 // gpu_user_annotation spans
	Backward       int64 // device events launched from the autograd thread
}

const (
	pid      = 25286
	base     = int64(1751410836000000000)
	start    = int64(1428625731622250) // ns relative to base, like Kineto's
	mainTID  = pid
	gradTID  = pid + 17 // the autograd engine's thread
	stream   = 7
	ncclStrm = 25
)

var kernelNames = []string{
	"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
	"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_32x3_nt_align1>(cutlass_80_tensorop_s1688gemm_256x128_32x3_nt_align1::Params)",
	"ampere_sgemm_128x64_nn",
	"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4>)",
	"void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
	"triton_poi_fused_add_mul_0",
	"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
	"flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>",
}

var opNames = []string{"aten::linear", "aten::add", "aten::mul", "aten::layer_norm", "aten::softmax", "aten::matmul", "aten::copy_", "aten::cat"}

const ncclName = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"

// w is a counting writer with Kineto's number formats.
type w struct {
	bw  *bufio.Writer
	n   int64
	buf []byte
	ev  int64
}

func (o *w) raw(s string) {
	n, _ := o.bw.WriteString(s)
	o.n += int64(n)
}

func (o *w) flush() {
	n, _ := o.bw.Write(o.buf)
	o.n += int64(n)
	o.buf = o.buf[:0]
}

// ts appends ns as Kineto's "<µs>.<3 digits>".
func (o *w) ts(ns int64) {
	o.buf = strconv.AppendInt(o.buf, ns/1000, 10)
	f := ns % 1000
	o.buf = append(o.buf, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}

func (o *w) int(v int64) { o.buf = strconv.AppendInt(o.buf, v, 10) }
func (o *w) s(v string)  { o.buf = append(o.buf, v...) }
func (o *w) q(v string)  { o.buf = strconv.AppendQuote(o.buf, v) }

// x writes a complete event's head: ph, cat, name, pid, tid, ts, dur.
func (o *w) x(cat, name string, p, t int64, ts, dur int64) {
	o.s("  {\n    \"ph\": \"X\", \"cat\": \"")
	o.s(cat)
	o.s("\", \"name\": ")
	o.q(name)
	o.s(", \"pid\": ")
	o.int(p)
	o.s(", \"tid\": ")
	o.int(t)
	o.s(",\n    \"ts\": ")
	o.ts(ts)
	o.s(", \"dur\": ")
	o.ts(dur)
	o.ev++
}

// op is one host op of a step and the device work it launched.
type op struct {
	ts, dur    int64 // host op
	call       string
	cts, cdur  int64 // launch call
	corr       int64
	ext        int64
	kind       int // 0 kernel, 1 memcpy, 2 memset, 3 graph, 4 nccl
	dev        []devEv
	extraCall  string // a non-launch call after the launch
	extraCorr  int64
	extraTS    int64
	pyTS, pyDr int64
	tid        int64 // host thread of the op and its launch
}

type devEv struct {
	name    string
	cat     string
	strm    int64
	ts, dur int64
}

// step builds the timeline of step k deterministically from its own seed,
// so the host and device sections (written apart) agree.
func (g *gen) step(k int) []op {
	rng := rand.New(rand.NewSource(g.cfg.Seed*1_000_003 + int64(k)))
	ops := make([]op, g.cfg.OpsPerStep)
	t := g.stepStart(k)
	devFree := map[int64]int64{stream: t, ncclStrm: t}
	corr := g.corrBase(k)
	ext := int64(k)*int64(g.cfg.OpsPerStep)*2 + 10
	for i := range ops {
		o := &ops[i]
		o.ts = t + 2000
		o.dur = 8000 + rng.Int63n(40000)
		o.pyTS, o.pyDr = o.ts-1000, o.dur+1500
		o.cts = o.ts + 1000 + rng.Int63n(o.dur/2)
		o.cdur = 3000 + rng.Int63n(6000)
		o.corr = corr
		o.ext = ext
		o.tid = mainTID
		if i >= len(ops)-g.cfg.Backward {
			o.tid = gradTID
		}
		corr += 2
		ext++
		n := int64(k)*int64(g.cfg.OpsPerStep) + int64(i)
		switch {
		case g.cfg.GraphEvery > 0 && n%int64(g.cfg.GraphEvery) == int64(g.cfg.GraphEvery-1):
			o.kind, o.call = 3, "cudaGraphLaunch"
		case i%101 == 50:
			o.kind, o.call = 4, "cudaLaunchKernel"
		case i%31 == 7:
			o.kind, o.call = 1, "cudaMemcpyAsync"
		case i%37 == 11:
			o.kind, o.call = 2, "cudaMemsetAsync"
		default:
			o.kind, o.call = 0, "cudaLaunchKernel"
		}
		nk := 1
		if o.kind == 3 {
			nk = g.cfg.GraphKernels
		}
		for j := 0; j < nk; j++ {
			d := devEv{cat: "kernel", strm: stream, dur: 1500 + rng.Int63n(maxDevDur-1500)}
			switch o.kind {
			case 1:
				d.cat, d.name = "gpu_memcpy", "Memcpy DtoD (Device -> Device)"
			case 2:
				d.cat, d.name = "gpu_memset", "Memset (Device)"
			case 4:
				d.name, d.strm = ncclName, ncclStrm
			default:
				d.name = kernelNames[rng.Intn(len(kernelNames))]
			}
			d.ts = max(devFree[d.strm], o.cts+o.cdur+2000)
			devFree[d.strm] = d.ts + d.dur + 1000
			o.dev = append(o.dev, d)
		}
		if i%3 == 0 {
			o.extraCall, o.extraCorr, o.extraTS = "cudaStreamIsCapturing", o.corr+1, o.cts+o.cdur+500
		}
		t = o.ts + o.dur
	}
	return ops
}

type gen struct {
	cfg   Config
	steps int
	// per-step device spans per stream, for the annotations
	ann []map[int64][2]int64
}

// maxDevDur bounds a device event's duration (ns).
const maxDevDur = 60_000

// stepLen bounds a step's host and device time, so steps never overlap: a
// host op takes at most 52 µs, a device event 61 µs with its gap, and a
// graph launch replays GraphKernels of them.
func (g *gen) stepLen() int64 {
	ops := int64(g.cfg.OpsPerStep)
	graphs := ops/int64(g.cfg.GraphEvery) + 1
	return ops*52_000 + (ops+graphs*int64(g.cfg.GraphKernels))*(maxDevDur+1000) + 10_000_000
}
func (g *gen) stepStart(k int) int64  { return g.orphanEnd() + 1_000_000 + int64(k)*g.stepLen() }
func (g *gen) orphanEnd() int64       { return start + int64(g.cfg.Orphans)*(maxDevDur+1000) }
func (g *gen) corrBase(k int) int64   { return 1_000_000 + int64(k)*int64(g.cfg.OpsPerStep)*2 }
func (g *gen) orphanCorr(i int) int64 { return 1_000_000 - int64(g.cfg.Orphans) - 10 + int64(i) }
func (g *gen) tailCorr(i int) int64   { return g.corrBase(g.steps) + int64(i) }
func (g *gen) tailStart() int64       { return g.stepStart(g.steps) }
func (g *gen) windowEnd() int64       { return g.tailStart() + 1_000_000 }

// Write writes one trace to out.
func Write(out io.Writer, cfg Config) (Stats, error) {
	if cfg.OpsPerStep <= 0 {
		cfg.OpsPerStep = 2000
	}
	if cfg.Orphans == 0 {
		cfg.Orphans = 200
	}
	if cfg.GraphEvery == 0 {
		cfg.GraphEvery = 97
	}
	if cfg.GraphKernels == 0 {
		cfg.GraphKernels = 20
	}
	if cfg.TailLaunches == 0 {
		cfg.TailLaunches = 7
	}
	g := &gen{cfg: cfg}
	// Size one step to choose the number of steps.
	probe := &w{bw: bufio.NewWriter(io.Discard)}
	g.steps = 1
	ops := g.step(0)
	var st Stats
	g.host(probe, 0, ops, &st)
	g.device(probe, 0, ops, &st)
	g.steps = int(max(1, cfg.TargetBytes/max(probe.n, 1)))
	g.ann = make([]map[int64][2]int64, g.steps)

	st = Stats{Steps: g.steps}
	o := &w{bw: bufio.NewWriterSize(out, 1<<20)}
	o.raw(header)
	for k := 0; k < g.steps; k++ {
		g.host(o, k, g.step(k), &st)
	}
	g.orphans(o, &st)
	for k := 0; k < g.steps; k++ {
		g.device(o, k, g.step(k), &st)
	}
	g.tail(o, &st)
	g.trailer(o, &st)
	st.Bytes = o.n
	st.Events = o.ev
	return st, o.bw.Flush()
}

const header = `{
  "schemaVersion": 1,
  "deviceProperties": [
    {
      "id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045149696,
      "computeMajor": 9, "computeMinor": 0,
      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
      "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32,
      "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 233472,
      "numSms": 132, "sharedMemPerBlockOptin": 232448
    }
  ],
  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8, "pg_count": 1, "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 8, "ranks": [0, 1, 2, 3, 4, 5, 6, 7]}], "nccl_version": "2.21.5"},
  "cupti_version": 22,
  "cuda_runtime_version": 12040,
  "cuda_driver_version": 12090,
  "record_shapes": 1,
  "with_stack": 0,
  "traceEvents": [
`

// host writes step k's host events: the step annotation, ops and their
// Python frames.
func (g *gen) host(o *w, k int, ops []op, st *Stats) {
	s0 := g.stepStart(k)
	last := ops[len(ops)-1]
	o.x("user_annotation", "ProfilerStep#"+strconv.Itoa(k+100), pid, mainTID, s0, last.ts+last.dur-s0+1000)
	o.s(",\n    \"args\": {\n      \"External id\": ")
	o.int(int64(k) + 1)
	o.s(", \"Record function id\": 0, \"Ev Idx\": ")
	o.int(int64(k))
	o.s("\n    }\n  },\n")
	o.flush()
	for i := range ops {
		op := &ops[i]
		o.x("python_function", "nn.Module: Linear_"+strconv.Itoa(i%24), pid, mainTID, op.pyTS, op.pyDr)
		o.s(",\n    \"args\": {\n      \"Python parent id\": ")
		o.int(int64(i))
		o.s(", \"Python id\": ")
		o.int(int64(i) + 1)
		o.s(", \"Python thread\": 0\n    }\n  },\n")
		o.x("cpu_op", opNames[i%len(opNames)], pid, op.tid, op.ts, op.dur)
		o.s(",\n    \"args\": {\n      \"External id\": ")
		o.int(op.ext)
		o.s(",\"Record function id\": 0, \"Ev Idx\": ")
		o.int(op.ext - 1)
		o.s(", \"Input Dims\": [[8, 1024, 4096], [4096, 4096], [4096]], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"], \"Input Strides\": [[4194304, 4096, 1], [4096, 1], [1]], \"Concrete Inputs\": [\"\", \"\", \"\"]\n    }\n  },\n")
		o.flush()
	}
}

// orphans writes kernels launched before the window: their calls were
// never recorded. Their times depend on the seed, as every other time
// does: traces of two seeds are two recordings, and a run of them tells
// one recording read twice by its earliest dispatches
// (analysis.Earliest).
func (g *gen) orphans(o *w, st *Stats) {
	t := start
	shift := ((g.cfg.Seed%(maxDevDur-2000))*104729%(maxDevDur-2000) + maxDevDur - 2000) % (maxDevDur - 2000)
	for i := 0; i < g.cfg.Orphans; i++ {
		d := 2000 + (int64(i)*7919+shift)%(maxDevDur-2000)
		g.kernel(o, kernelNames[i%len(kernelNames)], "kernel", stream, t, d, g.orphanCorr(i), 0, st)
		st.Orphans++
		st.OrphanNS += d
		t += d + 1000
	}
}

// device writes step k's device section in CUPTI order: each device event,
// then its launch call, its flows, and other calls.
func (g *gen) device(o *w, k int, ops []op, st *Stats) {
	span := map[int64][2]int64{}
	for i := range ops {
		op := &ops[i]
		for _, d := range op.dev {
			g.kernel(o, d.name, d.cat, d.strm, d.ts, d.dur, op.corr, op.ext, st)
			if op.tid != mainTID {
				st.Backward++
				continue
			}
			sp, ok := span[d.strm]
			if !ok {
				sp[0] = d.ts
			}
			sp[1] = max(sp[1], d.ts+d.dur)
			span[d.strm] = sp
		}
		if op.kind == 3 {
			st.GraphLaunches++
			st.GraphEvents += int64(len(op.dev))
		}
		g.call(o, op.call, op.tid, op.cts, op.cdur, op.corr, op.ext, st)
		g.flow(o, 's', op.corr, pid, op.tid, op.cts)
		g.flow(o, 'f', op.corr, 0, op.dev[0].strm, op.dev[0].ts)
		if op.extraCall != "" {
			g.call(o, op.extraCall, op.tid, op.extraTS, 1500, op.extraCorr, op.ext, st)
		}
	}
	if k < len(g.ann) {
		g.ann[k] = span
	}
}

func (g *gen) kernel(o *w, name, cat string, strm, ts, dur, corr, ext int64, st *Stats) {
	o.x(cat, name, 0, strm, ts, dur)
	o.s(",\n    \"args\": {\n      ")
	if ext > 0 {
		o.s("\"External id\": ")
		o.int(ext)
		o.s(",\n      ")
	}
	o.s("\"queued\": 0, \"device\": 0, \"context\": 1,\n      \"stream\": ")
	o.int(strm)
	o.s(", \"correlation\": ")
	o.int(corr)
	if cat == "kernel" {
		o.s(",\n      \"registers per thread\": 128,\n      \"shared memory\": 49152,\n      \"blocks per SM\": 0.969697,\n      \"warps per SM\": 3.878788,\n      \"grid\": [128, 1, 1],\n      \"block\": [128, 1, 1],\n      \"est. achieved occupancy %\": 6")
	} else {
		o.s(",\n      \"bytes\": 33554432, \"memory bandwidth (GB/s)\": 1843.2")
	}
	o.s("\n    }\n  },\n")
	o.flush()
	st.DeviceEvents++
	st.DeviceNS += dur
	switch cat {
	case "kernel":
		st.Kernels++
	case "gpu_memcpy":
		st.Memcpy++
	case "gpu_memset":
		st.Memset++
	}
}

func (g *gen) call(o *w, name string, tid, ts, dur, corr, ext int64, st *Stats) {
	o.x("cuda_runtime", name, pid, tid, ts, dur)
	o.s(",\n    \"args\": {\n      \"External id\": ")
	o.int(ext)
	o.s(", \"cbid\": 211, \"correlation\": ")
	o.int(corr)
	o.s("\n    }\n  },\n")
	o.flush()
	st.RuntimeCalls++
}

func (g *gen) flow(o *w, ph byte, id, p, t, ts int64) {
	o.s("  {\n    \"ph\": \"")
	o.buf = append(o.buf, ph)
	o.s("\", \"id\": ")
	o.int(id)
	o.s(", \"pid\": ")
	o.int(p)
	o.s(", \"tid\": ")
	o.int(t)
	o.s(", \"ts\": ")
	o.ts(ts)
	o.s(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"")
	if ph == 'f' {
		o.s(", \"bp\": \"e\"")
	}
	o.s("\n  },\n")
	o.flush()
	o.ev++
}

// tail writes launch calls at the end of the window whose work Kineto
// dropped as out of range.
func (g *gen) tail(o *w, st *Stats) {
	t := g.tailStart()
	for i := 0; i < g.cfg.TailLaunches; i++ {
		g.call(o, "cudaLaunchKernel", mainTID, t+int64(i)*10000, 4000, g.tailCorr(i), 1, st)
		st.TailLaunches++
	}
}

// trailer writes the GPU step annotations, metadata, the window span and
// markers, and the keys Kineto writes after traceEvents.
func (g *gen) trailer(o *w, st *Stats) {
	for k := 0; k < g.steps; k++ {
		for _, strm := range []int64{stream, ncclStrm} {
			sp, ok := g.ann[k][strm]
			if !ok {
				continue
			}
			// Kineto widens GPU annotations by 1 ns before, 2 ns after.
			o.x("gpu_user_annotation", "ProfilerStep#"+strconv.Itoa(k+100), 0, strm, sp[0]-1, sp[1]-sp[0]+3)
			o.s(",\n    \"args\": {\n      \"External id\": ")
			o.int(int64(k) + 1)
			o.s("\n    }\n  },\n")
			o.flush()
			st.Annotations++
		}
	}
	meta := []string{
		`{"name": "process_name", "ph": "M", "ts": %s, "pid": 0, "tid": 0, "args": {"name": "python3"}}`,
		`{"name": "process_labels", "ph": "M", "ts": %s, "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}}`,
		`{"name": "thread_name", "ph": "M", "ts": %s, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}}`,
		`{"name": "thread_name", "ph": "M", "ts": %s, "pid": 0, "tid": 25, "args": {"name": "stream 25 "}}`,
		`{"name": "process_labels", "ph": "M", "ts": %s, "pid": 25286, "tid": 0, "args": {"labels": "CPU"}}`,
	}
	o.ts(start)
	tsText := string(o.buf)
	o.buf = o.buf[:0]
	for _, m := range meta {
		o.raw("  " + fmt.Sprintf(m, tsText) + ",\n")
		o.ev++
	}
	o.s("  {\n    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ")
	o.ts(start)
	o.s(", \"dur\": ")
	o.ts(g.windowEnd() - start)
	o.s(",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch Profiler (0)\",\n    \"args\": {\n      \"Op count\": 0\n    }\n  },\n")
	o.flush()
	o.ev++
	o.s(`  {
    "name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g",
    "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": `)
	o.ts(start)
	o.s(`
  },
  {
    "name": "Record Window End", "ph": "i", "s": "g",
    "pid": "", "tid": "", "ts": `)
	o.ts(g.windowEnd() + 1000)
	o.s(`
  }
  ],
  "traceName": "/tmp/kinetogen.pt.trace.json",
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": `)
	o.int(base)
	o.s("\n}\n")
	o.flush()
	o.ev += 2
}
