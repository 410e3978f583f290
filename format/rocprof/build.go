package rocprof

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tallyprof/tally/capture"
)

// builder turns dispatch rows of any rocprof source (CSV, JSON, rocpd) into
// the model: it interns queues and kernels, checks each row's interval and
// dispatch id, and streams the dispatch. Rows it keeps out of the tables are
// counted in the unit's accounting and listed in a gap.
type builder struct {
	c    *capture.Capture
	sink capture.Sink
	unit *capture.InputCount

	progs     map[string]capture.ProgramID
	rangeSeen map[int64]int64 // marker range key → instance ordinal
	kernels   map[kkey]capture.KernelID
	queues    map[string]capture.QueueID
	qkey      []byte

	ids        idSet
	ceiling    int64 // longest interval accepted as measured, ns (setCeiling)
	dispatches int64 // kernel dispatches in the tables
	copies     int64 // memory copies in the tables
	d          capture.Dispatch

	overlap overlaps

	link        *linker
	apiLaunches int64 // kernel launch calls in the API traces read
}

type kkey struct {
	prog capture.ProgramID
	name string
	cat  string
}

// wholeCapture is the program of dispatches outside every marker range.
const wholeCapture = "(whole capture)"

func newBuilder(c *capture.Capture, sink capture.Sink, unit string) *builder {
	if sink == nil {
		sink = capture.Discard
	}
	return &builder{
		c: c, sink: sink, unit: c.Accounting.InputFor(unit), ceiling: capture.MaxDuration,
		progs:   map[string]capture.ProgramID{},
		kernels: map[kkey]capture.KernelID{},
		queues:  map[string]capture.QueueID{},
		link:    newLinker(),
	}
}

// setCeiling sets the longest interval accepted as measured, in ns
// (--max-duration); 0 keeps capture.MaxDuration.
func (b *builder) setCeiling(ns int64) {
	if ns > 0 {
		b.ceiling = ns
	}
}

// linkDone closes the linker of one process (or file, or rocpd run).
func (b *builder) linkDone(inv *capture.Section, source string) {
	b.apiLaunches += b.link.finish(b.c, inv, source)
}

// program returns the program called name, creating it on first use (so
// no program is ever listed without a dispatch).
func (b *builder) program(name string) capture.ProgramID {
	key, _ := capture.CutName(name) // as the model holds it
	if p, ok := b.progs[key]; ok {
		return p
	}
	p := b.c.AddProgram(capture.Program{Name: name, Instances: 1})
	b.progs[key] = p
	return p
}

// rangeProgram returns the program of a marker range — its name, with one
// instance per distinct range (key) that holds a dispatch — and the
// range's instance ordinal, the dispatch's Instance.
func (b *builder) rangeProgram(name string, key int64) (capture.ProgramID, int64) {
	pkey, _ := capture.CutName(name) // as the model holds it
	p, ok := b.progs[pkey]
	if !ok {
		p = b.c.AddProgram(capture.Program{Name: name})
		b.progs[pkey] = p
	}
	if b.rangeSeen == nil {
		b.rangeSeen = map[int64]int64{}
	}
	inst, seen := b.rangeSeen[key]
	if !seen {
		inst = b.c.Programs[p].Instances
		b.rangeSeen[key] = inst
		b.c.Programs[p].Instances++
	}
	return p, inst
}

// queue interns the (agent, queue) pair.
func (b *builder) queue(agent, queue []byte) capture.QueueID {
	b.qkey = append(append(append(b.qkey[:0], agent...), 0), queue...)
	if q, ok := b.queues[string(b.qkey)]; ok {
		return q
	}
	dev := agentLabel(agent) // 2024 files and rocpd: a bare node id reads "agent N"
	q := b.c.AddQueue(capture.Queue{Name: "queue " + string(queue), Device: dev})
	b.queues[string(b.qkey)] = q
	return q
}

// copyQueue interns the queue of memory copies from src to dst: the
// copy records have no queue, so copies between one pair of agents share
// one, on the device agent — the destination, except for a copy to the
// host (direction DEVICE_TO_HOST), whose device is its source: the host
// is no device, and a GPU's copies back to it must not read as a second
// device (--program-by).
func (b *builder) copyQueue(src, dst, direction string) capture.QueueID {
	b.qkey = append(append(append(append(b.qkey[:0], "copy\x00"...), src...), 0), dst...)
	if q, ok := b.queues[string(b.qkey)]; ok {
		return q
	}
	qu := capture.Queue{Name: "copies from " + src, Device: dst}
	if strings.Contains(strings.ToUpper(direction), "DEVICE_TO_HOST") {
		qu = capture.Queue{Name: "copies to " + dst, Device: src}
	}
	q := b.c.AddQueue(qu)
	b.queues[string(b.qkey)] = q
	return q
}

// kernel interns a kernel of program p. An empty name or rocpd's
// "unknown_kernel" is unresolved: the kernel is shown by its id, scoped to
// its program, and counted.
func (b *builder) kernel(p capture.ProgramID, name []byte, id uint64, hasID bool, cat string) capture.KernelID {
	resolved := len(name) > 0 && string(name) != "unknown_kernel"
	if !resolved {
		label := b.c.Programs[p].Name + ":#"
		if hasID {
			label += strconv.FormatUint(id, 10)
		} else {
			label += "?"
		}
		name = []byte(label)
	}
	full := name
	if len(name) > capture.MaxName {
		// The map holds names as the model does: cut (AddKernel counts
		// the cut once, from the full name).
		cut, _ := capture.CutName(string(name))
		name = []byte(cut)
	}
	if k, ok := b.kernels[kkey{p, string(name), cat}]; ok {
		return k
	}
	k := b.c.AddKernel(capture.Kernel{Program: p, Name: string(full), ID: id, HasID: hasID, Resolved: resolved, Category: cat})
	b.kernels[kkey{p, string(name), cat}] = k
	if !resolved {
		g := b.c.Accounting.Gap(capture.UnresolvedName, b.c.Programs[p].Name)
		g.Summary = "dispatches whose kernel has no name in the input (empty name, kernel id 0 or a missing symbol): shown by kernel id, never guessed"
		g.Add(capture.Item{What: "no kernel name for this id", Kernel: string(name)})
	}
	return k
}

// row is one dispatch as a source read it.
type row struct {
	prog          capture.ProgramID
	instance      int64 // the program run (marker range) it belongs to; 0 for a whole capture
	queue         capture.QueueID
	kernel        capture.KernelID
	start, end    int64
	dispatchID    uint64
	hasDispatchID bool
	corr          uint64 // internal correlation id; 0 when none
	copy          bool   // a memory copy, not a kernel dispatch
	launch        capture.Interval
	link          capture.Link
}

// pos says where a row was ("line 12"), formatted only when needed.
type pos struct {
	what string
	n    int64
}

func (p pos) String() string { return p.what + " " + strconv.FormatInt(p.n, 10) }

// emit checks r and streams it, or keeps it out of the tables with a
// reason and returns the gap that lists it (nil when r is in the tables).
func (b *builder) emit(r *row, at pos) *capture.Gap {
	if r.end < r.start || r.start < 0 || r.end-r.start > b.ceiling {
		reason, what := b.badTimes(r)
		g := b.invalid()
		g.Add(capture.Item{What: what, Where: at.String(), Kernel: b.c.Kernels[r.kernel].Name, Time: capture.TimeOf(r.start)})
		b.unit.Lose(g, reason, 1, at.String())
		return g
	}
	if r.hasDispatchID && b.ids.add(r.dispatchID) {
		// rocprof's repeat gap: its duplicate_event, by dispatch id.
		g := b.c.Accounting.Gap(capture.DuplicateDispatchID, "")
		g.Summary = "rows repeating a dispatch id already seen: the first row is in the tables, the repeats are not (rocpd's writer drops them the same way)"
		g.Add(capture.Item{What: fmt.Sprintf("dispatch id %d again", r.dispatchID), Where: at.String(), Kernel: b.c.Kernels[r.kernel].Name})
		b.unit.Lose(g, "duplicate dispatch id", 1, at.String())
		return g
	}
	b.unit.Used++
	if r.copy {
		b.copies++
		r.launch, r.link = b.link.copy(r.corr)
	} else {
		b.dispatches++
		r.launch, r.link = b.link.dispatch(r.corr, r.start, r.end)
	}
	if q := r.queue; q >= 0 && !r.copy { // copies of one agent pair may run on several engines at once
		b.overlap.add(int(q), r.start, r.end)
	}
	b.d = capture.Dispatch{
		Program: r.prog, Queue: r.queue, Kernel: r.kernel, Instance: r.instance,
		Index: -1, Ordinal: -1,
		Device: capture.Interval{Begin: r.start, End: r.end, Valid: true},
		Launch: r.launch, Link: r.link,
	}
	b.sink.Dispatch(b.c, &b.d)
	return nil
}

// badTimes says why r's interval cannot be a measurement (emit's test),
// as a skip reason and an item text. These are capture.ImpossibleTime's
// rules, held here too so that such a row is accounted as lost input and
// never reaches the overlap and linkage figures (an end of 2^63-1 would
// overlap every later row on its queue).
func (b *builder) badTimes(r *row) (reason, what string) {
	switch {
	case r.end < r.start:
		return "end before start", fmt.Sprintf("end %d before start %d", r.end, r.start)
	case r.start < 0:
		return "negative time", fmt.Sprintf("starts at %d, a negative time", r.start)
	}
	return "longer than the ceiling", fmt.Sprintf("lasts %d ns, longer than the %d ns ceiling for one dispatch (--max-duration)", r.end-r.start, b.ceiling)
}

// invalid is the gap of rows whose times are missing or impossible.
func (b *builder) invalid() *capture.Gap {
	g := b.c.Accounting.Gap(capture.InvalidEvent, "")
	g.Summary = "dispatches whose times are missing, negative, reversed or longer than the ceiling for one dispatch: not in the tables, never swapped or clamped (rocprofv3 swaps a reversed start and end itself before writing, so such rows come from another writer, an edited or a damaged file)"
	return g
}

// noTimes loses a row (of unit in) with a NULL start or end: device work
// ran, and when is unknown.
func (b *builder) noTimes(in *capture.InputCount, where string) {
	g := b.invalid()
	g.Add(capture.Item{What: "start or end is NULL", Where: where})
	in.Lose(g, "no start or end", 1, where)
}

// unknownKind lists a record of a kind the reader does not read where
// dispatches are written: it may be a dispatch under a name this reader
// does not know, so it is lost, never ignored.
func (b *builder) unknownKind(kind, where string) *capture.Gap {
	g := b.c.Accounting.Gap(capture.UnknownInput, "")
	g.Summary = "records of a kind this reader does not know where rocprof writes dispatches and copies (kernel_trace.csv and memory_copy_trace.csv Kind, a JSON record's kind and operation): they may be device work under a new name, and are not in the tables"
	g.Add(capture.Item{What: "kind " + kind, Where: where})
	return g
}

// finish adds the capture-wide gaps: no dispatch at all, and same-queue
// overlaps.
func (b *builder) finish(emptyWhy string) {
	if b.dispatches == 0 {
		g := b.c.Accounting.Gap(capture.EmptyCapture, "")
		g.Summary = "no kernel dispatch in this input: " + emptyWhy
		if b.apiLaunches > 0 {
			// rocprofiler-sdk#58: launches traced, dispatches not.
			g.Summary = fmt.Sprintf("no kernel dispatch in this input, yet its HIP API trace holds %d kernel launch calls: kernels ran and kernel tracing recorded nothing (seen on RX 7900 XTX with ROCm 6.3.3–6.4.1, or kernel tracing not enabled)", b.apiLaunches)
		}
		g.Add(capture.Item{What: "no kernel dispatch rows"})
	}
	b.overlap.flush()
	if b.overlap.n > 0 {
		g := b.c.Accounting.Gap(capture.OverlappingEvents, "")
		g.Summary = "dispatches that start before the previous dispatch on the same (agent, queue) has ended: summed durations exceed busy time (MI300X firmware timestamps before ROCm 6.4.2 tie or overlap)"
		g.AddN(b.overlap.n)
		g.SetFigure("total_ns", b.overlap.ns)
		if b.overlap.unorder > 0 {
			g.SetFigure("unchecked_out_of_order", b.overlap.unorder)
		}
	}
}

func isDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
