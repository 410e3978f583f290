package ireeprof

import (
	"fmt"
	"math"

	"github.com/tallyprof/tally/capture"
)

// spanMax is how many payload bytes one decode loop takes from the window.
const spanMax = 1 << 20

// chunkCtx is what every event of one chunk shares, plus the last program
// looked up: consecutive events mostly repeat their command buffer.
type chunkCtx struct {
	s          *session
	dev, queue uint32
	qid        capture.QueueID
	fit        *fit // nil: no fit, times stay in ticks
	knownQueue bool
	// keyed: the chunk's events carry identity (identity.go); scope is
	// their stream's.
	keyed bool
	scope uint64

	prog   *progState
	progCB uint64
}

// pass2 walks the records again and streams the dispatch events and host
// dispatch spans of every session to the sink.
func (r *reader) pass2() error {
	r.initResolver()
	t := &tracker{open: map[uint64][]*session{}}
	next := 0
	wk := &walker{w: r.w, start: int64(r.hdr.headerLen), end: r.end}
	_, err := wk.walk(func(h *recHeader) error {
		switch h.recType {
		case recSessionBegin:
			// Replay pass 1's attribution on its own sessions.
			s := r.sessions[next]
			next++
			t.open[h.sessionID] = append(t.open[h.sessionID], s)
		case recSessionEnd:
			if st := t.open[h.sessionID]; len(st) > 0 {
				t.open[h.sessionID] = st[:len(st)-1]
			}
		case recChunk:
			s, amb := t.find(h)
			if s == nil {
				return nil
			}
			switch h.ct {
			case ctDispatch:
				return r.dispatchChunk(s, h, !amb)
			case ctHostExecution:
				return r.hostChunk(s, h, !amb)
			}
		}
		return nil
	}, func(*recHeader, string) error { return nil })
	return err
}

// dispatchChunk decodes a dispatch-events chunk. The events carry no device
// or queue: those come from the chunk's record header (spec §7). keyed says
// their ids are an identity (not so in an ambiguous session).
func (r *reader) dispatchChunk(s *session, h *recHeader, keyed bool) error {
	cx := &chunkCtx{s: s, dev: h.device, queue: h.queue, keyed: keyed}
	cx.scope = r.scope(scopeKey{session: s.occ, device: h.device, queue: h.queue, stream: h.streamID})
	cx.qid = r.queue(s, h.device, h.queue)
	cx.knownQueue = s.queues[queueKey{device: h.device, queue: h.queue, stream: h.streamID}]
	if d := s.devices[h.device]; d != nil && d.fit.ok {
		cx.fit = &d.fit
	}
	if !cx.knownQueue {
		r.gap(UnknownQueue, "").Add(itemAt(fmt.Sprintf("%s: dispatch-events chunk #%d is on device %s queue %s stream %d, which no queue record of the session describes",
			s.label(), h.index, ordinal(h.device), ordinal(h.queue), h.streamID), h.off))
	}
	var ev dispatchEvent
	n, err := r.decodeLoop(s, h, func(b []byte) {
		decodeDispatch(b, &ev)
		r.emitDispatch(cx, &ev)
	})
	if !cx.knownQueue {
		g := r.gap(UnknownQueue, "")
		g.SetFigure("events", figure(g, "events")+n)
	}
	return err
}

// decodeLoop feeds each typed record of a chunk's payload to fn, taking
// large slices from the window; a bad record_length ends the chunk (spec §5).
// It returns the number of records decoded.
func (r *reader) decodeLoop(s *session, h *recHeader, fn func(b []byte)) (int64, error) {
	min := int(ctInfo[h.ct].minSize)
	cnt := &s.ct[h.ct]
	off, end := h.payloadOff, h.payloadOff+int64(h.payloadLen)
	var n int64
	for off < end {
		rem := end - off
		first := int64(min)
		if rem < first {
			first = rem
		}
		b, err := r.w.span(off, int(first), spanMax)
		if err != nil {
			return n, err
		}
		if int64(len(b)) > rem {
			b = b[:rem]
		}
		p := 0
		for p+4 <= len(b) {
			rl := int64(u32(b, p))
			if rl < int64(min) || rl > end-(off+int64(p)) {
				r.badTyped(s, h, int(n), off+int64(p), end, typedWhy(end-(off+int64(p)), uint32(rl), uint32(min)))
				return n, nil
			}
			if p+min > len(b) {
				break // the record continues past this slice: fetch again
			}
			fn(b[p : p+min])
			n++
			cnt.records++
			p += int(rl)
		}
		if p == 0 {
			// Fewer than 4 bytes left: a stray tail, not a record.
			r.badTyped(s, h, int(n), off, end, typedWhy(rem, 0, uint32(min)))
			return n, nil
		}
		off += int64(p)
	}
	return n, nil
}

// emitDispatch resolves one dispatch event and sends it to the sink, or
// lists it as an invalid event.
func (r *reader) emitDispatch(cx *chunkCtx, ev *dispatchEvent) {
	s := cx.s
	s.dispatchEvents++
	r.events.Read++
	p := cx.prog
	if p == nil || cx.progCB != ev.commandBuf {
		p = r.program(s, cx.dev, ev.commandBuf, false)
		cx.prog, cx.progCB = p, ev.commandBuf
	}
	kid := r.kernelFor(p, cx.dev, ev.executable, ev.function)
	valid := ev.startTick != 0 && ev.endTick != 0 && ev.endTick >= ev.startTick
	var iv capture.Interval
	var why string
	if !valid {
		why = fmt.Sprintf("start tick %d, end tick %d", ev.startTick, ev.endTick)
	} else if cx.fit != nil {
		b, e, ok := cx.fit.interval(ev.startTick, ev.endTick)
		if ok {
			iv = capture.Interval{Begin: b, End: e, Valid: true}
			if cx.fit.extrapolated(ev.startTick, ev.endTick) {
				s.extrapolated++
			}
		} else {
			why = fmt.Sprintf("ticks %d..%d are beyond 2^63 ns once converted", ev.startTick, ev.endTick)
		}
	} else if ev.startTick > math.MaxInt64 || ev.endTick > math.MaxInt64 {
		why = fmt.Sprintf("ticks %d..%d are beyond 2^63", ev.startTick, ev.endTick)
	} else {
		iv = capture.Interval{Begin: int64(ev.startTick), End: int64(ev.endTick), Valid: true}
	}
	if r.onEvent != nil {
		row := &eventRow{session: s.occ, device: cx.dev, queue: cx.queue, eventID: ev.eventID, key: r.c.Kernels[kid].Name,
			startTick: ev.startTick, endTick: ev.endTick, valid: valid, fitted: cx.fit != nil}
		if iv.Valid && cx.fit != nil {
			row.durationNS = iv.End - iv.Begin
		}
		r.onEvent(row)
	}
	if u := r.res.unresolved[kid]; u != nil {
		u.dispatches++
	}
	if why != "" {
		reason := "invalid (zero or reversed ticks)"
		if valid {
			reason = "time out of range"
		}
		r.invalid(s, p, kid, ev.eventID, ev.submissionID, cx.dev, cx.queue, why, reason)
		return
	}
	index := int64(-1)
	if ev.commandIndex != noOrdinal {
		index = int64(ev.commandIndex)
	}
	// One Dispatch value is reused (sinks copy what they keep); its fields
	// are set one by one, cheaper than a composite literal per event.
	d := &r.d
	d.Program, d.Queue, d.Kernel, d.Instance = p.id, cx.qid, kid, p.run(ev.submissionID)
	d.List, d.Index, d.Ordinal = "", index, -1
	d.Launch, d.Device, d.Link = capture.Interval{}, iv, capture.LinkNone
	d.Key = key(cx.keyed, cx.scope, ev.eventID)
	r.sink.Dispatch(r.c, d)
	r.events.Used++
	s.dispatches++
}

// invalid lists an event that has no usable times: it is not a dispatch,
// and it is never timed as a short one.
func (r *reader) invalid(s *session, p *progState, kid capture.KernelID, eventID, sub uint64, dev, queue uint32, why, reason string) {
	in := r.events
	if p.host {
		in = r.hostEvents
		s.hostInvalid++
	} else {
		s.invalid++
	}
	g := r.gap(capture.InvalidEvent, p.name)
	lose(in, g, reason, func() string { return fmt.Sprintf("%s event %d", s.label(), eventID) })
	addItem(g, func() capture.Item {
		return capture.Item{
			What:    fmt.Sprintf("event %d (submission %d): %s", eventID, sub, why),
			Where:   fmt.Sprintf("device %s queue %s", ordinal(dev), ordinal(queue)),
			Program: p.name,
			Kernel:  r.c.Kernels[kid].Name,
		}
	})
}

// hostChunk decodes a host-execution-events chunk: the spans a CPU producer
// timed on IREE's host clock. Spans of type dispatch become dispatches of
// the command buffer's "(host execution)" program; the others (command
// buffer executes, copies, fills, …) are counted and not tabled.
func (r *reader) hostChunk(s *session, h *recHeader, keyed bool) error {
	if r.hostEvents == nil {
		r.hostEvents = r.c.Accounting.InputFor("host execution events")
	}
	var ev hostExecution
	var cx chunkCtx
	cx.s, cx.keyed = s, keyed
	_, err := r.decodeLoop(s, h, func(b []byte) {
		decodeHostExecution(b, &ev)
		r.emitHost(&cx, &ev)
	})
	return err
}

func (r *reader) emitHost(cx *chunkCtx, ev *hostExecution) {
	s := cx.s
	s.hostSpans++
	r.hostEvents.Read++
	if ev.opType != opDispatch {
		ignore(r.hostEvents, "not a dispatch span (command-buffer execute, copy, fill, …)", func() string { return fmt.Sprintf("%s event %d", s.label(), ev.eventID) })
		return
	}
	p := cx.prog
	if p == nil || cx.progCB != ev.commandBuf {
		p = r.program(s, ev.device, ev.commandBuf, true)
		cx.prog, cx.progCB = p, ev.commandBuf
	}
	kid := r.kernelFor(p, ev.device, ev.executable, ev.function)
	valid := ev.start > 0 && ev.end >= ev.start && (ev.status == 0 || ev.status == noOrdinal)
	if r.onEvent != nil {
		row := &eventRow{host: true, session: s.occ, device: ev.device, queue: ev.queue, eventID: ev.eventID, key: r.c.Kernels[kid].Name, valid: valid}
		if valid {
			row.durationNS = ev.end - ev.start
		}
		r.onEvent(row)
	}
	if u := r.res.unresolved[kid]; u != nil {
		u.dispatches++
	}
	if !valid {
		why := fmt.Sprintf("host times %d..%d ns", ev.start, ev.end)
		if ev.status != 0 && ev.status != noOrdinal {
			why = "ended with status " + statusName(ev.status)
		}
		r.invalid(s, p, kid, ev.eventID, ev.submissionID, ev.device, ev.queue, why, "invalid (missing or reversed times, or failed)")
		return
	}
	index := int64(-1)
	if ev.commandIndex != noOrdinal {
		index = int64(ev.commandIndex)
	}
	// Host spans carry their own stream (spec §7).
	scope := r.scope(scopeKey{session: s.occ, host: true, device: ev.device, queue: ev.queue, stream: ev.streamID})
	r.d = capture.Dispatch{Program: p.id, Queue: r.queue(s, ev.device, ev.queue), Kernel: kid, Instance: p.run(ev.submissionID),
		Index: index, Ordinal: -1, Device: capture.Interval{Begin: ev.start, End: ev.end, Valid: true},
		Key: key(cx.keyed, scope, ev.eventID)}
	r.sink.Dispatch(r.c, &r.d)
	r.hostEvents.Used++
	s.hostDispatches++
}

func figure(g *capture.Gap, name string) int64 {
	v, _ := g.Figure(name)
	return v
}
