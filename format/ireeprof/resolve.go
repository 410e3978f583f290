package ireeprof

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
)

// resolver maps what events name (command buffer, device/queue, executable
// function) to the capture's programs, queues and kernels (spec §11). Its
// tables grow with programs and kernels, not with events.
type resolver struct {
	multiSession bool
	programs     map[progKey]*progState
	progs        []*progState // by ProgramID
	queues       map[queueRef]capture.QueueID
	// unresolved counts dispatches per anonymous kernel; indexed by
	// KernelID, nil for named kernels.
	unresolved []*unresolvedKernel
	// kcache maps (program, executable, function) to a kernel without a
	// map lookup per event: a direct-mapped cache in front of the
	// programs' kernel maps.
	kcache [1 << kcacheBits]kcEntry
}

const kcacheBits = 11

type kcEntry struct {
	exe  uint64
	prog capture.ProgramID
	fn   uint32
	id   capture.KernelID
}

// progKey identifies a program: a command buffer (0 = direct dispatches) of
// one session occurrence; device programs of a session whose dispatches span
// several devices are split per device, so each program has one clock.
type progKey struct {
	session int
	device  uint32
	cb      uint64
	host    bool
}

type progState struct {
	id      capture.ProgramID
	name    string
	s       *session
	device  uint32
	host    bool
	kernels map[fnKey]capture.KernelID
	lastSub uint64
	runs    int64
	clock   capture.Clock
}

type queueRef struct {
	session       int
	device, queue uint32
}

type unresolvedKernel struct {
	gap        *capture.Gap
	dispatches int64
}

func (r *reader) initResolver() {
	r.res = resolver{
		multiSession: len(r.sessions) > 1,
		programs:     map[progKey]*progState{},
		queues:       map[queueRef]capture.QueueID{},
	}
	for i := range r.res.kcache {
		r.res.kcache[i].id = -1 // empty: never matches
	}
}

func ordinal(v uint32) string {
	if v == noOrdinal {
		return "none"
	}
	return fmt.Sprint(v)
}

func (r *reader) sessionPrefix(s *session) string {
	if r.res.multiSession {
		return fmt.Sprintf("session %d: ", s.occ)
	}
	return ""
}

// program returns the program of command buffer cb in session s.
func (r *reader) program(s *session, dev uint32, cb uint64, host bool) *progState {
	key := progKey{session: s.occ, device: noOrdinal, cb: cb, host: host}
	perDevice := !host && len(s.dispatchDevices) > 1
	if perDevice {
		key.device = dev
	}
	if p := r.res.programs[key]; p != nil {
		return p
	}
	name := programName(cb, dev, perDevice, host)
	name = r.sessionPrefix(s) + name
	p := &progState{name: name, s: s, device: dev, host: host, kernels: map[fnKey]capture.KernelID{}}
	if host {
		p.clock = hostClock
	} else {
		p.clock = r.deviceClock(s, dev)
	}
	clk := p.clock
	prog := capture.Program{Name: name, Clock: &clk}
	if !s.ended {
		prog.Notes = append(prog.Notes, fmt.Sprintf("%s never ended: events still in the producer's buffers are missing from this program", s.label()))
	} else if s.status != 0 {
		prog.Notes = append(prog.Notes, fmt.Sprintf("%s ended with status %s: this program may lack its last events", s.label(), statusName(s.status)))
	}
	p.id = r.c.AddProgram(prog)
	r.res.programs[key] = p
	r.res.progs = append(r.res.progs, p)
	return p
}

// run counts the program's submissions: consecutive events that share a
// submission id are one run. It returns the 0-based run index.
func (p *progState) run(sub uint64) int64 {
	if p.runs == 0 || sub != p.lastSub {
		p.runs++
		p.lastSub = sub
	}
	return p.runs - 1
}

// queue returns the capture queue of (device, queue) in session s.
func (r *reader) queue(s *session, dev, q uint32) capture.QueueID {
	key := queueRef{session: s.occ, device: dev, queue: q}
	if id, ok := r.res.queues[key]; ok {
		return id
	}
	pre := r.sessionPrefix(s)
	id := r.c.AddQueue(capture.Queue{Name: pre + "device " + ordinal(dev) + " queue " + ordinal(q), Device: pre + "device " + ordinal(dev)})
	r.res.queues[key] = id
	return id
}

// anonymous is iree-profile's label for an unnamed function (spec §11).
func anonymous(dev uint32, exe uint64, fn uint32) string {
	if dev == noOrdinal {
		return fmt.Sprintf("executable%d#%d", exe, fn)
	}
	return fmt.Sprintf("device%d/executable%d#%d", dev, exe, fn)
}

// kernelFor is kernel behind the cache.
func (r *reader) kernelFor(p *progState, dev uint32, exe uint64, fn uint32) capture.KernelID {
	h := (exe*0x9E3779B97F4A7C15 ^ uint64(fn)*0xC2B2AE3D27D4EB4F ^ uint64(p.id)*0x165667B19E3779F9) >> (64 - kcacheBits)
	e := &r.res.kcache[h]
	if e.prog == p.id && e.exe == exe && e.fn == fn && e.id >= 0 {
		return e.id
	}
	id := r.kernel(p, dev, exe, fn)
	*e = kcEntry{prog: p.id, exe: exe, fn: fn, id: id}
	return id
}

// kernel returns the kernel of (executable, function) in program p, naming it
// from p's session only: a name is never borrowed from another session.
func (r *reader) kernel(p *progState, dev uint32, exe uint64, fn uint32) capture.KernelID {
	key := fnKey{executable: exe, function: fn}
	if id, ok := p.kernels[key]; ok {
		return id
	}
	name, found := p.s.functions[key]
	k := capture.Kernel{Program: p.id, Name: name, Resolved: found && name != "", Category: "kernel"}
	var why string
	switch {
	case exe == 0 || fn == noOrdinal:
		why = fmt.Sprintf("the event names no function (executable_id %d, function ordinal %s)", exe, ordinal(fn))
	case !found:
		why = fmt.Sprintf("no %s record for executable %d function %d in %s", ctFunctions, exe, fn, p.s.label())
	case name == "":
		why = fmt.Sprintf("the function record for executable %d function %d has an empty name", exe, fn)
	}
	if !k.Resolved {
		k.Name = anonymous(dev, exe, fn)
	}
	id := r.c.AddKernel(k)
	p.kernels[key] = id
	var u *unresolvedKernel
	if !k.Resolved {
		g := r.gap(capture.UnresolvedName, p.name)
		g.Add(capture.Item{What: why, Program: p.name, Kernel: k.Name})
		u = &unresolvedKernel{gap: g}
	}
	r.res.unresolved = append(r.res.unresolved, u)
	return id
}

func (r *reader) dedupeKernelNames() {
	for _, p := range r.res.progs {
		p.dedupeKernelNames(r.c)
	}
}

// dedupeKernelNames qualifies the kernels of p that share a name (one
// export name in two executables), so rows can be told apart. The bundle
// and the JSONL reader both call it: the two must name a kernel alike.
func (p *progState) dedupeKernelNames(c *capture.Capture) {
	count := map[string]int{}
	for _, id := range p.kernels {
		count[c.Kernels[id].Name]++
	}
	for key, id := range p.kernels {
		if k := &c.Kernels[id]; count[k.Name] > 1 {
			k.Name += fmt.Sprintf(" [executable %d #%d]", key.executable, key.function)
		}
	}
}

// programName labels a program: its command buffer (or the direct dispatches
// outside any), split per device and per host/device clock when needed.
func programName(cb uint64, dev uint32, perDevice, host bool) string {
	name := "direct dispatches"
	if cb != 0 {
		name = fmt.Sprintf("command buffer %d", cb)
	}
	if perDevice {
		name += " on device " + ordinal(dev)
	}
	if host {
		name += " (host execution)"
	}
	return name
}
