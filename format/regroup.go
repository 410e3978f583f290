package format

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// regrouper is a sink between a reader and the rest of the read that
// regroups the reader's programs (see programby.go); finish completes the
// capture once the reader has returned it.
type regrouper interface {
	capture.Sink
	finish(c *capture.Capture)
}

// newRegroup returns the sink that regroups as g says, or nil when the
// reader's programs stay as they are.
func newRegroup(g Grouping, next capture.Sink) regrouper {
	switch {
	case g.Base == "":
		return &merge{how: g, next: next, ids: map[mergeKey]capture.ProgramID{}, kernels: map[kernelKey]capture.KernelID{},
			byKernel: map[partKernel]capture.KernelID{}, places: places{by: g.Split}}
	case g.Split != "":
		return &split{how: g, next: next, ids: map[partKey]capture.ProgramID{}, kernels: map[partKernel]capture.KernelID{},
			orig: map[capture.ProgramID]*part{}, devices: map[string]bool{}, byID: map[capture.ProgramID]*part{}, places: places{by: g.Split}}
	}
	return nil
}

// places names where dispatches ran, per queue, computed once a queue.
type places struct {
	by    string // ByDevice or ByStream
	known []bool
	key   []string
	label []string
}

// where names the device (or the stream) of a dispatch on queue q: a key
// and its label. Unknown is "" and "(no device)" / "(no stream)".
func (pl *places) where(c *capture.Capture, q capture.QueueID) (key, label string) {
	if q < 0 || int(q) >= len(c.Queues) {
		return "", "(no " + pl.by + ")"
	}
	if int(q) < len(pl.known) && pl.known[q] {
		return pl.key[q], pl.label[q]
	}
	qu := c.Queues[q]
	switch {
	case pl.by == ByStream:
		key, label = fmt.Sprint(int32(q)), qu.Label()
	case qu.Device == "" && qu.Rank == "":
		key, label = "", "(no device)"
	default:
		key, label = qu.Rank+"\x00"+qu.Device, capture.Queue{Rank: qu.Rank, Device: qu.Device}.Label()
	}
	for len(pl.known) <= int(q) {
		pl.known, pl.key, pl.label = append(pl.known, false), append(pl.key, ""), append(pl.label, "")
	}
	pl.known[q], pl.key[q], pl.label[q] = true, key, label
	return key, label
}

// maxRunsTracked bounds the run numbers split keeps (as bits) to count
// each part's runs: past it, a part states the reader's count over all
// its parts.
const maxRunsTracked = 1 << 24

// split makes one program per device (or stream) of each of the reader's
// programs. The first part of a program keeps the reader's ProgramID and
// kernels; each further part is a program (and kernels) appended to the
// capture as its first dispatch arrives, so the reader's ids stay valid.
// At the end every part is named after its device — unless the split was
// automatic and the capture ran on one device, in which case nothing was
// split and nothing changes.
type split struct {
	how     Grouping
	next    capture.Sink
	ids     map[partKey]capture.ProgramID
	parts   []*part
	byID    map[capture.ProgramID]*part
	kernels map[partKernel]capture.KernelID
	orig    map[capture.ProgramID]*part // each reader program's first part
	devices map[string]bool             // known devices (or streams) seen
	bits    int                         // run bits kept, all parts
	count   map[capture.ProgramID]int   // parts per reader program, at the end
	places  places
	d       capture.Dispatch

	last        *part
	lastProg    capture.ProgramID
	lastQueue   capture.QueueID
	lastUnknown bool
}

type partKey struct {
	prog capture.ProgramID
	key  string
}

type partKernel struct {
	kernel capture.KernelID
	prog   capture.ProgramID
}

// part is one program of the split: its reader program, where it ran, and
// the runs it saw, a bit per run number (readers number a program's runs
// from 0).
type part struct {
	id, orig capture.ProgramID
	key      string
	label    string
	runs     []uint64
	overflow bool
	// unknown counts the dispatches that record no device and, the split
	// being automatic, stayed with the program's first part.
	unknown int64
}

// part is the part of reader program prog that a dispatch ran on key
// (label) belongs to, made when it is the first. The first part of a
// program keeps the reader's ProgramID. When the split is automatic, a
// dispatch that records no device joins the first part: it is no second
// device, and the first known device takes that part too.
func (s *split) part(c *capture.Capture, prog capture.ProgramID, key, label string) *part {
	first := s.orig[prog]
	if s.how.Auto && key == "" {
		if first == nil {
			first = s.newPart(c, prog, "", label)
		}
		return first
	}
	if id, ok := s.ids[partKey{prog, key}]; ok {
		return s.byID[id]
	}
	if s.how.Auto && first != nil && first.key == "" {
		first.key, first.label = key, label // the first known device's
		s.ids[partKey{prog, key}] = first.id
		return first
	}
	return s.newPart(c, prog, key, label)
}

func (s *split) newPart(c *capture.Capture, prog capture.ProgramID, key, label string) *part {
	id := prog
	if s.orig[prog] != nil {
		p := c.Programs[prog]
		p.Notes = append([]string(nil), p.Notes...)
		id = c.AddProgram(p)
	}
	pt := &part{id: id, orig: prog, key: key, label: label}
	if s.orig[prog] == nil {
		s.orig[prog] = pt
	}
	s.ids[partKey{prog, key}] = id
	s.parts = append(s.parts, pt)
	s.byID[id] = pt
	return pt
}

func (pt *part) has(run int64) bool {
	return run >= 0 && run/64 < int64(len(pt.runs)) && pt.runs[run/64]&(1<<(run%64)) != 0
}

func (pt *part) count() int64 {
	n := 0
	for _, w := range pt.runs {
		n += bits.OnesCount64(w)
	}
	return int64(n)
}

func (s *split) Dispatch(c *capture.Capture, d *capture.Dispatch) {
	// Consecutive dispatches mostly share program and queue: the last
	// part found is tried first.
	pt := s.last
	if pt == nil || d.Program != s.lastProg || d.Queue != s.lastQueue {
		key, label := s.places.where(c, d.Queue)
		if key != "" {
			s.devices[key] = true
		}
		pt = s.part(c, d.Program, key, label)
		s.last, s.lastProg, s.lastQueue, s.lastUnknown = pt, d.Program, d.Queue, key == ""
	}
	if s.lastUnknown && s.how.Auto {
		pt.unknown++
	}
	id := pt.id
	if r := d.Instance; r >= 0 && !pt.overflow && !pt.has(r) {
		if w := int(r / 64); w >= len(pt.runs) {
			if s.bits+64*(w+1-len(pt.runs)) > maxRunsTracked {
				pt.overflow = true
			} else {
				s.bits += 64 * (w + 1 - len(pt.runs))
				pt.runs = append(pt.runs, make([]uint64, w+1-len(pt.runs))...)
			}
		}
		if !pt.overflow {
			pt.runs[r/64] |= 1 << (r % 64)
		}
	}
	if id == d.Program {
		s.next.Dispatch(c, d)
		return
	}
	pk2 := partKernel{d.Kernel, id}
	kid, ok := s.kernels[pk2]
	if !ok {
		k := c.Kernels[d.Kernel]
		k.Program = id
		kid = c.AddKernel(k)
		s.kernels[pk2] = kid
	}
	s.d = *d // reused, as readers reuse theirs: no allocation per dispatch
	s.d.Program, s.d.Kernel = id, kid
	s.next.Dispatch(c, &s.d)
}

func (s *split) finish(c *capture.Capture) {
	several := len(s.devices) > 1
	for prog := range s.orig {
		several = several || s.nparts(prog) > 1
	}
	if s.how.Auto && !several {
		return // one device: the reader's programs as they were
	}
	origs := map[capture.ProgramID]capture.Program{} // as the reader left them
	for prog := range s.orig {
		origs[prog] = c.Programs[prog]
	}
	renamed := map[string][]string{} // reader program name → its parts' names
	for _, pt := range s.parts {
		orig := origs[pt.orig]
		p := &c.Programs[pt.id]
		if pt.id != pt.orig {
			// The reader may have finished its program after the part
			// was made: runs, states, clock and notes as it left them.
			*p = orig
			p.Notes = append([]string(nil), orig.Notes...)
		}
		if s.nparts(pt.orig) > 1 {
			s.splitRuns(p, pt, orig)
		}
		if pt.unknown > 0 && pt.key != "" {
			p.Notes = append(p.Notes, fmt.Sprintf("%s no device: counted here, with the program's first device's", units.Plural(pt.unknown, "dispatch records", "dispatches record")))
		}
		name := orig.Name
		if !strings.HasPrefix(name, pt.label+" · ") {
			// (Already named after its device: a report read back, as
			// tally export --to kineto writes the programs.)
			p.Name = prefixName(pt.label+" · ", name)
		}
		renamed[name] = append(renamed[name], p.Name)
		// Kernels whose name is the program's anonymous label ("p41:#7")
		// keep it: it names the catalog the id was looked up in.
	}
	for _, g := range c.Accounting.Gaps {
		names, ok := renamed[g.Program]
		switch {
		case !ok:
		case len(names) == 1:
			c.Accounting.ScopeGap(g, names[0])
		default:
			// Split over devices: the gap is the capture's, its program
			// named in the summary (as tallyfinish does for regrouped
			// Kineto programs).
			g.Summary = "program " + g.Program + ": " + g.Summary
			c.Accounting.ScopeGap(g, "")
		}
	}
}

// splitRuns states the runs of one part of a split program: those its
// dispatches belong to, and among them the incomplete ones. Run states
// the reader counted over the whole program cannot be split: they go, and
// a note says so.
func (s *split) splitRuns(p *capture.Program, pt *part, orig capture.Program) {
	if pt.overflow || pt.count() == 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("runs: %d over all the program's %ss (too many to count per %s)", orig.Instances, s.how.Split, s.how.Split))
	} else {
		p.Instances = pt.count()
		var inc []int64
		for _, r := range orig.IncompleteRuns {
			if pt.has(r) {
				inc = append(inc, r)
			}
		}
		p.IncompleteRuns = inc
	}
	if len(orig.InstanceStates) > 0 {
		var parts []string
		for _, st := range orig.InstanceStates {
			parts = append(parts, fmt.Sprintf("%d %s", st.Count, st.Name))
		}
		p.InstanceStates = nil
		p.Notes = append(p.Notes, fmt.Sprintf("run states over all the program's %ss: %s", s.how.Split, strings.Join(parts, ", ")))
	}
}

func (s *split) nparts(prog capture.ProgramID) int {
	if s.count == nil {
		s.count = map[capture.ProgramID]int{}
		for _, pt := range s.parts {
			s.count[pt.orig]++
		}
	}
	return s.count[prog]
}

// merge makes one program per device or stream (or one for everything)
// out of every reader program, kernels by name within it. The reader's
// programs and kernels are replaced: merge keeps its own tables, passes
// dispatches on with a view of the capture that holds them, and puts them
// in the capture once the reader returns it.
type merge struct {
	how     Grouping
	next    capture.Sink
	view    capture.Capture
	progs   []capture.Program
	kerns   []capture.Kernel
	ids     map[mergeKey]capture.ProgramID
	kernels map[kernelKey]capture.KernelID
	known   bool // a dispatch had a known device or stream
	places  places
	d       capture.Dispatch

	byKernel  map[partKernel]capture.KernelID // by the reader's kernel
	started   bool
	lastProg  capture.ProgramID
	lastQueue capture.QueueID
	lastID    capture.ProgramID
}

// mergeKey separates programs by clock as well: times on two clocks are
// never summed.
type mergeKey struct {
	where string
	clock capture.Clock
}

type kernelKey struct {
	prog     capture.ProgramID
	name     string
	category string
	list     string
	resolved bool
}

func (m *merge) Dispatch(c *capture.Capture, d *capture.Dispatch) {
	id := m.lastID
	if m.lastProg != d.Program || m.lastQueue != d.Queue || !m.started {
		id = m.program(c, d)
		m.started, m.lastProg, m.lastQueue, m.lastID = true, d.Program, d.Queue, id
	}
	pk := partKernel{d.Kernel, id}
	kid, ok := m.byKernel[pk]
	if !ok {
		k := c.Kernels[d.Kernel]
		kk := kernelKey{prog: id, name: k.Name, category: k.Category, list: k.List, resolved: k.Resolved}
		if kid, ok = m.kernels[kk]; !ok {
			k.Program = id
			kid = capture.KernelID(len(m.kerns))
			m.kerns = append(m.kerns, k)
			m.kernels[kk] = kid
		}
		m.byKernel[pk] = kid
	}
	m.d = *d
	m.d.Program, m.d.Kernel, m.d.Instance = id, kid, 0
	m.view = *c
	m.view.Programs, m.view.Kernels = m.progs, m.kerns
	m.next.Dispatch(&m.view, &m.d)
}

// program is the merged program of a dispatch: where it ran, on its
// reader program's clock.
func (m *merge) program(c *capture.Capture, d *capture.Dispatch) capture.ProgramID {
	key, label := "", "all"
	if m.how.Split != "" {
		key, label = m.places.where(c, d.Queue)
		m.known = m.known || key != ""
	}
	var clock *capture.Clock
	if int(d.Program) < len(c.Programs) {
		clock = c.Programs[d.Program].Clock
	}
	mk := mergeKey{where: key}
	if clock != nil {
		mk.clock = *clock
	}
	id, ok := m.ids[mk]
	if !ok {
		id = capture.ProgramID(len(m.progs))
		name := label
		if clock != nil { // a program on its own clock: apart, and named so
			name += " · " + clock.Domain
		}
		m.progs = append(m.progs, capture.Program{Name: c.Name(name), Instances: 1, Clock: clock})
		m.ids[mk] = id
	}
	return id
}

func (m *merge) finish(c *capture.Capture) {
	was := make(map[string]bool, len(c.Programs))
	for _, p := range c.Programs {
		was[p.Name] = true
	}
	names := make([]string, 0, len(m.progs))
	for i := range m.progs {
		p := &m.progs[i]
		names = append(names, p.Name)
		switch {
		case m.how.Split == "":
			p.Notes = append(p.Notes, "--program-by none: every dispatch of the capture in one program, one run")
		case !m.known:
			p.Notes = append(p.Notes, fmt.Sprintf("--program-by %s: this input records no %s for its dispatches (the %s reader), so all are here", m.how, m.how.Split, c.Source.Format))
		default:
			p.Notes = append(p.Notes, fmt.Sprintf("--program-by %s: every dispatch on this %s in one program, one run", m.how, m.how.Split))
		}
	}
	sort.Strings(names)
	c.Programs, c.Kernels = m.progs, m.kerns
	now := map[string]bool{}
	for _, n := range names {
		now[n] = true
	}
	for _, g := range c.Accounting.Gaps {
		if g.Program != "" && !now[g.Program] && was[g.Program] {
			g.Summary = "program " + g.Program + ": " + g.Summary
			c.Accounting.ScopeGap(g, "")
		}
	}
}

// prefixName is prefix+name within capture.MaxName. A name the reader cut
// (and counted as long_name) keeps its marker, so its full length is still
// the input's; a longer prefix is cut from the name's kept bytes.
func prefixName(prefix, name string) string {
	s := prefix + name
	if len(s) <= capture.MaxName {
		return s
	}
	kept, marker := name, ""
	if i := strings.LastIndex(name, "…[truncated from "); i >= 0 && strings.HasSuffix(name, " bytes]") {
		kept, marker = name[:i], name[i:]
	}
	n := max(capture.MaxName-len(prefix)-len(marker), 0)
	for n > 0 && n < len(kept) && !utf8.RuneStart(kept[n]) {
		n--
	}
	if marker == "" {
		marker = capture.CutMarker(int64(len(s)))
		n = max(capture.MaxName-len(prefix)-len(marker), 0)
		for n > 0 && n < len(kept) && !utf8.RuneStart(kept[n]) {
			n--
		}
	}
	return prefix + kept[:min(n, len(kept))] + marker
}
