package nsys

import (
	"cmp"
	"slices"
	"sort"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/outerrange"
)

// Host-op attribution (format.Options.Ops): a dispatch's op is the
// innermost NVTX range open on its launching thread when the launch call
// began (PyTorch's emit_nvtx writes one per ATen op: "aten::mm, op_id =
// 5"), its outer op the outermost; names lose their instance numbers as
// programs' do. Unlike programs, which keep the outermost ranges only,
// this keeps every range: memory O(NVTX ranges), 32 bytes each.

type nspan struct {
	start, end, tid int64
	name            int32 // index into nvtxOps.names; -1 while its StringIds text is looked up
	parent          int32 // set by build; -1 for none
}

type nvtxOps struct {
	spans        []nspan
	names        []string
	index        map[string]int32
	pendingSpan  []int32 // spans named by a StringIds id
	pendingText  []int64
	lo, hi       map[int64]int32 // each thread's spans[lo:hi], after build
	used         []bool
	ids          []capture.OpID // by name index: its capture op, once used
	calls, hosts []int64        // by name index
}

func newNvtxOps() *nvtxOps { return &nvtxOps{index: map[string]int32{}} }

func (o *nvtxOps) name(s string) int32 {
	s = outerrange.TrimInstance(s)
	if s == "" {
		s = "(unnamed NVTX range)"
	}
	s, _ = capture.CutName(s) // a cut name is counted once, by the programs' table
	if i, ok := o.index[s]; ok {
		return i
	}
	i := int32(len(o.names))
	o.names = append(o.names, s)
	o.index[s] = i
	return i
}

// add keeps one range row.
func (o *nvtxOps) add(tid, start, end int64, text string, hasText bool, textID int64, hasID bool) {
	sp := nspan{start: start, end: end, tid: tid}
	switch {
	case hasText:
		sp.name = o.name(text)
	case hasID:
		sp.name = -1
		o.pendingSpan = append(o.pendingSpan, int32(len(o.spans)))
		o.pendingText = append(o.pendingText, textID)
	default:
		sp.name = o.name("")
	}
	o.spans = append(o.spans, sp)
}

// nameRanges names the ranges named by StringIds ids.
func (r *reader) nameOpRanges() error {
	o := r.ops
	if o == nil || len(o.pendingSpan) == 0 {
		return nil
	}
	strs, err := r.strings(uniq(o.pendingText))
	if err != nil {
		return err
	}
	for i, sp := range o.pendingSpan {
		o.spans[sp].name = o.name(strs[o.pendingText[i]])
	}
	o.pendingSpan, o.pendingText = nil, nil
	return nil
}

// build orders the ranges by thread, start, the longer first, and links
// each to the range around it.
func (o *nvtxOps) build() {
	slices.SortStableFunc(o.spans, func(a, b nspan) int {
		switch {
		case a.tid != b.tid:
			return cmp.Compare(a.tid, b.tid)
		case a.start != b.start:
			return cmp.Compare(a.start, b.start)
		}
		return cmp.Compare(b.end, a.end)
	})
	o.lo, o.hi = map[int64]int32{}, map[int64]int32{}
	o.used = make([]bool, len(o.spans))
	o.ids = make([]capture.OpID, len(o.names))
	o.calls, o.hosts = make([]int64, len(o.names)), make([]int64, len(o.names))
	var stack []int32
	for i := range o.spans {
		sp := &o.spans[i]
		if i == 0 || o.spans[i-1].tid != sp.tid {
			stack = stack[:0]
			o.lo[sp.tid] = int32(i)
		}
		o.hi[sp.tid] = int32(i + 1)
		for len(stack) > 0 && o.spans[stack[len(stack)-1]].end < sp.end {
			stack = stack[:len(stack)-1]
		}
		sp.parent = -1
		if len(stack) > 0 {
			sp.parent = stack[len(stack)-1]
		}
		stack = append(stack, int32(i))
	}
}

// attribute sets d's ops from the ranges around time ts on thread tid.
func (r *reader) attributeOp(d *capture.Dispatch, tid, ts int64) {
	o := r.ops
	lo, ok := o.lo[tid]
	if !ok {
		return
	}
	hi := o.hi[tid]
	i := lo + int32(sort.Search(int(hi-lo), func(k int) bool { return o.spans[lo+int32(k)].start > ts })) - 1
	for i >= lo && o.spans[i].end < ts {
		i = o.spans[i].parent
	}
	if i < lo {
		return
	}
	outer := i
	for j := i; j >= 0; j = o.spans[j].parent {
		outer = j
		if !o.used[j] { // each range call counted once, with its host time
			o.used[j] = true
			n := o.spans[j].name
			o.calls[n]++
			o.hosts[n] = capture.SatAdd(o.hosts[n], o.spans[j].end-o.spans[j].start)
		}
	}
	d.Op, d.OuterOp = r.opID(o.spans[i].name), r.opID(o.spans[outer].name)
}

func (r *reader) opID(n int32) capture.OpID {
	o := r.ops
	if o.ids[n] == capture.NoOp {
		o.ids[n] = r.c.AddOp(capture.Op{Name: o.names[n], Kind: "nvtx", HostValid: true})
	}
	return o.ids[n]
}

// finishOps writes the calls and host time into the op table.
func (r *reader) finishOps() {
	o := r.ops
	for n, id := range o.ids {
		if op := r.c.Op(id); op != nil {
			op.Calls, op.HostNS = o.calls[n], o.hosts[n]
		}
	}
	r.c.OpSource = "nsys: the innermost NVTX range (push/pop or start/end) open on the launching thread when the launch call began, without its instance number (', op_id = N'); the outermost as the outer op. No shapes are read: ops are not modelled."
}
