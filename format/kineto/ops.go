package kineto

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tallyprof/tally/capture"
)

// Host-op attribution (format.Options.Ops): the host op that launched each
// dispatch is the cpu_op (or user_annotation, a record_function range such
// as "## Call CompiledFxGraph …") whose span encloses the dispatch's launch
// call on the call's thread (same pid and tid). File order is not time
// order, so every host op span is collected while scanning — memory O(host
// op events), 32 bytes each while reading, 52 once linked — and sorted per
// thread at the end; a stack sweep gives each span its parent, and each
// launch is placed by a binary search and a walk up the parents. Spans of the same signature
// (name, record_shapes args, module path) share one capture.Op: the table
// grows with signatures, never with calls.
//
// python_function events named "nn.Module: X" (with_modules) give the
// module path; other Python frames are left unread.

// opArgs are a cpu_op's record_shapes args, as canonical compact JSON.
type opArgs struct {
	dims, types, concrete          []byte
	hasDims, hasTypes, hasConcrete bool
}

func (a *opArgs) reset() {
	*a = opArgs{dims: a.dims[:0], types: a.types[:0], concrete: a.concrete[:0]}
}

// done reports whether every record_shapes arg was read: the rest of the
// args (strides, sequence numbers) is not used.
func (a *opArgs) done() bool { return a.hasDims && a.hasTypes && a.hasConcrete }

// maxCanon bounds one canonical arg: longer ones are cut (the op is then
// not modelled, as its shapes cannot be parsed).
const maxCanon = 4096

// opArg reads one record_shapes member of a cpu_op's args; false, nothing
// consumed, for other keys.
func (r *reader) opArg(k []byte) bool {
	a := &r.ev.shape
	switch string(k) {
	case "Input Dims":
		a.dims, a.hasDims = r.canon(a.dims[:0]), true
	case "Input type":
		a.types, a.hasTypes = r.canon(a.types[:0]), true
	case "Concrete Inputs":
		a.concrete, a.hasConcrete = r.canon(a.concrete[:0]), true
	default:
		return false
	}
	return true
}

// canon appends the JSON value at the scanner to dst without whitespace:
// arrays and numbers as written, strings with their escapes as written.
// Past maxCanon bytes the rest is validated and dropped.
func (r *reader) canon(dst []byte) []byte {
	s := r.s
	if len(dst) >= maxCanon {
		s.skipValue()
		return dst
	}
	switch c := s.nonWS(); {
	case c == '[':
		if s.arrayStart() {
			return append(dst, "[]"...)
		}
		dst = append(dst, '[')
		for first := true; ; first = false {
			if !first && len(dst) < maxCanon {
				dst = append(dst, ',')
			}
			dst = r.canon(dst)
			if !s.arrayNext() {
				break
			}
		}
		if len(dst) < maxCanon {
			dst = append(dst, ']')
		}
		return dst
	case c == '"':
		raw, _ := s.str()
		dst = append(dst, '"')
		dst = append(dst, raw...)
		return append(dst, '"')
	case c == '-' || isDigit(c):
		return append(dst, s.checkedNum()...)
	case c == 't':
		s.lit("true")
		return append(dst, "true"...)
	case c == 'f':
		s.lit("false")
		return append(dst, "false"...)
	case c == 'n':
		s.lit("null")
		return append(dst, "null"...)
	}
	s.skipValue() // an object: not part of any shape
	return append(dst, "{}"...)
}

// Span kinds.
const (
	spanOp     uint8 = iota // cpu_op or user_annotation
	spanModule              // python_function "nn.Module: X"
)

// hostSpan is one host op call or module frame, as collected (32 bytes:
// what build adds is kept apart, in spanLink).
type hostSpan struct {
	start, end int64
	thread     uint32
	sig        uint32 // opSig (spanOp) or module name (spanModule)
	kind       uint8
}

// spanLink is what build sets for the span of the same index: parent
// span, nearest op ancestor (excluding itself), outermost op
// ancestor-or-self (-1 when none), and the module path.
type spanLink struct {
	parent, opAnc, outer int32
	path                 uint32
	used                 bool // a launch lies under it (counted in Calls)
}

// opSig is a host op signature without its module path.
type opSig struct {
	name, dims, types, concrete string
	kind                        string
}

// opRef is a (signature, module path) pair: one capture.Op once a
// dispatch references it.
type opRef struct {
	id     capture.OpID
	calls  int64
	hostNS int64
	graphs int64
}

type pathRec struct{ parent, name uint32 }

type hostOps struct {
	links []spanLink // by span, set by build
	// Spans are collected in chunks (chunk, then chunks) and joined into
	// spans by build.
	chunk  []hostSpan
	chunks [][]hostSpan
	spans  []hostSpan
	sigs   []opSig
	sigIdx map[string]uint32
	key    []byte

	mods   []string
	modIdx map[string]uint32
	paths  []pathRec // paths[0] is the empty path
	pathIx map[pathRec]uint32

	// After build: each thread's spans are spans[lo[t]:hi[t]].
	lo, hi []int32
	refs   map[uint64]*opRef
	order  []uint64 // refs in creation order

	noTime int64 // host ops without usable times: not placed
	// Dispatches by outcome, for the inventory.
	attributed, underNone, noLaunch int64
}

func newHostOps() *hostOps {
	return &hostOps{
		sigIdx: make(map[string]uint32),
		modIdx: make(map[string]uint32),
		paths:  []pathRec{{}},
		pathIx: make(map[pathRec]uint32),
		refs:   make(map[uint64]*opRef),
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
	kind := spanOp
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
	sp := hostSpan{start: e.ts, end: e.ts + e.dur, thread: r.internThread(e), kind: kind}
	if kind == spanModule {
		sp.sig = h.module(e.name)
	} else {
		sp.sig = h.sig(e)
	}
	if len(h.chunk) == cap(h.chunk) {
		h.flushChunk()
	}
	h.chunk = append(h.chunk, sp)
}

// spanChunk is how many spans are collected before they join the rest:
// appending to one growing slice copied every span again at each doubling.
const spanChunk = 8192

func (h *hostOps) flushChunk() {
	if len(h.chunk) > 0 {
		h.chunks = append(h.chunks, h.chunk)
	}
	h.chunk = make([]hostSpan, 0, spanChunk)
}

func (h *hostOps) module(name []byte) uint32 {
	if id, ok := h.modIdx[string(name)]; ok {
		return id
	}
	id := uint32(len(h.mods))
	s := string(name)
	h.mods = append(h.mods, s)
	h.modIdx[s] = id
	return id
}

// sig interns the signature of host op e.
func (h *hostOps) sig(e *event) uint32 {
	a := &e.shape
	k := append(h.key[:0], e.name...)
	k = append(k, 0)
	k = append(k, a.dims...)
	k = append(k, 0)
	k = append(k, a.types...)
	k = append(k, 0)
	k = append(k, a.concrete...)
	k = append(k, 0, byte(e.cat))
	h.key = k
	if id, ok := h.sigIdx[string(k)]; ok {
		return id
	}
	id := uint32(len(h.sigs))
	kind := "cpu_op"
	if e.cat != catCPUOp && e.cat != catOperator2021 {
		kind = "user_annotation"
	}
	h.sigs = append(h.sigs, opSig{name: string(e.name), dims: string(a.dims), types: string(a.types), concrete: string(a.concrete), kind: kind})
	h.sigIdx[string(k)] = id
	return id
}

// build sorts the spans per thread and links each to its parent.
func (h *hostOps) build(threads int) {
	h.flushChunk()
	n := 0
	for _, c := range h.chunks {
		n += len(c)
	}
	h.spans = make([]hostSpan, 0, n)
	for _, c := range h.chunks {
		h.spans = append(h.spans, c...)
	}
	h.chunks, h.chunk = nil, nil
	// Profilers mostly write a thread's ops in time order: a sorted file
	// is checked in one pass and not sorted again.
	if !slices.IsSortedFunc(h.spans, spanOrder) {
		slices.SortFunc(h.spans, spanOrder)
	}
	h.links = make([]spanLink, len(h.spans))
	h.lo, h.hi = make([]int32, threads), make([]int32, threads)
	var stack []int32
	for i := range h.spans {
		sp := &h.spans[i]
		if i == 0 || h.spans[i-1].thread != sp.thread {
			stack = stack[:0]
			if int(sp.thread) < threads {
				h.lo[sp.thread] = int32(i)
			}
		}
		if int(sp.thread) < threads {
			h.hi[sp.thread] = int32(i + 1)
		}
		// A span that ends before this one ends cannot enclose it (nor,
		// starting earlier, anything after it).
		for len(stack) > 0 && h.spans[stack[len(stack)-1]].end < sp.end {
			stack = stack[:len(stack)-1]
		}
		l := &h.links[i]
		l.parent, l.opAnc, l.outer = -1, -1, -1
		if len(stack) > 0 {
			pi := stack[len(stack)-1]
			pl := &h.links[pi]
			l.parent, l.outer, l.path = pi, pl.outer, pl.path
			if h.spans[pi].kind == spanOp {
				l.opAnc = pi
			} else {
				l.opAnc = pl.opAnc
			}
		}
		if sp.kind == spanOp && l.outer < 0 {
			l.outer = int32(i)
		}
		if sp.kind == spanModule {
			l.path = h.pathOf(l.path, sp.sig)
		}
		stack = append(stack, int32(i))
	}
}

func (h *hostOps) pathOf(parent, mod uint32) uint32 {
	k := pathRec{parent: parent, name: mod}
	if id, ok := h.pathIx[k]; ok {
		return id
	}
	id := uint32(len(h.paths))
	h.paths = append(h.paths, k)
	h.pathIx[k] = id
	return id
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
	lo, hi := int(h.lo[th]), int(h.hi[th])
	i := lo + sort.Search(hi-lo, func(k int) bool { return h.spans[lo+k].start > t }) - 1
	for i >= lo && h.spans[i].end < t {
		i = int(h.links[i].parent)
	}
	if i < lo {
		return -1, -1
	}
	l := &h.links[i]
	if h.spans[i].kind == spanOp {
		return int32(i), l.outer
	}
	return l.opAnc, l.outer
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
	for j := inner; j >= 0 && !h.links[j].used; j = h.links[j].opAnc {
		sp := &h.spans[j]
		h.links[j].used = true
		ref := h.ref(j)
		ref.calls++
		ref.hostNS = capture.SatAdd(ref.hostNS, sp.end-sp.start)
	}
	in := h.ref(inner)
	d.Op = h.opID(c, inner, in)
	if graphFirst {
		in.graphs++
	}
	if outer >= 0 {
		d.OuterOp = h.opID(c, outer, h.ref(outer))
	}
}

// ref is the (signature, module path) record of span i.
func (h *hostOps) ref(i int32) *opRef {
	k := uint64(h.spans[i].sig)<<32 | uint64(h.links[i].path)
	ref := h.refs[k]
	if ref == nil {
		ref = &opRef{}
		h.refs[k] = ref
		h.order = append(h.order, k)
	}
	return ref
}

// opID returns the capture op of span i, added on first use.
func (h *hostOps) opID(c *capture.Capture, i int32, ref *opRef) capture.OpID {
	if ref.id == capture.NoOp {
		s := &h.sigs[h.spans[i].sig]
		ref.id = c.AddOp(capture.Op{Name: s.name, Kind: s.kind, Path: h.pathString(h.links[i].path), Dims: s.dims, Types: s.types, Concrete: s.concrete, HostValid: true})
	}
	return ref.id
}

// finish writes the counts into the op table.
func (h *hostOps) finish(c *capture.Capture) {
	for _, k := range h.order {
		ref := h.refs[k]
		if o := c.Op(ref.id); o != nil {
			o.Calls, o.HostNS, o.GraphLaunches = ref.calls, ref.hostNS, ref.graphs
		}
	}
	c.OpSource = "Kineto: the innermost cpu_op or user_annotation (record_function) range enclosing the launch call on its thread; outermost op as well; module path from nn.Module python_function events where recorded. A graph replay's kernels take the op around their graph launch."
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

// spanOrder orders spans by thread, then start; of two starting together
// the longer first (it encloses), and an op before a module frame of its
// exact span.
func spanOrder(a, b hostSpan) int {
	switch {
	case a.thread != b.thread:
		return cmp.Compare(a.thread, b.thread)
	case a.start != b.start:
		return cmp.Compare(a.start, b.start)
	case a.end != b.end:
		return cmp.Compare(b.end, a.end) // the longer one first: it encloses
	}
	return int(a.kind) - int(b.kind) // an op encloses a module frame of its exact span
}
