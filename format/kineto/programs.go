package kineto

import (
	"container/heap"
	"fmt"
	"sort"

	"github.com/tallyprof/tally/capture"
)

// Programs (capture.Program) group the dispatches whose kernels are
// compared with each other. By default a dispatch belongs to the innermost
// gpu_user_annotation on its own device and stream whose span contains the
// dispatch's start — the annotation Kineto itself correlated the kernel
// with at launch, since a stream runs its work in launch order. The
// trailing step number is dropped, so ProfilerStep#550…#554 is one program
// "ProfilerStep" with 5 instances.
//
// A dispatch outside every GPU annotation falls back to the host's
// ProfilerStep#N range that encloses its launch call, on any thread (a
// graph replay's launch is its graph launch): the GPU step annotation only
// spans kernels launched under the main thread's annotations, so backward
// kernels, launched from the autograd engine's thread, would otherwise
// leave their step. The program says how many dispatches came by that
// rule. Dispatches with neither form "(no annotation)". --program-by
// gpu-annotation keeps GPU annotations only; stream makes one program per
// queue, none one program for everything.

type programMode uint8

const (
	byAnnotation programMode = iota
	byStream
	byNone
	byGPUAnnotation
)

func parseProgramMode(s string) (programMode, error) {
	switch s {
	case "", "annotation":
		return byAnnotation, nil
	case "gpu-annotation":
		return byGPUAnnotation, nil
	case "stream":
		return byStream, nil
	case "none":
		return byNone, nil
	}
	return 0, fmt.Errorf("unknown --program-by %q: use annotation, gpu-annotation, stream or none", s)
}

// hostStep is a host ProfilerStep#N range (any user_annotation of that
// name; Kineto writes one per step on the thread that called step()).
type hostStep struct {
	start, end int64
	name       string // e.g. "ProfilerStep#12"
}

// annotation is one gpu_user_annotation span.
type annotation struct {
	q          qkey
	start, end int64
	name       uint32 // index into reader.annNames
	ext        int64
	hasExt     bool
}

// progDef is a program before it has a dispatch (programs are added to
// the capture when their first dispatch is emitted, so none is empty).
type progDef struct {
	name      string
	instances int64
	note      string
	id        capture.ProgramID
	created   bool
	// Per-program counts for notes.
	graph, noLaunch, byStep int64
}

// segments map time to the innermost annotation of one queue.
type segments struct {
	start []int64
	ann   []int32 // annotation index, -1 outside every annotation
}

// programs resolves a dispatch's program and instance.
type programs struct {
	mode    programMode
	defs    []progDef
	annDef  []int32 // per annotation: its program definition
	annInst []int64 // per annotation: its instance ordinal
	byQueue map[qkey]*segments
	outside int32 // definition for dispatches outside annotations, -1 until needed
	queueDf map[uint32]int32
	// Host step ranges sorted by start, and their definitions/instances.
	steps    []hostStep
	stepDef  []int32
	stepInst []int64
}

const unannotated = "(no annotation)"

func (r *reader) buildPrograms() *programs {
	p := &programs{mode: r.mode, outside: -1, queueDf: make(map[uint32]int32)}
	if p.mode != byAnnotation && p.mode != byGPUAnnotation {
		return p
	}
	type instKey struct {
		kind uint8 // 0 step, 1 External id, 2 the span itself
		v    int64
	}
	type inst struct {
		key   instKey
		first int64
	}
	defIdx := map[string]int32{}
	insts := map[int32]map[instKey]int64{} // def → key → earliest start
	p.annDef = make([]int32, len(r.anns))
	annKey := make([]instKey, len(r.anns))
	// def returns the definition of a program name, creating it.
	def := func(base string) int32 {
		if base == "" {
			// An annotation whose name the file does not give (a damaged
			// key, an empty string) still names its program: the model
			// never holds an unnamed one.
			base = unnamedAnnotation
		}
		d, ok := defIdx[base]
		if !ok {
			d = int32(len(p.defs))
			defIdx[base] = d
			p.defs = append(p.defs, progDef{name: base})
			insts[d] = map[instKey]int64{}
		}
		return d
	}
	// seen records an instance of d starting at start.
	seen := func(d int32, k instKey, start int64) {
		if first, ok := insts[d][k]; !ok || start < first {
			insts[d][k] = start
		}
	}
	for i, a := range r.anns {
		base, step, stepped := stripStep(r.annNames[a.name])
		d := def(base)
		p.annDef[i] = d
		k := instKey{kind: 2, v: int64(i)}
		switch {
		case stepped:
			k = instKey{kind: 0, v: step}
		case a.hasExt:
			k = instKey{kind: 1, v: a.ext}
		}
		annKey[i] = k
		seen(d, k, a.start)
	}
	if p.mode == byAnnotation {
		p.steps = append([]hostStep(nil), r.hostSteps...)
		sort.SliceStable(p.steps, func(i, j int) bool { return p.steps[i].start < p.steps[j].start })
		p.stepDef = make([]int32, len(p.steps))
		for i, hs := range p.steps {
			base, step, _ := stripStep(hs.name)
			p.stepDef[i] = def(base)
			seen(p.stepDef[i], instKey{kind: 0, v: step}, hs.start)
		}
	}
	// Instance ordinals: by step number for stepped programs, else by
	// first start.
	ordinal := map[int32]map[instKey]int64{}
	for d, m := range insts {
		list := make([]inst, 0, len(m))
		for k, first := range m {
			list = append(list, inst{k, first})
		}
		sort.Slice(list, func(i, j int) bool {
			a, b := list[i], list[j]
			if a.key.kind == 0 && b.key.kind == 0 {
				return a.key.v < b.key.v
			}
			if a.first != b.first {
				return a.first < b.first
			}
			return a.key.v < b.key.v
		})
		ordinal[d] = make(map[instKey]int64, len(list))
		for i, it := range list {
			ordinal[d][it.key] = int64(i)
		}
		p.defs[d].instances = int64(len(list))
	}
	p.annInst = make([]int64, len(r.anns))
	for i := range r.anns {
		p.annInst[i] = ordinal[p.annDef[i]][annKey[i]]
	}
	p.stepInst = make([]int64, len(p.steps))
	for i, hs := range p.steps {
		_, step, _ := stripStep(hs.name)
		p.stepInst[i] = ordinal[p.stepDef[i]][instKey{kind: 0, v: step}]
	}
	// Segments per queue.
	perQueue := map[qkey][]int32{}
	for i, a := range r.anns {
		perQueue[a.q] = append(perQueue[a.q], int32(i))
	}
	p.byQueue = make(map[qkey]*segments, len(perQueue))
	for q, idx := range perQueue {
		p.byQueue[q] = flatten(r.anns, idx)
	}
	return p
}

// flatten turns possibly nested spans into disjoint segments, each owned
// by the latest-starting span covering it (the innermost when nested).
func flatten(anns []annotation, idx []int32) *segments {
	sort.Slice(idx, func(i, j int) bool { return anns[idx[i]].start < anns[idx[j]].start })
	bounds := make([]int64, 0, 2*len(idx))
	for _, i := range idx {
		bounds = append(bounds, anns[i].start, anns[i].end)
	}
	sort.Slice(bounds, func(i, j int) bool { return bounds[i] < bounds[j] })
	seg := &segments{}
	h := &spanHeap{anns: anns}
	next := 0
	for bi, b := range bounds {
		if bi > 0 && b == bounds[bi-1] {
			continue
		}
		for next < len(idx) && anns[idx[next]].start <= b {
			heap.Push(h, idx[next])
			next++
		}
		for h.Len() > 0 && anns[h.idx[0]].end <= b {
			heap.Pop(h)
		}
		owner := int32(-1)
		if h.Len() > 0 {
			owner = h.idx[0]
		}
		if n := len(seg.ann); n > 0 && seg.ann[n-1] == owner {
			continue
		}
		seg.start = append(seg.start, b)
		seg.ann = append(seg.ann, owner)
	}
	return seg
}

// spanHeap is a max-heap by start, so its top is the latest-starting open
// span. Spans that ended are removed lazily when they reach the top; one
// that ended below the top cannot own a segment while a later-starting
// open span is above it.
type spanHeap struct {
	anns []annotation
	idx  []int32
}

func (h *spanHeap) Len() int { return len(h.idx) }
func (h *spanHeap) Less(i, j int) bool {
	a, b := h.anns[h.idx[i]], h.anns[h.idx[j]]
	if a.start != b.start {
		return a.start > b.start
	}
	return a.end < b.end // same start: the shorter is inner
}
func (h *spanHeap) Swap(i, j int) { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *spanHeap) Push(x any)    { h.idx = append(h.idx, x.(int32)) }
func (h *spanHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

// lookup returns the annotation owning time t on queue q, or -1.
func (s *segments) lookup(t int64) int32 {
	i := sort.Search(len(s.start), func(i int) bool { return s.start[i] > t }) - 1
	if i < 0 {
		return -1
	}
	return s.ann[i]
}

// of returns the program definition and instance of a dispatch.
func (p *programs) of(r *reader, d *drec) (def int32, instance int64) {
	switch p.mode {
	case byStream:
		if df, ok := p.queueDf[d.queue]; ok {
			return df, 0
		}
		df := int32(len(p.defs))
		p.defs = append(p.defs, progDef{name: r.queueLabel(d.queue), instances: 1})
		p.queueDf[d.queue] = df
		return df, 0
	case byNone:
		if p.outside < 0 {
			p.outside = int32(len(p.defs))
			p.defs = append(p.defs, progDef{name: "all", instances: 1, note: "--program-by none: every dispatch of the trace in one program"})
		}
		return p.outside, 0
	}
	if seg := p.byQueue[r.queues[d.queue].key]; seg != nil {
		if a := seg.lookup(d.ts); a >= 0 {
			return p.annDef[a], p.annInst[a]
		}
	}
	if i := p.stepOf(d); i >= 0 {
		p.defs[p.stepDef[i]].byStep++
		return p.stepDef[i], p.stepInst[i]
	}
	if p.outside < 0 {
		p.outside = int32(len(p.defs))
		note := "device events outside every gpu_user_annotation on their stream"
		if p.mode == byAnnotation {
			note += " whose launch call (if any) lies outside every host ProfilerStep range"
		}
		if len(p.annDef) == 0 {
			note = "the trace has no gpu_user_annotation: every dispatch is here (try --program-by stream)"
		}
		p.defs = append(p.defs, progDef{name: unannotated, instances: 1, note: note})
	}
	return p.outside, -1
}

// stepOf returns the host step range enclosing the dispatch's launch call,
// or -1 (no launch time, or none encloses it). Steps rarely nest; the
// latest-starting range that encloses the call wins.
func (p *programs) stepOf(d *drec) int {
	if len(p.steps) == 0 || (d.state != stLaunched && d.state != stGraph) || d.ldur < 0 {
		return -1
	}
	t := d.lts
	i := sort.Search(len(p.steps), func(i int) bool { return p.steps[i].start > t }) - 1
	for j := i; i >= 0 && j-i < 8; i-- {
		if p.steps[i].end > t {
			return i
		}
	}
	return -1
}

// unnamedAnnotation labels the program of an annotation without a name.
const unnamedAnnotation = "(annotation without a name)"
