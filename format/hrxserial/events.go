package hrxserial

import (
	"bytes"
	"fmt"

	"github.com/tallyprof/tally/capture"
)

// event applies one well-formed trace line. It returns false when the line
// does not fit the grammar (wrong event for the phase, wrong detail form):
// the caller counts it as malformed.
func (s *state) event(ev event, ph phase, phaseName, det []byte, t uint64, timed bool) bool {
	if s.header.badClock != "" {
		timed = false
	}
	switch ph {
	case phPre, phDispatch, phPost:
		return s.commandLine(ev, ph, phaseName, det, t, timed)
	}
	d := &s.d
	empty := len(det) == 0
	if !empty && !parseDetail(det, d) {
		return false
	}
	if empty {
		*d = detail{}
	}
	return s.otherEvent(ev, ph, phaseName, d, empty, t, timed)
}

// otherEvent applies a trace line of a phase other than a command's, d its
// parsed detail (empty: it has none), as event does.
func (s *state) otherEvent(ev event, ph phase, phaseName []byte, d *detail, empty bool, t uint64, timed bool) bool {
	if !wellFormed(ph, d, empty) {
		return false
	}
	isSync := ev == evSyncBegin || ev == evSyncEnd
	switch ph {
	case phProgram, phList:
		if isSync {
			return false
		}
		if ph == phList && ev == evFailed {
			return false
		}
	case phUnknown:
		if len(phaseName) > capture.MaxName { // keys are kept: cut, as names are
			s.unknownPhases[s.c.Name(string(phaseName))]++
		} else {
			s.unknownPhases[string(phaseName)]++
		}
	default:
		if !isSync {
			return false
		}
	}
	if isSync {
		s.syncLine(ev, phaseName, t, timed)
	}

	switch ph {
	case phProgram:
		if ev == evBegin {
			s.beginProgram(d)
		} else {
			s.endProgram(d, ev == evFailed)
		}
	case phList:
		if ev == evBegin {
			s.beginList(d)
		} else {
			s.endList(d)
		}
	case phUploadPre:
		if ev == evSyncBegin && s.inv == nil {
			s.openInvocation(s.programFor(d.main), false, false)
			s.checkInit(s.inv.prog, d.init)
		}
	case phDownloadPost:
		if ev == evSyncEnd && s.inv != nil && !s.inv.bracketed && !s.inv.listOnly {
			s.closeInvocation("complete")
		}
	case phUploadBuffer, phProgramSync:
		if s.inv == nil {
			s.outside++
		}
	}
	return true
}

// syncLine pairs every sync-begin with its sync-end. A sync-begin left open
// at the end of input is a device fault (finish).
func (s *state) syncLine(ev event, phaseName []byte, t uint64, timed bool) {
	if ev == evSyncBegin {
		if s.sync.open {
			s.inconsistency(fmt.Sprintf("sync-begin phase=%s while sync phase=%s from line %d has not ended", phaseName, s.sync.phase, s.sync.line))
		}
		s.sync.open = true
		s.sync.phase = append(s.sync.phase[:0], phaseName...)
		s.sync.line, s.sync.t, s.sync.timed = s.lineNo, t, timed
		return
	}
	if !s.sync.open || !bytes.Equal(s.sync.phase, phaseName) {
		s.inconsistency(fmt.Sprintf("sync-end phase=%s without its sync-begin", phaseName))
		return
	}
	s.sync.open = false
}

func (s *state) checkInit(p *program, init uint64) {
	if !p.initSet {
		p.init, p.initSet = init, true
		return
	}
	if p.init != init {
		// Two programs of the same main size cannot be told apart (spec §9).
		p.initMismatch++
	}
}

func (s *state) openInvocation(p *program, bracketed, listOnly bool) {
	s.invocations++
	var n int64 = p.complete + p.failed + p.incomplete + p.unbracketed
	s.inv = &invocation{prog: p, bracketed: bracketed, listOnly: listOnly, n: n, line: s.lineNo}
	s.done = [3]uint64{}
}

// closeInvocation ends the open invocation with outcome "complete", "failed"
// or "incomplete".
func (s *state) closeInvocation(outcome string) {
	inv := s.inv
	if inv == nil {
		return
	}
	if s.cmd.active {
		s.abandon("its program run ended (" + outcome + ")")
	}
	s.list = nil
	s.inv = nil
	p := inv.prog
	if !inv.bracketed && outcome == "complete" {
		p.unbracketed++
		return
	}
	if outcome != "complete" {
		p.notComplete = append(p.notComplete, inv.n)
	}
	switch outcome {
	case "complete":
		p.complete++
	case "failed":
		p.failed++
		g := s.c.Accounting.Gap(capture.FailedProgram, p.label)
		g.Summary = "program runs that ended 'failed': a command failed to enqueue, a staging copy failed, or a sync failed; dispatches completed before the failure are in the table"
		g.Add(capture.Item{What: fmt.Sprintf("run %d ended failed", inv.n+1), Program: p.label, Where: fmt.Sprintf("lines %d-%d", inv.line, s.lineNo)})
	case "incomplete":
		p.incomplete++
		g := s.c.Accounting.Gap(capture.IncompleteProgram, p.label)
		g.Summary = "program runs that began and never ended: the process stopped inside them, or a step of the program wrapper failed without an end line"
		g.Add(capture.Item{What: fmt.Sprintf("run %d began and never ended", inv.n+1), Program: p.label, Where: fmt.Sprintf("from line %d", inv.line)})
	}
}

func (s *state) beginProgram(d *detail) {
	if s.inv != nil {
		s.closeInvocation("incomplete")
	}
	p := s.programFor(d.main)
	s.checkInit(p, d.init)
	s.openInvocation(p, true, false)
}

func (s *state) endProgram(d *detail, failed bool) {
	if s.inv == nil || !s.inv.bracketed || s.inv.prog.main != d.main {
		s.inconsistency(fmt.Sprintf("end of program main_commands=%d that is not the open one", d.main))
		if s.inv != nil {
			s.closeInvocation("incomplete")
		}
		return
	}
	if failed {
		s.closeInvocation("failed")
	} else {
		s.closeInvocation("complete")
	}
}

func (s *state) beginList(d *detail) {
	if s.inv == nil {
		// Graph-replay prefix mode runs lists outside any program.
		s.openInvocation(s.programFor(d.main), false, true)
	} else if s.inv.prog.main != d.main {
		s.inconsistency(fmt.Sprintf("command-list of main_commands=%d inside program %s", d.main, s.inv.prog.label))
	}
	if s.list != nil {
		s.inconsistency(fmt.Sprintf("command-list %s began while list %s from line %d was open", d.list, s.list.name, s.list.line))
	}
	p := s.inv.prog
	if d.list == listMain && d.listCommands != d.main {
		s.inconsistency(fmt.Sprintf("main list of %d commands in program %s", d.listCommands, p.label))
	}
	if d.list == listInit && p.initSet && d.listCommands != p.init {
		s.inconsistency(fmt.Sprintf("init list of %d commands in program %s with init_commands=%d", d.listCommands, p.label, p.init))
	}
	s.list = &listState{name: d.list, commands: d.listCommands, line: s.lineNo}
}

func (s *state) endList(d *detail) {
	l := s.list
	if l == nil || l.name != d.list {
		s.inconsistency(fmt.Sprintf("end of command-list %s that is not open", d.list))
		return
	}
	if s.cmd.active {
		s.abandon("its list ended")
	}
	if l.seen != l.commands {
		s.inconsistency(fmt.Sprintf("%s list announced %d commands, %d seen (lines %d-%d)", l.name, l.commands, l.seen, l.line, s.lineNo))
	}
	s.list = nil
	if s.inv != nil && s.inv.listOnly {
		s.closeInvocation("complete")
	}
}

// currentProgram is the program a command belongs to.
func (s *state) currentProgram() *program {
	if s.inv != nil {
		return s.inv.prog
	}
	return s.unknownProgram()
}
