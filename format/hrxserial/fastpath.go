package hrxserial

import (
	"bytes"

	"github.com/tallyprof/tally/internal/decimal"
)

// The five lines that follow a command's first line are predictable: the
// trace prefix, a known event and phase, then the same detail. So they are
// recognised by comparison instead of a parse — continueCommand for a line
// already split off, fastLine straight from the read buffer, where the
// comparison also finds the line's end — and anything else falls back to
// the general path, which reports what is out of order.

// want holds, per stage (the last line seen), the text after the stamp of
// the line that continues the command, up to its detail: traced commands
// continue with their command-dispatch lines after the pre-dispatch sync
// (wantTraced), untraced ones go on to the post-dispatch sync.
var (
	want       [stPostBegin + 1][]byte
	wantTraced [stPostBegin + 1][]byte
)

func init() {
	line := func(s string) []byte { return append(append([]byte{}, tracePrefix...), s...) }
	want[stPreBegin] = line("sync-end phase=command-pre-dispatch")
	want[stPreEnd] = line("sync-begin phase=command-post-dispatch")
	want[stDispatchBegin] = line("end phase=command-dispatch")
	want[stDispatchEnd] = line("sync-begin phase=command-post-dispatch")
	want[stPostBegin] = line("sync-end phase=command-post-dispatch")
	wantTraced = want
	wantTraced[stPreEnd] = line("begin phase=command-dispatch")
}

var (
	phasePre  = []byte("command-pre-dispatch")
	phasePost = []byte("command-post-dispatch")
)

// wanted is the expected continuation line's text up to its detail, nil
// when no command is open.
func (s *state) wanted() []byte {
	c := &s.cmd
	if !c.active || c.stage > stPostBegin {
		return nil
	}
	if c.traced {
		return wantTraced[c.stage]
	}
	return want[c.stage]
}

// continueCommand applies rest, a trace line after its stamp, when it is
// the line the open command expects.
func (s *state) continueCommand(rest []byte, t uint64, timed bool) bool {
	w := s.wanted()
	if w == nil || !bytes.HasPrefix(rest, w) {
		return false
	}
	// The detail follows as " "+raw+"\n" in tail (just "\n" without one).
	tail := s.cmd.tail
	if d := rest[len(w):]; len(d) != len(tail)-1 || !bytes.Equal(d, tail[:len(tail)-1]) {
		return false
	}
	return s.advance(t, timed)
}

// fastLine applies the line data starts with when it is the continuation
// the open command expects, and returns its length with its '\n' (0, with
// nothing changed, for any other line: the caller then splits the line off
// and takes the general path). It does what line and continueCommand do
// for such a line.
func (s *state) fastLine(data []byte) int {
	w := s.wanted()
	if w == nil || s.end.Seen {
		return 0
	}
	var t uint64
	p, timed := 0, false
	if data[0]-'0' <= 9 {
		v, n, over := decimal.Prefix(data)
		if n > decimal.MaxDigits || over || n >= len(data) || data[n] != ' ' {
			return 0
		}
		t, p, timed = v, n+1, true
	}
	tail := s.cmd.tail
	mid := p + len(w)
	end := mid + len(tail)
	if end > len(data) || !bytes.Equal(data[p:mid], w) || !bytes.Equal(data[mid:end], tail) {
		return 0
	}
	s.lineNo++
	if !s.advance(t, timed) {
		s.lineNo--
		return 0
	}
	s.counted(t, timed)
	return end
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
