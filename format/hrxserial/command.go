package hrxserial

import (
	"bytes"
	"fmt"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
)

// commandLine follows the six lines of one command:
//
//	sync-begin/sync-end command-pre-dispatch, begin/end command-dispatch
//	(traced commands only), sync-begin/sync-end command-post-dispatch.
//
// All six carry the same detail, so only the first is parsed; the others are
// compared with it byte for byte.
func (s *state) commandLine(ev event, ph phase, phaseName, det []byte, t uint64, timed bool) bool {
	c := &s.cmd
	if ph == phPre && ev == evSyncBegin {
		if len(det) > 0 && (!parseDetail(det, &s.d) || !wellFormed(ph, &s.d, false)) {
			return false
		}
		s.syncLine(ev, phaseName, t, timed)
		s.startCommand(det, &s.d, nil)
		return true
	}
	switch {
	case ph == phDispatch && (ev == evBegin || ev == evEnd):
	case (ph == phPre || ph == phPost) && (ev == evSyncBegin || ev == evSyncEnd):
	default:
		return false // e.g. "failed phase=command-dispatch": not in the grammar
	}
	if len(det) > 0 && !c.active {
		// Not parsed yet: check the form before judging the order.
		if !parseDetail(det, &s.d) || !wellFormed(ph, &s.d, false) {
			return false
		}
	}
	if ev == evSyncBegin || ev == evSyncEnd {
		s.syncLine(ev, phaseName, t, timed)
	}
	if !c.active || !bytes.Equal(det, c.raw) {
		s.inconsistency(fmt.Sprintf("%s phase=%s does not continue the current command", evName(ev), phaseName))
		return true
	}
	want := uint8(0)
	switch {
	case ph == phPre: // sync-end
		want = stPreBegin
	case ph == phDispatch && ev == evBegin:
		want = stPreEnd
	case ph == phDispatch: // end
		want = stDispatchBegin
	case ev == evSyncBegin: // post
		want = stDispatchEnd
		if !c.traced || (c.stage == stPreEnd && c.traced) {
			want = stPreEnd
		}
	default: // sync-end post
		want = stPostBegin
	}
	if c.stage != want || (ph == phDispatch && !c.traced) {
		s.inconsistency(fmt.Sprintf("%s phase=%s out of order", evName(ev), phaseName))
		return true
	}
	switch {
	case ph == phPre:
		c.stage = stPreEnd
	case ph == phDispatch && ev == evBegin:
		c.stage, c.tBegin, c.okBegin = stDispatchBegin, t, timed
	case ph == phDispatch:
		c.stage, c.tEnd, c.okEnd = stDispatchEnd, t, timed
	case ev == evSyncBegin:
		if c.traced && c.stage == stPreEnd {
			s.inconsistency("traced command without its command-dispatch lines")
		}
		c.stage = stPostBegin
	default:
		s.completeCommand(t, timed)
	}
	return true
}

func evName(ev event) string {
	switch ev {
	case evBegin:
		return "begin"
	case evEnd:
		return "end"
	case evFailed:
		return "failed"
	case evSyncBegin:
		return "sync-begin"
	}
	return "sync-end"
}

// startCommand opens a command at its pre-dispatch sync-begin; d holds the
// parsed detail when det is not empty. tail, when not nil, is how the
// command's next lines end — " "+det+"\n", or "\n" — in the block being
// applied: the command borrows it until the block is handed back (own).
func (s *state) startCommand(det []byte, d *detail, tail []byte) {
	if s.cmd.active {
		s.abandon("a new command began")
	}
	c := &s.cmd
	c.active, c.stage, c.line = true, stPreBegin, s.lineNo
	c.traced = len(det) > 0
	if tail != nil {
		c.tail, c.borrowed = tail, true
	} else {
		c.buf = append(c.buf[:0], ' ')
		if len(det) == 0 {
			c.buf = c.buf[:0]
		}
		c.buf = append(append(c.buf, det...), '\n')
		c.tail, c.borrowed = c.buf, false
	}
	c.setRaw()
	c.okBegin, c.okEnd = false, false
	c.prog = s.currentProgram()
	c.repeat = false
	if c.traced {
		c.d = *d
		c.kernel = c.d.kernel
		c.list, c.index = c.d.list, c.d.index
		c.repeat = s.inv != nil && c.index < s.done[c.list]
	} else {
		c.d = detail{}
		c.kernel = false
		c.list, c.index = listNone, 0
	}
	if l := s.list; l != nil && !c.repeat {
		pos := l.seen
		l.seen++
		if !c.traced {
			c.list, c.index = l.name, pos
		} else if c.d.list != l.name || c.d.index != pos {
			s.inconsistency(fmt.Sprintf("command %s[%d] at position %d of list %s", c.d.list, c.d.index, pos, l.name))
		}
	}
}

// setRaw points raw at the detail in tail.
func (c *command) setRaw() {
	if len(c.tail) == 1 {
		c.raw = c.tail[:0]
	} else {
		c.raw = c.tail[1 : len(c.tail)-1]
	}
}

// own copies a borrowed tail into the command's own buffer, before the
// block it lies in is handed back to be refilled.
func (c *command) own() {
	if c.borrowed {
		c.buf = append(c.buf[:0], c.tail...)
		c.tail, c.borrowed = c.buf, false
		c.setRaw()
	}
}

// completeCommand closes the current command at its post-dispatch sync-end.
func (s *state) completeCommand(t uint64, timed bool) {
	c := &s.cmd
	c.active = false
	p := c.prog
	if c.repeat {
		s.repeated(t, timed && c.okEnd, "")
		return
	}
	if c.traced && s.inv != nil {
		s.done[c.list] = c.index + 1
	}
	switch {
	case !c.traced:
		p.untraced++
		s.untracedCommands++
		return
	case !c.kernel:
		// From the command's own copy of its detail: the line it was
		// parsed from lies in a block a worker may have refilled since.
		if kind := c.d.kindIn(c.raw); len(kind) > capture.MaxName { // keys are kept: cut, as names are
			p.nonKernel[s.c.Name(string(kind))]++
		} else {
			p.nonKernel[string(kind)]++
		}
		s.nonKernelCommands++
		return
	}
	k := s.kernelFor(p, c.list, c.d.kernelID)
	// Field by field into the zeroed dispatch: a composite literal is
	// built on the stack and copied, and the copy's wide loads stall on
	// the narrow stores that built it, once a dispatch.
	d := &s.disp
	*d = capture.Dispatch{}
	d.Program, d.Queue, d.Kernel = p.id, capture.NoQueue, k
	d.List, d.Index, d.Ordinal = c.list.String(), int64(c.index), int64(c.d.ordinal)
	d.Instance = -1
	if s.inv != nil {
		d.Instance = s.inv.n
	}
	if c.okBegin && c.okEnd {
		d.Launch.Begin, d.Launch.End, d.Launch.Valid = int64(c.tBegin), int64(c.tEnd), c.tEnd >= c.tBegin
	}
	if c.okEnd && timed {
		d.Device.Begin, d.Device.End, d.Device.Valid = int64(c.tEnd), int64(t), t >= c.tEnd
	}
	s.dispatches++
	s.kernelCounts[k]++
	l := &s.last
	l.ok, l.prog, l.kernel, l.list, l.index, l.line = true, p, k, c.list, c.index, s.lineNo
	s.sink.Dispatch(s.c, d)
}

// kernelFor names a kernel id from the build's catalog, within program p and
// its list: the same id in two programs (or in a program's init and main
// lists) is two kernels, and an id the catalog does not name gets p's
// anonymous label.
func (s *state) kernelFor(p *program, list listName, id uint64) capture.KernelID {
	// A run dispatches a few kernels again and again: most are found in
	// a small table by their id's low bits, before the program's map.
	slot := &s.kernelSlots[(id^uint64(list))%uint64(len(s.kernelSlots))]
	if slot.prog == p && slot.id == id && slot.list == list {
		return slot.kernel
	}
	k, ok := p.kernels[list][id]
	if !ok {
		k = s.newKernel(p, list, id)
	}
	slot.prog, slot.list, slot.id, slot.kernel = p, list, id, k
	return k
}

// kernelSlot is one entry of state.kernelSlots: kernelFor's answer for
// (prog, list, id), which never changes once given.
type kernelSlot struct {
	prog   *program
	list   listName
	id     uint64
	kernel capture.KernelID
}

// newKernel adds the kernel of id in p's list, named from the catalog.
func (s *state) newKernel(p *program, list listName, id uint64) capture.KernelID {
	k := capture.Kernel{Program: p.id, ID: id, HasID: true, Category: "kernel"}
	if list != listNone {
		k.List = list.String()
	}
	e, status := s.cat.Lookup(id)
	if status == catalog.Found {
		k.Name, k.Resolved = e.Label(), true
	} else {
		k.Name = catalog.Anonymous(p.label, id)
	}
	kid := s.c.AddKernel(k)
	p.kernels[list][id] = kid
	s.kernelCounts = append(s.kernelCounts, 0)
	if status != catalog.Found {
		s.unresolved = append(s.unresolved, unresolvedID{kernel: kid, status: status, line: s.lineNo})
	}
	return kid
}

type unresolvedID struct {
	kernel capture.KernelID
	status catalog.Status
	line   int64
}

// abandon ends the current command before its last line. A kernel that was
// launched is an unfinished dispatch: named, with its launch time and the
// last dispatch that completed before it; never counted as a short one.
func (s *state) abandon(reason string) {
	c := &s.cmd
	if !c.active {
		return
	}
	c.active = false
	launched := c.stage >= stDispatchBegin || (!c.traced && c.stage >= stPostBegin)
	if c.repeat {
		// The command completed earlier in this run and is in the tables:
		// its cut repeat is a repeat, not an unfinished dispatch.
		if launched {
			s.repeated(0, false, " ("+reason+" before its end)")
		}
		return
	}
	if !launched || (c.traced && !c.kernel) {
		if c.traced && c.kernel {
			s.notLaunched++
		}
		return
	}
	p := c.prog
	it := capture.Item{
		What:          "launched, never finished (" + reason + ")",
		Program:       p.label,
		LastCompleted: s.lastDescription(),
	}
	if c.traced {
		it.Kernel = s.c.Kernels[s.kernelFor(p, c.list, c.d.kernelID)].Name
		it.Where = fmt.Sprintf("%s %s[%d] ordinal %d, line %d", s.runLabel(), c.list, c.index, c.d.ordinal, c.line)
		if c.okBegin {
			it.Time = capture.TimeOf(int64(c.tBegin))
		}
	} else {
		it.Kernel = "(untraced command: kind and kernel filtered out)"
		it.Where = fmt.Sprintf("%s %s[%d], line %d", s.runLabel(), c.list, c.index, c.line)
	}
	g := s.c.Accounting.Gap(capture.UnfinishedDispatch, p.label)
	g.Summary = "dispatches that were launched and never finished (device fault, hang, or the process was killed): not in the table, and not counted as short ones"
	g.Add(it)
}

// repeated counts the current command, which repeats a command its run
// already completed (the same list and index), as a duplicate_event: the
// first is in the tables, the repeat is not. t is its post-dispatch
// sync-end when timed.
func (s *state) repeated(t uint64, timed bool, cut string) {
	c := &s.cmd
	p := c.prog
	it := capture.Item{
		What:    fmt.Sprintf("%s %s[%d] ordinal %d repeats a command this run already completed%s: counted once", s.runLabel(), c.list, c.index, c.d.ordinal, cut),
		Program: p.label,
		Where:   s.where(c.line),
	}
	if c.kernel {
		it.Kernel = s.c.Kernels[s.kernelFor(p, c.list, c.d.kernelID)].Name
	} else {
		// c.raw is the command's own copy of its detail (c.d aliases a
		// read buffer that may have been reused since).
		kind := []byte("non-kernel")
		if i := bytes.Index(c.raw, []byte("kind=")); i >= 0 {
			kind, _, _ = bytes.Cut(c.raw[i+len("kind="):], []byte(" "))
		}
		it.Kernel = "(" + string(kind) + " command)"
	}
	if c.okBegin {
		it.Time = capture.TimeOf(int64(c.tBegin))
	}
	g := s.c.Accounting.Gap(capture.DuplicateEvent, p.label)
	g.Summary = "commands written twice in one program run (the same list and index): counted once, the repeats are not in the tables (repeated_ns is the time they would have added twice)"
	g.Add(it)
	if timed && t >= c.tEnd {
		have, _ := g.Figure("repeated_ns")
		g.SetFigure("repeated_ns", capture.SatAdd(have, int64(t-c.tEnd)))
	}
}

func (s *state) runLabel() string {
	if s.inv == nil {
		return "outside any program run,"
	}
	return fmt.Sprintf("run %d,", s.inv.n+1)
}

func (s *state) lastDescription() string {
	l := s.last
	if !l.ok {
		return "none (no dispatch completed before it)"
	}
	return fmt.Sprintf("%s %s[%d] %s (line %d)", l.prog.label, l.list, l.index, s.c.Kernels[l.kernel].Name, l.line)
}

// syncFailure handles "HRX debug serial sync failed phase=P <detail>: <err>".
func (s *state) syncFailure(b []byte, t uint64, timed bool) {
	s.syncFailures++
	rest := b[len(syncFailed):]
	phaseName := rest
	if i := bytes.IndexAny(rest, " :"); i >= 0 {
		phaseName = rest[:i]
	}
	it := capture.Item{What: "sync failed: " + string(clip(b, 300)), Where: s.where(s.lineNo)}
	if s.inv != nil {
		it.Program = s.inv.prog.label
	}
	if s.sync.open && bytes.Equal(s.sync.phase, phaseName) {
		s.sync.open = false
	}
	if s.cmd.active && s.cmd.traced && string(phaseName) == "command-post-dispatch" {
		it.Kernel = s.c.Kernels[s.kernelFor(s.cmd.prog, s.cmd.list, s.cmd.d.kernelID)].Name
	}
	g := s.c.Accounting.Gap(capture.DeviceFault, "")
	g.Summary = faultSummary
	g.Add(it)
	if s.cmd.active && string(phaseName) == "command-post-dispatch" {
		s.abandon("its post-dispatch sync failed")
	}
}

const faultSummary = "syncs that failed or never ended: work queued before them never completed (device fault or hang); the run stopped there"
