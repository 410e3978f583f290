package rocprof

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// The HIP API trace (hip_api_trace.csv beside kernel_trace.csv, rocpd's
// HIP regions, the JSON's hip_api records) ties a dispatch to the call that
// enqueued it through the internal correlation id. The linker holds, per
// process: every API call's correlation id as runs of consecutive ids
// (small), and the calls that can put work on a queue (launches, copies,
// sets) with their times — memory grows with the number of such calls, not
// with the other API rows. On the dispatch side it keeps the dispatches'
// correlation ids (runs again) and the ids shared by several dispatches.

// apiCall is one HIP call that can enqueue work.
type apiCall struct {
	start, end int64
	name       int32 // index into linker.names
}

type linker struct {
	// API side.
	present bool // an API trace with at least one row was read
	calls   map[uint64]apiCall
	ids     idSet
	lo, hi  uint64
	names   []string
	nameIdx map[string]int32

	// Dispatch side.
	late      bool // the API rows came after the dispatches (JSON): counted at the end
	dispIDs   idSet
	repeats   map[uint64]int64 // correlation id → dispatches beyond its first
	orphans   int64            // counted as they stream (API rows first)
	orphanNS  int64
	first     int64
	last      int64
	launched  int64
	withTimes int64
}

func newLinker() *linker {
	return &linker{calls: map[uint64]apiCall{}, nameIdx: map[string]int32{}, repeats: map[uint64]int64{}}
}

// enqueues reports whether a HIP call can put work on a queue: a kernel
// or graph launch, or a copy or set (which may run as blit kernels).
func enqueues(name string) bool {
	return strings.Contains(name, "Launch") || strings.HasPrefix(name, "hipMemcpy") || strings.HasPrefix(name, "hipMemset") ||
		strings.HasPrefix(name, "hipDrvMemcpy")
}

// kernelLaunchNames are the calls whose lack of any dispatch the spec asks
// to count by name.
var kernelLaunchNames = map[string]bool{
	"hipLaunchKernel": true, "hipModuleLaunchKernel": true, "hipExtModuleLaunchKernel": true, "hipGraphLaunch": true,
	"hipLaunchCooperativeKernel": true, "hipExtLaunchKernel": true, "hipLaunchKernelExC": true, "hipHccModuleLaunchKernel": true,
	"hipModuleLaunchCooperativeKernel": true, "hipExtLaunchKernelGGL": true,
}

// addAPI records one API row; it reports false for a row without a
// correlation id (0: rocprofv3's internal ids start at 1), which is not
// used.
func (l *linker) addAPI(corr uint64, name string, start, end int64) bool {
	if corr == 0 {
		return false
	}
	if len(l.dispIDs.runs) > 0 {
		l.late = true // dispatches came first (JSON): link counts at the end
	}
	if !l.present || corr < l.lo {
		l.lo = corr
	}
	if !l.present || corr > l.hi {
		l.hi = corr
	}
	l.present = true
	l.ids.add(corr)
	if !enqueues(name) {
		return true
	}
	i, ok := l.nameIdx[name]
	if !ok {
		i = int32(len(l.names))
		l.names = append(l.names, name)
		l.nameIdx[name] = i
	}
	l.calls[corr] = apiCall{start, end, i}
	return true
}

// dispatch records a dispatch's correlation id (0: none) and, when the
// API rows are known, returns its launch and link.
func (l *linker) dispatch(corr uint64, start, end int64) (capture.Interval, capture.Link) {
	if corr == 0 {
		return capture.Interval{}, capture.LinkNone
	}
	if l.dispIDs.add(corr) {
		l.repeats[corr]++
	}
	if !l.present || l.late {
		return capture.Interval{}, capture.LinkNone
	}
	c, ok := l.calls[corr]
	switch {
	case ok:
		l.launched++
		link := capture.LinkLaunched
		if strings.HasPrefix(l.names[c.name], "hipGraphLaunch") {
			link = capture.LinkGraph
		}
		if c.end < c.start {
			return capture.Interval{}, link
		}
		l.withTimes++
		return capture.Interval{Begin: c.start, End: c.end, Valid: true}, link
	case l.ids.has(corr):
		l.launched++
		return capture.Interval{}, capture.LinkLaunched
	}
	if l.orphans == 0 || start < l.first {
		l.first = start
	}
	l.last = max(l.last, end)
	l.orphans++
	l.orphanNS += end - start
	return capture.Interval{}, capture.LinkNoLaunch
}

// copy returns a memory copy's launch: the call with its correlation id.
// Copies are not counted in the linkage gaps, which concern kernels.
func (l *linker) copy(corr uint64) (capture.Interval, capture.Link) {
	if corr == 0 || !l.present || l.late {
		return capture.Interval{}, capture.LinkNone
	}
	c, ok := l.calls[corr]
	switch {
	case ok && c.end >= c.start:
		return capture.Interval{Begin: c.start, End: c.end, Valid: true}, capture.LinkLaunched
	case ok || l.ids.has(corr):
		return capture.Interval{}, capture.LinkLaunched
	}
	return capture.Interval{}, capture.LinkNoLaunch
}

// finish adds the linkage gaps of one process (program "" = capture-wide),
// resets the linker for the next, and returns the kernel launch calls the
// API trace held.
func (l *linker) finish(c *capture.Capture, inv *capture.Section, source string) (launches int64) {
	if len(l.repeats) > 0 {
		g := c.Accounting.Gap(capture.GraphLaunch, "")
		var most int64
		for _, n := range l.repeats {
			most = max(most, n+1)
		}
		g.Count += int64(len(l.repeats))
		g.Summary = "correlation ids shared by several dispatches: one API call (a graph launch) enqueued them all; each dispatch is in the tables"
		if m, _ := g.Figure("max_kernels_per_launch"); most > m {
			g.SetFigure("max_kernels_per_launch", most)
		}
	}
	if !l.present {
		*l = *newLinker()
		return 0
	}
	launches = l.kernelLaunches()
	inv.Add("API trace", source)
	inv.Add("API calls that enqueue work", int64(len(l.calls)))
	if !l.late {
		inv.Add("dispatches linked to their API call", l.launched)
	}
	// Dispatches without an API row: ids of the dispatch set missing from
	// the API set, plus the further dispatches of shared ids. (Streaming
	// with the API rows first counts the same number in l.orphans.)
	n, in := l.dispIDs.missing(&l.ids, l.lo, l.hi)
	orphans, inside := int64(n), int64(in)
	for id, extra := range l.repeats {
		if !l.ids.has(id) {
			orphans += extra
			if id >= l.lo && id <= l.hi {
				inside += extra
			}
		}
	}
	if orphans > 0 {
		g := c.Accounting.Gap(capture.GPUEventWithoutLaunch, "")
		g.Summary = "dispatches whose correlation id has no row in the HIP API trace: they are in the tables, without a launch time"
		if inside > 0 {
			g.Summary += "; some ids lie inside the API trace's id range, so API rows are missing from its middle: the API trace looks filtered or sub-sampled"
		} else {
			g.Summary += "; all lie outside the API trace's id range (API tracing started late or stopped early)"
		}
		g.SetFigure("inside_api_range", figure(g, "inside_api_range")+inside)
		if !l.late {
			g.SetFigure("total_ns", figure(g, "total_ns")+l.orphanNS)
			g.Add(capture.Item{What: fmt.Sprintf("%d dispatches between %d and %d ns", orphans, l.first, l.last), Where: source, Time: capture.TimeOf(l.first)})
			g.Count += orphans - 1
		} else {
			g.Add(capture.Item{What: fmt.Sprintf("%d dispatches (the API records follow the dispatches in this file, so their times are not listed)", orphans), Where: source})
			g.Count += orphans - 1
		}
	}
	l.unlaunched(c, source)
	*l = *newLinker()
	return launches
}

// unlaunched counts kernel launch calls no dispatch carries the id of, by
// name.
func (l *linker) unlaunched(c *capture.Capture, source string) {
	type stat struct{ n, first, last int64 }
	by := map[string]*stat{}
	for corr, call := range l.calls {
		name := l.names[call.name]
		if !kernelLaunchNames[name] || l.dispIDs.has(corr) {
			continue
		}
		s := by[name]
		if s == nil {
			s = &stat{first: call.start, last: call.start}
			by[name] = s
		}
		s.n++
		s.first, s.last = min(s.first, call.start), max(s.last, call.start)
	}
	if len(by) == 0 {
		return
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Strings(names)
	g := c.Accounting.Gap(capture.LaunchWithoutGPUEvent, "")
	g.Summary = "kernel launch calls with no dispatch of their correlation id: the kernel was still queued when the process exited or its buffers were not flushed, or kernel tracing dropped it"
	for _, n := range names {
		s := by[n]
		g.Add(capture.Item{What: fmt.Sprintf("%s between %d and %d ns", units.Plural(int64(s.n), "call", "calls"), s.first, s.last), Kernel: n, Where: source, Time: capture.TimeOf(s.first)})
		g.Count += s.n - 1
		g.SetFigure(n, figure(g, n)+s.n)
	}
}

// kernelLaunches counts the kernel launch calls read (for the empty-capture
// explanation).
func (l *linker) kernelLaunches() int64 {
	var n int64
	for _, c := range l.calls {
		if kernelLaunchNames[l.names[c.name]] {
			n++
		}
	}
	return n
}

func figure(g *capture.Gap, name string) int64 {
	v, _ := g.Figure(name)
	return v
}
