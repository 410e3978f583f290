package probereader

import (
	"fmt"
	"unicode/utf8"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/probefile"
)

// str reads a u32-length string at b[off:]; ok is false when it does not fit.
func str(b []byte, off int) (s string, next int, ok bool) {
	if off+4 > len(b) {
		return "", 0, false
	}
	n := int(le.Uint32(b[off:]))
	if n < 0 || n > len(b)-off-4 {
		return "", 0, false
	}
	return string(b[off+4 : off+4+n]), off + 4 + n, true
}

// decode applies one record; ok false says why it was skipped.
func (rd *reader) decode(typ byte, b []byte, at int64) (ok bool, why string) {
	switch typ {
	case probefile.TypeProgram:
		return rd.program(b)
	case probefile.TypeQueue:
		return rd.queue(b)
	case probefile.TypeKernel:
		return rd.kernel(b)
	case probefile.TypeEvents:
		if rd.hdr.Families&probefile.FamilyDispatchEvents == 0 {
			// The summaries stand for these dispatches already: both
			// would count them twice.
			return false, "events record in a file without the dispatch-events family"
		}
		return rd.eventBatch(b, at)
	case probefile.TypeCheckpoint:
		return rd.checkpoint(b)
	case probefile.TypeSummary:
		return rd.summary(b, at)
	case probefile.TypeNote:
		s, next, ok := str(b, 0)
		if !ok || next != len(b) {
			return false, "malformed note record"
		}
		rd.note = s
		return true, ""
	case probefile.TypeEnd:
		if len(b) != probefile.EndLen {
			return false, "malformed end record"
		}
		rd.ended = true
		rd.end = endRecord{
			time: int64(le.Uint64(b)), launches: clamp(le.Uint64(b[8:])), recorded: clamp(le.Uint64(b[16:])),
			dropped: clamp(le.Uint64(b[24:])), inFlight: int64(le.Uint32(b[32:])), summaries: int64(le.Uint32(b[36:])),
			layers: int64(le.Uint32(b[40:])), flags: le.Uint32(b[44:]),
		}
		return true, ""
	}
	return false, whyUnknownType
}

// name makes a producer's string displayable; "" when it is not usable.
func name(s string) string {
	if !utf8.ValidString(s) {
		return ""
	}
	return s
}

func (rd *reader) program(b []byte) (bool, string) {
	if len(b) < 4 {
		return false, "malformed program record"
	}
	id := le.Uint32(b)
	s, next, ok := str(b, 4)
	if !ok || next != len(b) {
		return false, "malformed program record"
	}
	if _, dup := rd.programs[id]; dup {
		return false, "program id defined twice"
	}
	if s = name(s); s == "" {
		s = fmt.Sprintf("program#%d", id)
	}
	rd.programs[id] = rd.c.AddProgram(capture.Program{Name: s, Instances: 1})
	return true, ""
}

func (rd *reader) queue(b []byte) (bool, string) {
	if len(b) < 4 {
		return false, "malformed queue record"
	}
	id := le.Uint32(b)
	qn, next, ok := str(b, 4)
	dev, next2, ok2 := str(b, next)
	if !ok || !ok2 || next2 != len(b) {
		return false, "malformed queue record"
	}
	if _, dup := rd.queues[id]; dup {
		return false, "queue id defined twice"
	}
	if qn = name(qn); qn == "" {
		qn = fmt.Sprintf("queue#%d", id)
	}
	qid := rd.c.AddQueue(capture.Queue{Name: qn, Device: name(dev)})
	rd.queues[id] = &queueState{id: qid, name: qn}
	return true, ""
}

func (rd *reader) kernel(b []byte) (bool, string) {
	if len(b) < 8 {
		return false, "malformed kernel record"
	}
	id, prog := le.Uint32(b), le.Uint32(b[4:])
	s, next, ok := str(b, 8)
	if !ok || next != len(b) {
		return false, "malformed kernel record"
	}
	p, okp := rd.programs[prog]
	if !okp {
		return false, "kernel of an undefined program"
	}
	if _, dup := rd.kernels[id]; dup {
		return false, "kernel id defined twice"
	}
	k := capture.Kernel{Program: p, Name: name(s), ID: uint64(id), HasID: true, Resolved: true, Category: "kernel"}
	if k.Name == "" {
		k.Name = fmt.Sprintf("%s:#%d", rd.c.Programs[p].Name, id)
		k.Resolved = false
		g := rd.c.Accounting.Gap(capture.UnresolvedName, rd.c.Programs[p].Name)
		g.Summary = "kernels defined without a usable name (empty or invalid UTF-8), shown by id"
		g.Add(capture.Item{What: k.Name, Kernel: k.Name})
	}
	rd.kernels[id] = rd.c.AddKernel(k)
	return true, ""
}

func (rd *reader) eventBatch(b []byte, at int64) (bool, string) {
	if len(b) < probefile.EventsFixed {
		return false, "malformed events record"
	}
	qid, n := le.Uint32(b), int(le.Uint32(b[4:]))
	if n < 0 || n > (len(b)-probefile.EventsFixed)/probefile.EventLen || probefile.EventsFixed+n*probefile.EventLen != len(b) {
		return false, "malformed events record"
	}
	rd.events.Read += int64(n)
	// where is formatted only for an event that is not used.
	where := func() string { return fmt.Sprintf("events record at byte %d", at) }
	q := rd.queues[qid]
	if q == nil {
		g := rd.undefined()
		g.Add(capture.Item{What: fmt.Sprintf("%d dispatch events on queue #%d, which the file never defined: not in the tables", n, qid), Where: where()})
		g.AddN(int64(n) - 1)
		rd.events.Lose(g, "on an undefined queue", int64(n), fmt.Sprintf("byte %d", at))
		return true, ""
	}
	if n > 0 && q.batch.repeats(b) {
		// The queue's previous events record written again: its events
		// are in the tables once (and the checkpoints count them once).
		g := rd.duplicates("")
		g.Add(capture.Item{What: fmt.Sprintf("events record of %d events repeats the previous events record of queue %s: counted once", n, q.name), Queue: capture.QueueOf(q.id), Where: where()})
		g.AddN(int64(n) - 1)
		rd.events.Lose(g, "repeats the previous events record of its queue", int64(n), fmt.Sprintf("byte %d", at))
		return true, ""
	}
	q.batch.set(b)
	q.events += int64(n)
	var d capture.Dispatch
	for i := 0; i < n; i++ {
		e := b[probefile.EventsFixed+i*probefile.EventLen:]
		kid := le.Uint32(e)
		k, ok := rd.kernels[kid]
		begin, end := int64(le.Uint64(e[4:])), int64(le.Uint64(e[12:]))
		if !ok {
			g := rd.undefined()
			g.Add(capture.Item{What: fmt.Sprintf("dispatch event of kernel #%d, which the file never defined: not in the tables", kid), Where: where(), Queue: capture.QueueOf(q.id)})
			rd.events.Lose(g, "of an undefined kernel", 1, fmt.Sprintf("byte %d", at))
			continue
		}
		p := rd.c.Kernels[k].Program
		if end < begin || begin < 0 {
			g := rd.c.Accounting.Gap(capture.InvalidEvent, rd.c.Programs[p].Name)
			g.Summary = "dispatch events whose end is before their begin, or whose begin is negative: listed, never timed as short, not in the tables"
			g.Add(capture.Item{What: fmt.Sprintf("begin %d ns, end %d ns", begin, end), Kernel: rd.c.Kernels[k].Name, Where: where()})
			rd.events.Lose(g, "reversed or negative times", 1, fmt.Sprintf("byte %d", at))
			continue
		}
		if q.last.ok && q.last.kernel == k && q.last.begin == begin && q.last.end == end {
			// The same dispatch (queue, kernel, begin, end) as the
			// queue's previous event: written twice.
			g := rd.duplicates(rd.c.Programs[p].Name)
			g.Add(capture.Item{What: fmt.Sprintf("begin %d ns, end %d ns repeats the previous event of its queue: counted once", begin, end), Kernel: rd.c.Kernels[k].Name, Queue: capture.QueueOf(q.id), Where: where()})
			rd.events.Lose(g, "repeats the previous event of its queue", 1, fmt.Sprintf("byte %d", at))
			continue
		}
		d = capture.Dispatch{
			Program: p, Queue: q.id, Kernel: k, Instance: -1, Index: -1, Ordinal: -1,
			Device: capture.Interval{Begin: begin, End: end, Valid: true},
		}
		rd.sink.Dispatch(rd.c, &d)
		rd.events.Used++
		rd.dispatches++
		q.last = lastEvent{ok: true, kernel: k, begin: begin, end: end}
		rd.lastTime = max(rd.lastTime, end)
	}
	return true, ""
}

// undefined is the gap of dispatch events that name a queue or kernel the
// file never defined: they ran, and cannot be placed or named.
func (rd *reader) undefined() *capture.Gap {
	g := rd.c.Accounting.Gap(capture.SkippedInput, "")
	g.Summary = "records that break the format's rules were skipped — malformed, of an unknown type, after the end record, or dispatch events naming a queue or kernel the file never defined: they may hold dispatches that ran and are not in the tables; the file is corrupt there"
	return g
}

func (rd *reader) duplicates(program string) *capture.Gap {
	g := rd.c.Accounting.Gap(capture.DuplicateEvent, program)
	g.Summary = "dispatch events written twice — an events record repeating its queue's previous one, or an event repeating its queue's previous event (same kernel, begin and end): counted once, the repeats are not in the tables"
	return g
}

func (rd *reader) checkpoint(b []byte) (bool, string) {
	if len(b) < probefile.CheckpointFixed {
		return false, "malformed checkpoint record"
	}
	n := int(le.Uint32(b[28:]))
	if n < 0 || n > (len(b)-probefile.CheckpointFixed)/probefile.InFlightLen || probefile.CheckpointFixed+n*probefile.InFlightLen != len(b) {
		return false, "malformed checkpoint record"
	}
	q := rd.queues[le.Uint32(b[8:])]
	if q == nil {
		return false, "checkpoint of an undefined queue"
	}
	ck := &checkpoint{time: int64(le.Uint64(b)), recorded: le.Uint64(b[12:]), dropped: le.Uint64(b[20:])}
	for i := 0; i < n; i++ {
		e := b[probefile.CheckpointFixed+i*probefile.InFlightLen:]
		ck.inflight = append(ck.inflight, inflight{kernel: le.Uint32(e), begin: int64(le.Uint64(e[4:]))})
	}
	if ck.recorded != uint64(q.events) {
		g := rd.c.Accounting.Gap(capture.InconsistentTrace, "")
		g.Summary = "checkpoints whose count of recorded dispatches differs from the events before them in the file: events are missing or doubled there"
		g.Add(capture.Item{What: fmt.Sprintf("checkpoint says %d recorded, the file holds %d", ck.recorded, q.events), Where: "queue " + q.name})
	}
	q.ck = ck
	q.ckCount++
	return true, ""
}

func (rd *reader) summary(b []byte, at int64) (bool, string) {
	if len(b) != probefile.SummaryLen {
		return false, "malformed summary record"
	}
	k, ok := rd.kernels[le.Uint32(b[12:])]
	if !ok {
		return false, "summary of an undefined kernel"
	}
	rd.summaryRecords++
	// The count is clamped like every count from the file: a corrupt
	// one stays positive instead of wrapping negative and vanishing.
	completed, total := clamp(le.Uint64(b[24:])), int64(le.Uint64(b[32:]))
	if rd.hdr.Families&probefile.FamilyDispatchEvents != 0 || completed <= 0 {
		// With dispatch events the summed dispatches are in the tables
		// one by one; a summary adds nothing to count.
		return true, ""
	}
	// A summary is an aggregate: the model check does not see its times,
	// so the reader holds it to the same rule.
	if total < 0 || total/completed > rd.ceiling {
		g := rd.c.Accounting.Gap(capture.InvalidEvent, rd.c.Programs[rd.c.Kernels[k].Program].Name)
		if g.Summary == "" {
			g.Summary = "summaries whose total is negative, or whose mean per dispatch is longer than the ceiling for one dispatch (one hour, --max-duration): not in the tables"
		}
		g.Add(capture.Item{What: fmt.Sprintf("%d dispatches, total %d ns", completed, total), Kernel: rd.c.Kernels[k].Name, Where: fmt.Sprintf("summary record at byte %d", at)})
		rd.lostTo = g
		return false, "summary with impossible times"
	}
	d := capture.Dispatch{
		Program: rd.c.Kernels[k].Program, Queue: capture.NoQueue, Kernel: k, Instance: -1, Index: -1, Ordinal: -1,
		Aggregate: &capture.Aggregate{Count: completed, Device: total, DeviceValid: true},
	}
	rd.sink.Dispatch(rd.c, &d)
	rd.dispatches = capture.SatAdd(rd.dispatches, completed)
	return true, ""
}
