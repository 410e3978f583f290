package hrxserial

import (
	"bytes"
)

// The five lines that follow a command's first line are predictable: the
// trace prefix, a known event and phase, then the same detail. So they are
// recognised by comparison instead of a parse — continueCommand for a line
// the general path already split off, and a scan worker for the lines of
// its block (scan.go) — and anything else falls back to the general path,
// which reports what is out of order.

// cont names one of the five lines that continue a command (0: none).
type cont uint8

const (
	contSyncEndPre cont = iota + 1
	contBeginDispatch
	contEndDispatch
	contSyncBeginPost
	contSyncEndPost
)

// contText is each continuation's text after the stamp, up to its detail.
var contText = [...][]byte{
	contSyncEndPre:    traceLine("sync-end phase=command-pre-dispatch"),
	contBeginDispatch: traceLine("begin phase=command-dispatch"),
	contEndDispatch:   traceLine("end phase=command-dispatch"),
	contSyncBeginPost: traceLine("sync-begin phase=command-post-dispatch"),
	contSyncEndPost:   traceLine("sync-end phase=command-post-dispatch"),
}

func traceLine(s string) []byte { return append(append([]byte{}, tracePrefix...), s...) }

// want holds, per stage (the last line seen), the line that continues the
// command: traced commands continue with their command-dispatch lines
// after the pre-dispatch sync (wantTraced), untraced ones go on to the
// post-dispatch sync.
var (
	want = [stPostBegin + 1]cont{
		stPreBegin:      contSyncEndPre,
		stPreEnd:        contSyncBeginPost,
		stDispatchBegin: contEndDispatch,
		stDispatchEnd:   contSyncBeginPost,
		stPostBegin:     contSyncEndPost,
	}
	wantTraced = [stPostBegin + 1]cont{
		stPreBegin:      contSyncEndPre,
		stPreEnd:        contBeginDispatch,
		stDispatchBegin: contEndDispatch,
		stDispatchEnd:   contSyncBeginPost,
		stPostBegin:     contSyncEndPost,
	}
)

var (
	phasePre  = []byte("command-pre-dispatch")
	phasePost = []byte("command-post-dispatch")
)

// expected is the line the open command expects next, 0 when no command
// is open.
func (s *state) expected() cont {
	c := &s.cmd
	if !c.active || c.stage > stPostBegin {
		return 0
	}
	if c.traced {
		return wantTraced[c.stage]
	}
	return want[c.stage]
}

// continueCommand applies rest, a trace line after its stamp, when it is
// the line the open command expects.
func (s *state) continueCommand(rest []byte, t uint64, timed bool) bool {
	f := s.expected()
	if f == 0 || !bytes.HasPrefix(rest, contText[f]) {
		return false
	}
	// The detail follows as " "+raw+"\n" in tail (just "\n" without one).
	tail := s.cmd.tail
	if d := rest[len(contText[f]):]; len(d) != len(tail)-1 || !bytes.Equal(d, tail[:len(tail)-1]) {
		return false
	}
	return s.advance(t, timed)
}

// advance moves the open command on by the line that continues it, or
// returns false, changing nothing, when the syncs around it do not allow
// that line here.
func (s *state) advance(t uint64, timed bool) bool {
	c := &s.cmd
	if s.header.badClock != "" {
		timed = false
	}
	switch c.stage {
	case stPreBegin:
		if !s.sync.open || !bytes.Equal(s.sync.phase, phasePre) {
			return false
		}
		s.sync.open = false
		c.stage = stPreEnd
	case stPreEnd, stDispatchEnd:
		if c.stage == stPreEnd && c.traced {
			c.stage, c.tBegin, c.okBegin = stDispatchBegin, t, timed
			return true
		}
		if s.sync.open {
			return false
		}
		s.sync.open = true
		s.sync.phase = append(s.sync.phase[:0], phasePost...)
		s.sync.line, s.sync.t, s.sync.timed = s.lineNo, t, timed
		c.stage = stPostBegin
	case stDispatchBegin:
		c.stage, c.tEnd, c.okEnd = stDispatchEnd, t, timed
	case stPostBegin:
		if !s.sync.open || !bytes.Equal(s.sync.phase, phasePost) {
			return false
		}
		s.sync.open = false
		s.completeCommand(t, timed)
	default:
		return false
	}
	return true
}
