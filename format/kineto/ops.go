package kineto

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// Host-op attribution (format.Options.Ops): the host op that launched each
// dispatch is the cpu_op (or user_annotation, a record_function range such
// as "## Call CompiledFxGraph …") whose span encloses the dispatch's launch
// call on the call's thread (same pid and tid). File order is not time
// order, so every host op span is collected while scanning — memory O(host
// op events), 32 bytes each, links included — and sorted per thread at the
// end (unless the file had them in order); a stack sweep gives each span
// its parent, and each launch is placed by a binary search and a walk up
// the parents. Spans of the same signature (name, record_shapes args,
// module path) share one capture.Op: the table grows with signatures,
// never with calls.
//
// python_function events named "nn.Module: X" (with_modules) give the
// module path; other Python frames are left unread.

// hostSpan is one host op call or module frame (32 bytes). The links
// build sets are written into the span itself: a second table of them
// was as much fresh memory again, and fresh memory (page faults, zeroing)
// was what attribution cost most.
type hostSpan struct {
	start, end int64
	// id is the span's signature (an op: hostOps.sigs) or module name
	// (hostOps.mods) while collecting; build turns an op's into its ref
	// (signature and module path: hostOps.refs). The top bits hold the
	// kind (spanModule) and the mark of an op a launch lies under
	// (spanUsed: counted in Calls).
	id uint32
	// link is the span's thread (its index in reader.threads) while
	// collecting and sorting, and its parent span (-1: none) once built.
	link int32
	// Set by build: the nearest op ancestor (excluding itself) and the
	// outermost op ancestor-or-self (-1 when none).
	opAnc, outer int32
}

// The flags in hostSpan.id, and the most signatures, module names or
// refs it can name.
const (
	spanModule = 1 << 31 // a python_function "nn.Module: X" frame; else a cpu_op or user_annotation
	spanUsed   = 1 << 30
	spanIDMask = spanUsed - 1
	maxSpanID  = spanIDMask
)

func (sp *hostSpan) module() bool { return sp.id&spanModule != 0 }

// opSig is a host op signature without its module path.
type opSig struct {
	name, dims, types, concrete string
	kind                        string
}

// opRef is a (signature, module path) pair: one capture.Op once a
// dispatch references it.
type opRef struct {
	sig, path uint32
	id        capture.OpID
	calls     int64
	hostNS    int64
	graphs    int64
}

type pathRec struct{ parent, name uint32 }

type hostOps struct {
	// spans are collected in chunks of spanChunk, every one full but the
	// last (at), and sorted in place where the file's order was not time
	// order (build).
	spans  [][]hostSpan
	n      int32 // spans in all
	sigs   []opSig
	sigIdx map[sigKey]uint32

	// Op names and canonical args (opArgs), interned; rawIdx maps an arg
	// as written to its canonical id (arg).
	names    []string
	nameIdx  map[string]uint32
	canons   []string // canons[0] is "" (absent)
	canonIdx map[string]uint32
	rawIdx   map[string]uint32
	canonBuf []byte

	mods   []string
	modIdx map[string]uint32
	paths  []pathRec // paths[0] is the empty path
	pathIx map[pathRec]uint32

	// lastThread caches the thread of the last span: a thread's ops
	// come in runs.
	lastThread threadKey
	lastIdx    int32

	// After build: each thread's spans are at(lo[t]) to at(hi[t]-1);
	// finger[t] is where the last launch on it was placed (place).
	lo, hi, finger []int32
	refs           []opRef // by id (hostSpan.id of an op, once built)
	refIdx         map[uint64]uint32

	noTime int64 // host ops without usable times (or past maxSpanID): not placed
	// Dispatches by outcome, for the inventory.
	attributed, underNone, noLaunch int64
}

func newHostOps() *hostOps {
	return &hostOps{
		sigIdx:   make(map[sigKey]uint32),
		nameIdx:  make(map[string]uint32),
		canons:   []string{""},
		canonIdx: map[string]uint32{"": 0},
		rawIdx:   make(map[string]uint32),
		modIdx:   make(map[string]uint32),
		paths:    []pathRec{{}},
		pathIx:   make(map[pathRec]uint32),
		refIdx:   make(map[uint64]uint32),
		lastIdx:  -1,
	}
}

var modulePrefix = []byte("nn.Module: ")

// hostOpSpan collects the host op event just parsed (r.ev), when it can
// enclose a launch: an X event with usable times, not a ProfilerStep#N
// range (the step is the program), not a Python frame other than a module.
func (r *reader) hostOpSpan() {
	e := &r.ev
	h := r.ops
	if e.ph != 'X' {
		return
	}
	kind := uint32(0)
	switch e.cat {
	case catPythonFunction:
		if !bytes.HasPrefix(e.name, modulePrefix) {
			return
		}
		kind = spanModule
	case catUserAnnotation, catOperator2021:
		if bytes.HasPrefix(e.name, []byte("ProfilerStep#")) {
			return
		}
	}
	if !e.hasTs || e.badTs || !e.hasDur || e.badDur || e.dur < 0 {
		h.noTime++
		return
	}
	if k := (threadKey{pid: e.pid.n, tid: e.tid.n}); k != h.lastThread || h.lastIdx < 0 {
		h.lastThread, h.lastIdx = k, int32(r.internThread(e))
	}
	id := uint32(0)
	if kind == spanModule {
		id = h.module(e.name)
	} else {
		id = h.sig(e)
	}
	if id > maxSpanID || h.n >= maxSpanID {
		// Past what a span can name (tens of GB of host ops): not
		// placed, their launches are under no op.
		h.noTime++
		return
	}
	last := len(h.spans) - 1
	if last < 0 || len(h.spans[last]) == spanChunk {
		h.spans = append(h.spans, make([]hostSpan, 0, spanChunk))
		last++
	}
	h.spans[last] = append(h.spans[last], hostSpan{start: e.ts, end: e.ts + e.dur, id: id | kind, link: h.lastIdx})
	h.n++
}

// spanChunk is how many spans one chunk holds: appending to one growing
// slice copied every span again at each doubling, and joining chunks
// into one slice copied them once more.
const (
	spanShift = 13
	spanChunk = 1 << spanShift
)

// at is span i.
func (h *hostOps) at(i int32) *hostSpan { return &h.spans[i>>spanShift][i&(spanChunk-1)] }

func (h *hostOps) module(name []byte) uint32 { return internString(h.modIdx, &h.mods, name) }

// sigKey is a signature by ids: name, canonical args, category.
type sigKey struct {
	name, dims, types, concrete uint32
	cat                         catID
}

// sig interns the signature of host op e.
func (h *hostOps) sig(e *event) uint32 {
	kind := "cpu_op"
	if e.cat != catCPUOp && e.cat != catOperator2021 {
		kind = "user_annotation"
	}
	raw := e.name
	if len(raw) == 0 {
		// The trace names no op here: its launches are shown under an op
		// that says so, never under the op around it (nor an empty name,
		// which the model refuses).
		raw = []byte("(" + kind + " without a name)")
	}
	name := internString(h.nameIdx, &h.names, raw)
	a := &e.shape
	k := sigKey{name: name, dims: a.dims, types: a.types, concrete: a.concrete, cat: e.cat}
	if id, ok := h.sigIdx[k]; ok {
		return id
	}
	id := uint32(len(h.sigs))
	h.sigs = append(h.sigs, opSig{name: h.names[name], dims: h.canons[a.dims], types: h.canons[a.types], concrete: h.canons[a.concrete], kind: kind})
	h.sigIdx[k] = id
	return id
}

// build sorts the spans per thread and links each to its parent.
func (h *hostOps) build(threads int) {
	// Profilers mostly write a thread's ops in time order: a sorted file
	// is checked in one pass and not sorted again.
	if !h.sorted() {
		all := make([]hostSpan, 0, h.n)
		for _, c := range h.spans {
			all = append(all, c...)
		}
		slices.SortFunc(all, spanOrder)
		for k := range h.spans {
			h.spans[k] = all[k<<spanShift : min((k+1)<<spanShift, len(all))]
		}
	}
	h.lo, h.hi, h.finger = make([]int32, threads), make([]int32, threads), make([]int32, threads)
	// The open spans, with their module paths.
	type open struct {
		i    int32
		path uint32
	}
	var stack []open
	i, prev := int32(0), int32(-1) // span index, thread of the span before
	for _, c := range h.spans {
		for k := range c {
			sp := &c[k]
			th := sp.link
			known := th >= 0 && int(th) < threads
			if th != prev {
				stack, prev = stack[:0], th
				if known {
					h.lo[th], h.finger[th] = i, i
				}
			}
			if known {
				h.hi[th] = i + 1
			}
			// A span that ends before this one ends cannot enclose it
			// (nor, starting earlier, anything after it).
			for len(stack) > 0 && h.at(stack[len(stack)-1].i).end < sp.end {
				stack = stack[:len(stack)-1]
			}
			sp.link, sp.opAnc, sp.outer = -1, -1, -1
			path := uint32(0)
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				p := h.at(top.i)
				sp.link, sp.outer, path = top.i, p.outer, top.path
				if !p.module() {
					sp.opAnc = top.i
				} else {
					sp.opAnc = p.opAnc
				}
			}
			if sp.module() {
				path = h.pathOf(path, sp.id&spanIDMask)
			} else {
				if sp.outer < 0 {
					sp.outer = i
				}
				sp.id = h.refOf(sp.id, path)
			}
			stack = append(stack, open{i, path})
			i++
		}
	}
}

// refOf returns the ref id of an op signature under a module path.
func (h *hostOps) refOf(sig, path uint32) uint32 {
	return intern(h.refIdx, &h.refs, uint64(sig)<<32|uint64(path), opRef{sig: sig, path: path})
}

// sorted reports whether the spans are in spanOrder.
func (h *hostOps) sorted() bool {
	var prev *hostSpan
	for _, c := range h.spans {
		for k := range c {
			if prev != nil && spanCmp(prev, &c[k]) > 0 {
				return false
			}
			prev = &c[k]
		}
	}
	return true
}

func (h *hostOps) pathOf(parent, mod uint32) uint32 {
	k := pathRec{parent: parent, name: mod}
	return intern(h.pathIx, &h.paths, k, k)
}

// pathString is a module path, outermost first.
func (h *hostOps) pathString(p uint32) string {
	var parts []string
	for ; p != 0; p = h.paths[p].parent {
		parts = append(parts, h.mods[h.paths[p].name])
	}
	slices.Reverse(parts)
	return strings.Join(parts, "/")
}

// place finds the innermost and outermost op spans around time t on
// thread th; -1 when none.
func (h *hostOps) place(th uint32, t int64) (inner, outer int32) {
	if int(th) >= len(h.lo) {
		return -1, -1
	}
	// The span before the first starting after t, or the nearest of its
	// ancestors that has not ended by t, is the innermost around t.
	lo := h.lo[th]
	i := h.firstAfter(th, t) - 1
	for i >= lo && h.at(i).end < t {
		i = h.at(i).link
	}
	if i < lo {
		return -1, -1
	}
	sp := h.at(i)
	if !sp.module() {
		return i, sp.outer
	}
	return sp.opAnc, sp.outer
}

// firstAfter returns the index of thread th's first span starting after
// t (its hi when none). Launches are placed mostly in time order: the
// search gallops from where the thread's last one was placed (finger),
// then bisects.
func (h *hostOps) firstAfter(th uint32, t int64) int32 {
	lo, hi, f := h.lo[th], h.hi[th], h.finger[th]
	var a, b int32 // the answer is in [a, b]: a-1 starts by t, b after it (or is hi)
	if f < hi && h.at(f).start <= t {
		prev := f
		for step := int32(1); ; step *= 2 {
			n := prev + step
			if n >= hi || n < prev { // (n < prev: past int32)
				a, b = prev+1, hi
				break
			}
			if h.at(n).start > t {
				a, b = prev+1, n
				break
			}
			prev = n
		}
	} else {
		prev := f
		for step := int32(1); ; step *= 2 {
			n := prev - step
			if n < lo {
				a, b = lo, prev
				break
			}
			if h.at(n).start <= t {
				a, b = n+1, prev
				break
			}
			prev = n
		}
	}
	for a < b {
		m := int32(uint32(a+b) >> 1)
		if h.at(m).start > t {
			b = m
		} else {
			a = m + 1
		}
	}
	h.finger[th] = a
	return a
}

// attribute sets d.Op and d.OuterOp for the dispatch rec stands for.
// graphFirst says rec is the first kernel a graph launch replayed.
func (h *hostOps) attribute(c *capture.Capture, rec *drec, d *capture.Dispatch, graphFirst bool) {
	linked := rec.state == stLaunched || rec.state == stGraph
	if !linked {
		if rec.state != stLaunchedNoTime {
			h.noLaunch++
		} else {
			h.underNone++
		}
		return
	}
	if rec.ldur < 0 {
		h.underNone++ // the launch call's times were dropped: it cannot be placed
		return
	}
	inner, outer := h.place(rec.thread, rec.lts)
	if inner < 0 {
		h.underNone++
		return
	}
	h.attributed++
	// Count the calls this launch lies under, up to the first already
	// counted (its ancestors are counted too).
	for j := inner; j >= 0 && h.at(j).id&spanUsed == 0; j = h.at(j).opAnc {
		sp := h.at(j)
		sp.id |= spanUsed
		ref := h.ref(j)
		ref.calls++
		ref.hostNS = capture.SatAdd(ref.hostNS, sp.end-sp.start)
	}
	in := h.ref(inner)
	d.Op = h.opID(c, in)
	if graphFirst {
		in.graphs++
	}
	if outer >= 0 {
		d.OuterOp = h.opID(c, h.ref(outer))
	}
}

// ref is the (signature, module path) record of op span i.
func (h *hostOps) ref(i int32) *opRef { return &h.refs[h.at(i).id&spanIDMask] }

// opID returns the capture op of a ref, added on first use.
func (h *hostOps) opID(c *capture.Capture, ref *opRef) capture.OpID {
	if ref.id == capture.NoOp {
		s := &h.sigs[ref.sig]
		ref.id = c.AddOp(capture.Op{Name: s.name, Kind: s.kind, Path: h.pathString(ref.path), Dims: s.dims, Types: s.types, Concrete: s.concrete, HostValid: true})
	}
	return ref.id
}

// finish writes the counts into the op table.
func (h *hostOps) finish(c *capture.Capture) {
	for k := range h.refs {
		ref := &h.refs[k]
		if o := c.Op(ref.id); o != nil {
			o.Calls, o.HostNS, o.GraphLaunches = ref.calls, ref.hostNS, ref.graphs
		}
	}
	c.OpSource = "Kineto: the innermost cpu_op or user_annotation (record_function) range enclosing the launch call on its thread; outermost op as well; module path from nn.Module python_function events where recorded. A graph replay's kernels take the op around their graph launch."
	if h.noTime > 0 {
		// Said, as a number: a launch inside such an op is counted under
		// the op around it, or under no op.
		c.OpSource += fmt.Sprintf(" %s not placed (no usable ts and dur, or past %d ops): a launch inside one counts under the op around it, or under no op.",
			units.Plural(h.noTime, "host op was", "host ops were"), maxSpanID)
	}
}

// attributeOp sets the host ops of dispatch d (from rec) while the log is
// replayed.
func (r *reader) attributeOp(c *capture.Capture, rec *drec, d *capture.Dispatch) {
	first := false
	if rec.state == stGraph {
		if g := r.link.graphs[rec.corr]; g != nil && g.kernels == 0 {
			first = true
		}
	}
	r.ops.attribute(c, rec, d, first)
}

// graphNote is a program's note on its graph-replayed dispatches.
func (r *reader) graphNote(n int64) string {
	if r.ops != nil {
		return fmt.Sprintf("%d dispatches were replayed by graph launches: each is linked to its launch call and attributed to the host op around that launch (per-kernel ops inside the graph are not recorded)", n)
	}
	return fmt.Sprintf("%d dispatches were replayed by graph launches: each is linked to its launch call, but per-op attribution is unavailable for them", n)
}

// opDevice is the product name of the devices the dispatches ran on, when
// deviceProperties names exactly one kind among them.
func (r *reader) opDevice() string {
	used := map[int64]bool{}
	for _, q := range r.queues {
		if q.devKnown {
			used[q.key.dev] = true
		}
	}
	name := ""
	for _, d := range r.top.devices {
		if !d.hasID || !d.hasName || !used[d.id] || d.name == "" {
			continue
		}
		if name != "" && name != d.name {
			return ""
		}
		name = d.name
	}
	if name == "" {
		// ROCm device ids are HSA agent indices, not deviceProperties ids:
		// one product name across all devices still says it.
		for _, d := range r.top.devices {
			if d.hasName && d.name != "" && name != "" && name != d.name {
				return ""
			}
			if d.hasName && d.name != "" {
				name = d.name
			}
		}
	}
	return name
}

// spanOrder orders spans (link: their thread) by thread, then start; of
// two starting together the longer first (it encloses), and an op before
// a module frame of its exact span.
func spanOrder(a, b hostSpan) int { return spanCmp(&a, &b) }

func spanCmp(a, b *hostSpan) int {
	switch {
	case a.link != b.link:
		return cmp.Compare(a.link, b.link)
	case a.start != b.start:
		return cmp.Compare(a.start, b.start)
	case a.end != b.end:
		return cmp.Compare(b.end, a.end) // the longer one first: it encloses
	}
	return cmp.Compare(a.id&spanModule, b.id&spanModule) // an op encloses a module frame of its exact span
}
