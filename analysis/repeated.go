package analysis

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/tallyprof/tally/capture"
)

// Earliest is a capture.Sink that keeps an input's earliest timed
// dispatches (by device start, end and kernel), so that a run can tell when
// two of its inputs hold one recording: a CSV and a JSON that rocprofv3
// wrote of one run into one directory, a cut copy beside its original, an
// export converted from another input. inputs.Expand passes over a file
// named twice and a byte-for-byte copy; those are other bytes of the same
// dispatches. Memory is bounded: earliestN dispatches an input.
type Earliest struct {
	h earliestHeap
}

const (
	earliestN = 64
	// earliestMin is the fewest dispatches an input must hold for its
	// earliest ones to say anything: two inputs of three dispatches each
	// may share them by chance.
	earliestMin = 8
)

type stamp struct {
	begin, end int64
	kernel     capture.KernelID
}

func (a stamp) after(b stamp) bool {
	if a.begin != b.begin {
		return a.begin > b.begin
	}
	if a.end != b.end {
		return a.end > b.end
	}
	return a.kernel > b.kernel
}

// earliestHeap is a max-heap: its root is the latest of the kept stamps,
// the one a earlier dispatch replaces.
type earliestHeap []stamp

func (h earliestHeap) Len() int           { return len(h) }
func (h earliestHeap) Less(i, j int) bool { return h[i].after(h[j]) }
func (h earliestHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *earliestHeap) Push(x any)        { *h = append(*h, x.(stamp)) }
func (h *earliestHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Dispatch keeps d when it is among the earliest timed dispatches so far.
func (e *Earliest) Dispatch(_ *capture.Capture, d *capture.Dispatch) {
	if d.Aggregate != nil || !d.Device.Valid {
		return
	}
	s := stamp{d.Device.Begin, d.Device.End, d.Kernel}
	if len(e.h) < earliestN {
		heap.Push(&e.h, s)
		return
	}
	if e.h[0].after(s) { // usually false: dispatches arrive in time order
		e.h[0] = s
		heap.Fix(&e.h, 0)
	}
}

// Signatures are the kept dispatches as hashes of the clock, the device
// interval and the kernel's name (names, not ids: two formats of one
// recording number kernels differently), or nil when there are too few.
func (e *Earliest) Signatures(c *capture.Capture) []uint64 {
	if e == nil || len(e.h) < earliestMin || c == nil {
		return nil
	}
	sigs := make([]uint64, 0, len(e.h))
	var b [16]byte
	for _, s := range e.h {
		h := fnv.New64a()
		h.Write([]byte(c.Clock.Domain))
		binary.LittleEndian.PutUint64(b[:8], uint64(s.begin))
		binary.LittleEndian.PutUint64(b[8:], uint64(s.end))
		h.Write(b[:])
		if int(s.kernel) < len(c.Kernels) {
			h.Write([]byte(c.Kernels[s.kernel].Name))
		}
		sigs = append(sigs, h.Sum64())
	}
	return sigs
}

// repeatedInputs states, as a gap of the whole, every input whose earliest
// dispatches are for the most part (three in four, at least) another
// input's: the same dispatches at the same times on the same clock are one
// recording read twice, and the merged tables count them twice.
func (run *Run) repeatedInputs(a *capture.Accounting) {
	owners := map[uint64][]int{} // signature → inputs holding it, each once
	for i, in := range run.Inputs {
		for _, s := range in.Earliest {
			if o := owners[s]; len(o) == 0 || o[len(o)-1] != i {
				owners[s] = append(o, i)
			}
		}
	}
	shared := map[[2]int]int{} // input pair → signatures both hold
	for _, ins := range owners {
		for x := 0; x < len(ins); x++ {
			for y := x + 1; y < len(ins); y++ {
				shared[[2]int{ins[x], ins[y]}]++
			}
		}
	}
	pairs := make([][2]int, 0, len(shared))
	for p := range shared {
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(a, b [2]int) int { return cmp.Or(a[1]-b[1], a[0]-b[0]) })
	flagged := map[int]bool{}
	for _, p := range pairs {
		i, j, n := p[0], p[1], shared[p]
		fewer := min(len(run.Inputs[i].Earliest), len(run.Inputs[j].Earliest))
		if 4*n < 3*fewer || flagged[j] {
			continue
		}
		flagged[j] = true
		g := a.Gap(capture.RepeatedInput, "")
		g.Summary = "inputs holding the dispatches of another input — the same kernels at the same times on the same clock: one recording read twice (a CSV and a JSON of one run, a cut copy, a converted export), which the merged tables count twice. Give each recording once"
		g.Add(capture.Item{What: fmt.Sprintf("%d of its %d earliest dispatches are %s's", n, fewer, run.Inputs[i].Label()), Where: run.Inputs[j].Label()})
	}
}
