package ireeprof

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
)

// Repeated JSONL rows (docs/formats/ireeprof.md, "Record identity"). A row's
// event_id is unique in its stream only within its session, and the JSONL
// carries no session: the sessions of a multi-GPU HRX bundle share device
// ordinal 0, queue 0, stream 0 and ids from 1, so an id alone read twice is
// not a repeat. A row is a repeat when an earlier row of its stream has its
// event id and the same times (start and end tick, or host ns), submission,
// command buffer and index, executable and function: the same event printed
// twice (a bundle holding a record twice, or JSONL output concatenated). The
// check keeps the last rowWindow dispatch rows, so memory is fixed; a repeat
// of an older row is not found.

// rowWindow is the dispatch rows kept for the check.
const rowWindow = 4096

type rowStream struct {
	host          bool
	device, queue uint32
	stream, event uint64
}

type rowSeen struct {
	at           rowStream
	sub, cb, exe uint64
	index, fn    uint32
	start, end   uint64
	line         int64
}

type rowRepeats struct {
	ring  []rowSeen
	next  int
	index map[rowStream]int
}

// seen reports whether row repeats one of the window (and the line of the
// first), adding it when it does not. Rows without an event id carry no
// identity.
func (rp *rowRepeats) seen(host bool, row *jsonRow, line int64) (int64, bool) {
	if row.EventID == 0 {
		return 0, false
	}
	s := rowSeen{at: rowStream{host: host, device: row.Device, queue: row.Queue, stream: row.Stream, event: row.EventID},
		sub: row.Submission, cb: row.CommandBuffer, exe: row.Executable, index: row.CommandIndex, fn: row.function(),
		start: row.StartTick, end: row.EndTick, line: line}
	if host {
		s.start, s.end = uint64(row.StartHostNS), uint64(row.EndHostNS)
	}
	if rp.index == nil {
		rp.index = make(map[rowStream]int)
	}
	if i, ok := rp.index[s.at]; ok {
		if first := rp.ring[i]; first.sub == s.sub && first.cb == s.cb && first.exe == s.exe && first.index == s.index &&
			first.fn == s.fn && first.start == s.start && first.end == s.end {
			return first.line, true
		}
	}
	slot := rp.next % rowWindow
	if len(rp.ring) < rowWindow {
		rp.ring = append(rp.ring, s)
	} else {
		if old := rp.ring[slot].at; rp.index[old] == slot {
			delete(rp.index, old)
		}
		rp.ring[slot] = s
	}
	rp.index[s.at] = slot
	rp.next++
	return 0, false
}

// repeat reports whether row (valid, about to be sent) repeats a row
// already read; a repeat is skipped as lost to a duplicate_event gap.
func (j *jsonlReader) repeat(p *jsonProgram, kid capture.KernelID, row *jsonRow, iv capture.Interval, host bool, line int64, in *capture.InputCount) bool {
	first, dup := j.repeats.seen(host, row, line)
	if !dup {
		return false
	}
	g := j.loseRow(capture.DuplicateEvent, p, kid, row, in, "repeats a dispatch row already read (same stream, event id, times and dispatch)",
		func() string { return fmt.Sprintf(" repeats the row on line %d: counted once", first) },
		func() string { return fmt.Sprintf("line %d", line) })
	name := "repeated_ns"
	if p.clock.Unit != "ns" {
		name = "repeated_ticks"
	}
	if d, ok := iv.Duration(); ok {
		g.SetFigure(name, capture.SatAdd(figure(g, name), d))
	}
	return true
}
