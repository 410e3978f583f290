package hrxserial

import "bytes"

// The five lines that follow a command's first line are predictable: the same
// detail after a known event and phase. continueCommand recognises the
// expected next line with two comparisons instead of a parse; anything else
// falls back to the general path, which reports what is out of order.

var (
	linePreEnd        = []byte("sync-end phase=command-pre-dispatch")
	lineDispatchBegin = []byte("begin phase=command-dispatch")
	lineDispatchEnd   = []byte("end phase=command-dispatch")
	linePostBegin     = []byte("sync-begin phase=command-post-dispatch")
	linePostEnd       = []byte("sync-end phase=command-post-dispatch")
	phasePre          = []byte("command-pre-dispatch")
	phasePost         = []byte("command-post-dispatch")
)

func (s *state) continueCommand(body []byte, t uint64, timed bool) bool {
	c := &s.cmd
	var want []byte
	switch c.stage {
	case stPreBegin:
		want = linePreEnd
	case stPreEnd:
		if c.traced {
			want = lineDispatchBegin
		} else {
			want = linePostBegin
		}
	case stDispatchBegin:
		want = lineDispatchEnd
	case stDispatchEnd:
		want = linePostBegin
	case stPostBegin:
		want = linePostEnd
	default:
		return false
	}
	if !bytes.HasPrefix(body, want) {
		return false
	}
	rest := body[len(want):]
	if len(c.raw) == 0 {
		if len(rest) != 0 {
			return false
		}
	} else if len(rest) != len(c.raw)+1 || rest[0] != ' ' || !bytes.Equal(rest[1:], c.raw) {
		return false
	}
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
	}
	return true
}
