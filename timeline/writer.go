// Package timeline writes captures as timelines a person opens in Perfetto
// or chrome://tracing: Perfetto's native protobuf and Chrome Trace Event
// JSON. Both writers are capture.Sinks that write each dispatch as it
// arrives, so memory holds tracks and lanes, never the dispatches; and both
// carry the capture's accounting: unfinished dispatches as slices ending at
// the capture's end, every gap as instant events on an accounting track, the
// verdict in the trace's metadata (docs/timeline.md).
//
// Run is `tally timeline`: it reads the inputs as every command does
// (inputs.Expand, then Read), each streaming to its own Writer.Sink, then
// finishes each read input's tracks and states the failed and skipped
// ones on the whole run's accounting track.
package timeline

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/tallyprof/tally/capture"
)

// Format is the kind of file a Writer writes.
type Format int

const (
	// Perfetto is Perfetto's native protobuf trace (.perfetto-trace).
	Perfetto Format = iota
	// Chrome is Chrome Trace Event JSON (object form).
	Chrome
)

func (f Format) String() string {
	if f == Chrome {
		return "chrome"
	}
	return "perfetto"
}

// FormatForPath picks the format from an output name: .json (and
// .json.gz is refused elsewhere) is Chrome JSON, anything else Perfetto.
func FormatForPath(path string) Format {
	if strings.HasSuffix(strings.ToLower(path), ".json") {
		return Chrome
	}
	return Perfetto
}

// ParseFormat reads a --as value.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "perfetto":
		return Perfetto, nil
	case "chrome", "json":
		return Chrome, nil
	}
	return 0, fmt.Errorf("unknown timeline format %q: give perfetto or chrome", s)
}

// maxLanes bounds the overlap lanes of one queue; a dispatch that fits none
// goes to the last lane and is counted as misnested.
const maxLanes = 32

// maxDepth bounds the nesting depth a lane tracks.
const maxDepth = 64

// Writer writes one timeline file. It is safe for concurrent use by the
// Sinks it hands out (inputs read in parallel share one file).
type Writer struct {
	mu     sync.Mutex
	bw     *bufio.Writer
	enc    encoder
	format Format
	closed bool

	groups   map[string]*track // by group label
	names    map[string]bool   // track names in use
	inputs   []*Sink
	whole    *track
	failures []wholeItem // failed inputs
	skipped  []wholeItem
	// collGaps and collNotes are the collective analysis's gaps and notes
	// of the whole run (Collectives).
	collGaps, collNotes []wholeItem
	// runGaps are the other gaps of the whole run (RunGap).
	runGaps []wholeItem

	// base is subtracted from every time before writing (Chrome: keeps
	// µs values exact in a double); set at the first time written.
	base    int64
	baseSet bool

	stats Stats
	flows uint64 // last flow id (unique in the file)
}

// Stats counts what a Writer wrote and what it could not draw.
type Stats struct {
	Tracks     int64
	Slices     int64 // completed dispatches drawn
	Unfinished int64 // unfinished dispatches drawn (to capture end)
	Instants   int64
	// Launches counts host launch slices drawn, each with a flow arrow to
	// its dispatch.
	Launches int64
	// LaunchesNotDrawn counts launches that fit no lane of their track
	// (their dispatches are drawn, with the launch time as an annotation).
	LaunchesNotDrawn int64
	// Not drawn (stated on the accounting tracks and in the metadata).
	Untimed    int64 // dispatches without a device time
	Aggregated int64 // dispatches known only through aggregated records
	Negative   int64 // times below the file's base (not representable)
	// OverlapLanes counts extra lanes opened for partially overlapping
	// dispatches of one queue; Misnested those that fit no lane.
	OverlapLanes int64
	Misnested    int64
	// Collectives counts the ranks' parts of matched collectives drawn on
	// their "collectives" tracks (Collectives).
	Collectives int64
}

// wholeItem is a gap of the whole run: an input that failed, a file skipped.
type wholeItem struct {
	kind, name, msg string
	note            bool // drawn as a note, not in the verdict (RunNote)
}

// track is one timeline track (a Perfetto track, a Chrome thread) or a
// group of tracks (a Perfetto parent track, a Chrome process).
type track struct {
	uuid   uint64
	parent *track
	name   string
	desc   string
	group  bool
	order  int32
	pid    int32 // Chrome: process of the group
	tid    int32 // Chrome: thread of the track
	kids   int32
}

// New returns a Writer that writes format f to out. Call Close to finish the
// file; its error (or the first write error) is the file's.
func New(out io.Writer, f Format) *Writer {
	w := &Writer{bw: bufio.NewWriterSize(out, 1<<16), format: f, groups: map[string]*track{}, names: map[string]bool{}}
	if f == Chrome {
		w.enc = newChrome(w.bw)
	} else {
		w.enc = newPerfetto(w.bw)
		w.baseSet = true // Perfetto takes the source's own ns (unsigned)
	}
	g := w.newGroup("tally", "", 0)
	w.whole = w.newTrack(g, "tally · accounting · whole run", "tally's accounting of the whole run: failed inputs, verdict", "whole")
	return w
}

// Sink is one input's view of the Writer: the capture.Sink its reader
// streams to. Each Sink keeps its input's own accounting.
type Sink struct {
	w     *Writer
	idx   int
	name  string
	group *track
	acct  *track
	lanes map[capture.QueueID]*queueLanes
	unfin *queueLanes
	hosts map[*track]*queueLanes // per group: its launches track
	// graphs are the graph launches drawn (O(graph launches)).
	graphs map[graphKey]bool

	c                 *capture.Capture
	start, end        int64
	timed             bool
	slices, unfinDraw int64
	untimed, agg      int64
	negative          int64
	misnested, extra  int64
	launchesNotDrawn  int64
	finished          bool
}

// Sink registers an input named name (its path) and returns its sink.
func (w *Writer) Sink(name string) *Sink {
	w.mu.Lock()
	defer w.mu.Unlock()
	in := &Sink{w: w, idx: len(w.inputs), name: name, lanes: map[capture.QueueID]*queueLanes{}}
	w.inputs = append(w.inputs, in)
	return in
}

// Failed records an input that could not be read at all: a gap of the
// whole, drawn on the run's accounting track, never hiding the others.
func (w *Writer) Failed(name string, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failures = append(w.failures, wholeItem{kind: "failed_input", name: name, msg: err.Error()})
}

// Skipped records a file found in a directory that no reader recognises.
func (w *Writer) Skipped(name, reason string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.skipped = append(w.skipped, wholeItem{kind: "skipped_file", name: name, msg: reason})
}

// RunGap records a gap of the whole run that no input's track shows — one
// recording read twice (repeated_input) — or a note of it — two inputs of
// one rank (repeated_rank): drawn on the run's accounting track, one
// instant per item; a gap, not a note, is counted in the verdict.
func (w *Writer) RunGap(g *capture.Gap) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, it := range g.Items {
		w.runGaps = append(w.runGaps, wholeItem{kind: string(g.Kind), name: it.Where, msg: it.What, note: g.Note})
	}
	if len(g.Items) == 0 {
		w.runGaps = append(w.runGaps, wholeItem{kind: string(g.Kind), msg: g.Summary, note: g.Note})
	}
}

// RunNote records a fact about the whole run that makes nothing
// incomplete but that a reader of the timeline must know — inputs on
// different clocks, whose tracks share one time axis though their times
// are not comparable: drawn on the run's accounting track as a note.
func (w *Writer) RunNote(kind, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.runGaps = append(w.runGaps, wholeItem{kind: kind, msg: msg, note: true})
}

// Stats returns what was written so far.
func (w *Writer) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}

// Dispatch draws one completed dispatch as a slice on its queue's track.
func (in *Sink) Dispatch(c *capture.Capture, d *capture.Dispatch) {
	w := in.w
	w.mu.Lock()
	defer w.mu.Unlock()
	in.c = c
	if d.Aggregate != nil {
		in.agg += d.Count()
		w.stats.Aggregated += d.Count()
		return
	}
	if !d.Device.Valid {
		in.untimed++
		w.stats.Untimed++
		return
	}
	b, e := d.Device.Begin, d.Device.End
	in.see(b, e)
	if !w.representable(b) {
		in.negative++
		w.stats.Negative++
		return
	}
	ql := in.queue(c, d.Queue)
	k := &c.Kernels[d.Kernel]
	flow := in.launch(c, d, ql.parent, k.Name)
	t := in.place(ql, b, e)
	args := w.enc.args()
	args = append(args, arg{key: "program", s: c.Programs[d.Program].Name})
	if q := d.Queue; q >= 0 && int(q) < len(c.Queues) {
		// outputs.md (a): the slice names its device and queue, so a
		// selected slice says where it ran without reading the track tree.
		if c.Queues[q].Device != "" {
			args = append(args, arg{key: "device", s: c.Queues[q].Device})
		}
		args = append(args, arg{key: "queue", s: c.Queues[q].Name})
	}
	if d.Instance >= 0 {
		args = append(args, arg{key: "run", i: d.Instance, isInt: true})
	}
	if pos := position(d); pos != "" {
		args = append(args, arg{key: "position", s: pos})
	}
	if d.Launch.Valid {
		args = append(args, arg{key: "launch", i: d.Launch.Begin, isInt: true})
	}
	if d.Link != capture.LinkNone {
		args = append(args, arg{key: "link", s: d.Link.String()})
	}
	if !k.Resolved {
		args = append(args, arg{key: "resolved", b: false, isBool: true})
	}
	cat := k.Category
	if cat == "" {
		cat = "kernel"
	}
	if cat == "kernel" && d.Link == capture.LinkGraph {
		cat = "graph_kernel" // outputs.md (a): a kernel replayed by a graph launch
	}
	w.enc.slice(t, k.Name, cat, b-w.base, e-w.base, args, 0, flow)
	in.slices++
	w.stats.Slices++
}

// position is where the dispatch sits in its program, as the format says.
func position(d *capture.Dispatch) string {
	var b strings.Builder
	if d.List != "" {
		b.WriteString(d.List)
	}
	if d.Index >= 0 {
		b.WriteString("[" + strconv.FormatInt(d.Index, 10) + "]")
	}
	if d.Ordinal >= 0 {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString("ordinal " + strconv.FormatInt(d.Ordinal, 10))
	}
	return b.String()
}

func (in *Sink) see(b, e int64) {
	if !in.timed {
		in.start, in.end, in.timed = b, e, true
	}
	in.start = min(in.start, b)
	in.end = max(in.end, e)
	w := in.w
	if !w.baseSet {
		w.baseSet = true
		// Chrome JSON holds µs as doubles: relative to a base rounded down
		// to the hour (and an hour earlier), ns stay exact below 2^53.
		if b >= 1<<52 {
			const hour = 3600_000_000_000
			w.base = b - b%hour - hour
		}
	}
}

func (w *Writer) representable(t int64) bool { return t >= w.base }

// groupFor returns the group of rank (or, rank unknown, of the input).
func (in *Sink) groupFor(rank string) *track {
	w := in.w
	label := "rank " + rank
	// Groups sort by rank number, then inputs without a rank in argument
	// order, whatever order parallel readers reach them in.
	order := int32(1_000_000 + in.idx)
	if n, err := strconv.Atoi(rank); err == nil && n >= 0 && n < 1_000_000 {
		order = int32(n + 1)
	}
	if rank == "" {
		label = fmt.Sprintf("input %d · %s", in.idx, filepath.Base(in.name))
	}
	if g := w.groups[label]; g != nil {
		return g
	}
	g := w.newGroup(label, "", order)
	w.groups[label] = g
	return g
}

func (w *Writer) newGroup(label, desc string, order int32) *track {
	g := &track{uuid: uuidOf("group/" + label), name: label, desc: desc, group: true, order: order}
	w.declare(g)
	return g
}

// newTrack declares a track under parent with a name unique in the file
// (Perfetto merges same-name siblings by default; tally also disables it).
func (w *Writer) newTrack(parent *track, name, desc, key string) *track {
	full := name
	for i := 2; w.names[full]; i++ {
		full = fmt.Sprintf("%s (%d)", name, i)
	}
	w.names[full] = true
	parent.kids++
	t := &track{uuid: uuidOf(key), parent: parent, name: full, desc: desc, order: parent.kids}
	w.declare(t)
	return t
}

func (w *Writer) declare(t *track) {
	w.stats.Tracks++
	w.enc.track(t)
}

// uuidOf is a stable non-zero track id: FNV-1a of the track's path.
func uuidOf(path string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(path))
	if v := h.Sum64(); v != 0 {
		return v
	}
	return 1
}

// queueLanes is one queue's tracks: its main lane and overlap lanes.
type queueLanes struct {
	parent *track
	name   string
	key    string
	lanes  []*lane
}

// lane holds properly nested slices only: the ends of the slices that
// enclose the latest one, and the latest begin (slices must come in begin
// order to be placed without holding them).
type lane struct {
	t         *track
	ends      []int64
	lastBegin int64
	used      bool
}

func (in *Sink) queue(c *capture.Capture, q capture.QueueID) *queueLanes {
	if ql := in.lanes[q]; ql != nil {
		return ql
	}
	rank := c.QueueRank(q)
	g := in.groupFor(rank)
	if in.group == nil {
		in.group = g
	}
	name := g.name + " · " + queueLabel(c, q)
	ql := &queueLanes{parent: g, name: name, key: fmt.Sprintf("in%d/q%d", in.idx, q)}
	in.lanes[q] = ql
	return ql
}

// queueLabel is a queue's device and name, as its track shows them (the
// rank is the track's group).
func queueLabel(c *capture.Capture, q capture.QueueID) string {
	if q < 0 || int(q) >= len(c.Queues) {
		return "(no queue recorded)"
	}
	qq := c.Queues[q]
	qq.Rank = ""
	return qq.Label()
}

// queueName names a gap item's queue (with its rank, when known) for an
// annotation; "" when the item has none.
func queueName(c *capture.Capture, q *capture.QueueID) string {
	if q == nil || *q < 0 || int(*q) >= len(c.Queues) {
		return ""
	}
	qq := c.Queues[*q]
	qq.Rank = c.QueueRank(*q)
	return qq.Label()
}

// place returns the lane track for [b, e]: the first lane where it nests
// properly, opening an overlap lane when none fits.
func (in *Sink) place(ql *queueLanes, b, e int64) *track {
	w := in.w
	if t := in.tryPlace(ql, b, e); t != nil {
		return t
	}
	in.misnested++
	w.stats.Misnested++
	return ql.lanes[len(ql.lanes)-1].t
}

// tryPlace is place without the last resort: nil when no lane fits and no
// more lanes may be opened.
func (in *Sink) tryPlace(ql *queueLanes, b, e int64) *track {
	w := in.w
	for _, l := range ql.lanes {
		if l.fit(b, e) {
			return l.t
		}
	}
	if len(ql.lanes) < maxLanes {
		n := len(ql.lanes)
		name, desc := ql.name, ""
		if n > 0 {
			name = fmt.Sprintf("%s · overlap lane %d", ql.name, n)
			desc = "dispatches of the same queue that partially overlap the main lane's (tally opens a lane rather than break nesting)"
			in.extra++
			w.stats.OverlapLanes++
		}
		l := &lane{t: w.newTrack(ql.parent, name, desc, fmt.Sprintf("%s/lane%d", ql.key, n))}
		ql.lanes = append(ql.lanes, l)
		l.fit(b, e)
		return l.t
	}
	return nil
}

func (l *lane) fit(b, e int64) bool {
	if l.used && b < l.lastBegin {
		return false
	}
	n := len(l.ends)
	for n > 0 && l.ends[n-1] <= b {
		n--
	}
	if n > 0 && e > l.ends[n-1] {
		return false
	}
	if n >= maxDepth {
		return false
	}
	l.ends = append(l.ends[:n], e)
	l.lastBegin, l.used = b, true
	return true
}
