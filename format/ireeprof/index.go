package ireeprof

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
)

// maxName caps the bytes of a name (producer, function) tally keeps.
const maxName = 1024

// pass1Readahead is pass 1's refill size: enough for a record header and
// the metadata after it, small beside the dispatch payloads it steps over.
const pass1Readahead = 16 << 10

// maxUnknownCTs caps the distinct unknown content types listed.
const maxUnknownCTs = 16

// pass1 walks every record, accounts for it, and indexes the metadata and
// clock samples per session occurrence. Dispatch and host execution payloads
// are left to pass 2.
func (r *reader) pass1() error {
	t := newTracker()
	r.w.readahead = pass1Readahead
	defer func() { r.w.readahead = len(r.w.buf) }()
	wk := &walker{w: r.w, start: int64(r.hdr.headerLen), end: r.end}
	stop, err := wk.walk(func(h *recHeader) error {
		r.records.Read++
		switch h.recType {
		case recSessionBegin:
			r.recordTypes[recSessionBegin]++
			if t.openCount() > 0 {
				r.beginsWhileOpen++
			}
			s := t.begin(h)
			name, err := r.w.str(h.nameOff(), h.nameLen, 256)
			if err != nil {
				return err
			}
			s.producer = name
			r.use(h)
		case recSessionEnd:
			r.recordTypes[recSessionEnd]++
			s, amb := t.end(h)
			if s == nil {
				r.outside(h, "SESSION_END without an open session of that id")
				return nil
			}
			if amb {
				s.ambiguous++
			}
			r.use(h)
		case recChunk:
			r.recordTypes[recChunk]++
			s, amb := t.find(h)
			if s == nil {
				r.outside(h, "chunk outside any open session of its id")
				return nil
			}
			if h.ct == ctUnknown || h.ct == ctSession {
				return r.unknownChunk(h, s)
			}
			if amb {
				s.ambiguous++
			}
			r.use(h)
			return r.indexChunk(s, h)
		default:
			r.recordTypes[0]++
			g := r.gap(UnknownRecord, "")
			r.skipRecord(h, "unknown record type", g)
			g.Add(itemAt(fmt.Sprintf("record #%d has record type %d, which tally does not know", h.index, h.recType), h.off))
		}
		return nil
	}, func(h *recHeader, why string) error {
		r.records.Read++
		r.malformed++
		g := r.gap(MalformedRecord, "")
		r.skipRecord(h, "malformed record", g)
		g.Add(itemAt(fmt.Sprintf("record #%d (%d bytes) skipped: %s", h.index, h.length, why), h.off))
		return nil
	})
	if err != nil {
		return err
	}
	r.stop = stop
	r.sessions = t.sessions
	return nil
}

// use counts a record as read and used.
func (r *reader) use(h *recHeader) {
	r.records.Used++
	r.bytes.Used += int64(h.length)
}

// skipRecord skips a whole record. Every record skipped may have held
// dispatches, so it is lost, and g (which the caller counts) accounts for it.
func (r *reader) skipRecord(h *recHeader, reason string, g *capture.Gap) {
	r.records.Lose(g, reason, 1, fmt.Sprintf("record #%d, byte %d", h.index, h.off))
	r.bytes.Lose(g, reason, int64(h.length), at(h.off))
}

func (r *reader) outside(h *recHeader, what string) {
	r.outsideRecords++
	g := r.gap(RecordsOutsideSession, "")
	r.skipRecord(h, "outside any session", g)
	g.Add(itemAt(fmt.Sprintf("record #%d (session id %d): %s", h.index, h.sessionID, what), h.off))
}

func (r *reader) unknownChunk(h *recHeader, s *session) error {
	r.unknownCTChunks++
	ct, err := r.w.str(h.off+int64(h.headerLen), h.ctLen, 200)
	if err != nil {
		return err
	}
	if ct == "" {
		ct = "(empty)"
	}
	known := false
	for _, u := range r.unknownCTs {
		known = known || u == ct
	}
	if !known && len(r.unknownCTs) < maxUnknownCTs {
		r.unknownCTs = append(r.unknownCTs, ct)
	}
	g := r.gap(UnknownRecord, "")
	r.skipRecord(h, "unknown content type", g)
	g.Add(itemAt(fmt.Sprintf("%s: chunk #%d of content type %q skipped", s.label(), h.index, ct), h.off))
	return nil
}

// indexChunk counts one chunk and indexes what pass 2 and the report need.
func (r *reader) indexChunk(s *session, h *recHeader) error {
	cnt := &s.ct[h.ct]
	cnt.chunks++
	if h.truncated() {
		cnt.truncated++
		cnt.dropped += int64(h.dropped)
	}
	switch h.ct {
	case ctDispatch:
		seen := false
		for _, d := range s.dispatchDevices {
			seen = seen || d == h.device
		}
		if !seen {
			s.dispatchDevices = append(s.dispatchDevices, h.device)
		}
		return nil // pass 2
	case ctHostExecution:
		return nil // pass 2
	case ctClock:
		s.clockChunks++
	case ctTraces:
		return r.traceChunk(s, h)
	}
	return r.typedWalk(s, h, func(off int64, rl uint32, b []byte) (string, error) {
		return r.indexRecord(s, h, off, rl, b)
	})
}

// indexRecord handles one typed metadata record; b holds its known-size
// prefix. It returns a reason when the record is malformed.
func (r *reader) indexRecord(s *session, h *recHeader, off int64, rl uint32, b []byte) (string, error) {
	switch h.ct {
	case ctDevices:
		d := s.device(u32(b, 8))
		d.records++
		d.queueCount = u32(b, 12)
		if u32(b, 4)&1 != 0 {
			d.uuid = append(d.uuid[:0], b[16:32]...)
		}
	case ctQueues:
		s.queues[queueKey{device: u32(b, 4), queue: u32(b, 8), stream: u64(b, 16)}] = true
	case ctExecutables:
		s.executables++
	case ctFunctions, ctExports:
		s.funcCTs[h.ct-ctFunctions] = true
		key := fnKey{executable: u64(b, 8), function: u32(b, 16)}
		nl := u32(b, 44)
		if uint64(nl) > uint64(rl)-64 {
			return fmt.Sprintf("function name of %d bytes does not fit its %d-byte record", nl, rl), nil
		}
		if _, dup := s.functions[key]; !dup {
			name, err := r.w.str(off+64, nl, maxName)
			if err != nil {
				return "", err
			}
			s.functions[key] = name
		}
	case ctCommandBuffers:
		s.commandBuffers++
	case ctCommandOperations:
		if u32(b, 4) == cmdOpDispatch {
			s.workCommandOps++
		}
	case ctClock:
		c := decodeClock(b)
		s.device(c.device).addSample(c)
	case ctQueueDeviceEvents:
		if t := u32(b, 4); t == opDispatch || t == opExecute {
			s.workQueueOps++
		}
	}
	return "", nil
}

// typedWalk steps over the typed records of a chunk's payload (spec §5):
// each starts with its u32 record_length, which must cover the known struct
// and fit in what remains. fn sees each record's known-size prefix. A bad
// length ends the chunk: the rest of its payload is skipped and counted.
func (r *reader) typedWalk(s *session, h *recHeader, fn func(off int64, rl uint32, b []byte) (string, error)) error {
	min := ctInfo[h.ct].minSize
	cnt := &s.ct[h.ct]
	off, end := h.payloadOff, h.payloadOff+int64(h.payloadLen)
	for n := 0; off < end; n++ {
		rem := end - off
		var rl uint32
		if rem >= 4 {
			b, err := r.w.get(off, 4)
			if err != nil {
				return err
			}
			rl = u32(b, 0)
		}
		if rem < 4 || rl < min || int64(rl) > rem {
			r.badTyped(s, h, n, off, end, typedWhy(rem, rl, min))
			return nil
		}
		b, err := r.w.get(off, int(min))
		if err != nil {
			return err
		}
		why, err := fn(off, rl, b)
		if err != nil {
			return err
		}
		if why != "" {
			r.badTyped(s, h, n, off, end, why)
			return nil
		}
		cnt.records++
		off += int64(rl)
	}
	return nil
}

func typedWhy(rem int64, rl, min uint32) string {
	if rem < 4 {
		return fmt.Sprintf("the payload ends with %d stray bytes", rem)
	}
	return fmt.Sprintf("record_length %d is outside %d..%d (the known record size .. the bytes left)", rl, min, rem)
}

// badTyped records a typed record with a bad length and skips the rest of
// its chunk's payload.
func (r *reader) badTyped(s *session, h *recHeader, n int, off, end int64, why string) {
	s.ct[h.ct].badRecords++
	skipped := end - off
	r.bytes.Used -= skipped
	g := r.gap(MalformedRecord, "")
	r.bytes.Lose(g, "malformed typed record (rest of its chunk)", skipped, at(off))
	g.Add(itemAt(fmt.Sprintf("%s: %s chunk #%d, typed record %d: %s; the last %d bytes of the chunk were skipped",
		s.label(), h.ct, h.index, n, why, skipped), off))
}

// traceChunk checks the one trace record of an executable-traces chunk; the
// raw trace bytes after it lie outside its record_length (spec §5).
func (r *reader) traceChunk(s *session, h *recHeader) error {
	if h.payloadLen == 0 {
		return nil
	}
	end := h.payloadOff + int64(h.payloadLen)
	rem := end - h.payloadOff
	var rl uint32
	if rem >= 4 {
		b, err := r.w.get(h.payloadOff, 4)
		if err != nil {
			return err
		}
		rl = u32(b, 0)
	}
	min := ctInfo[ctTraces].minSize
	if rem < 4 || rl < min || int64(rl) > rem {
		r.badTyped(s, h, 0, h.payloadOff, end, typedWhy(rem, rl, min))
		return nil
	}
	s.ct[ctTraces].records++
	return nil
}

// computeFits decides every (session, device) clock fit once pass 1 has
// seen all samples; the last sample comes at the session end.
func (r *reader) computeFits() {
	for _, s := range r.sessions {
		for _, ord := range s.deviceList {
			s.devices[ord].computeFit()
		}
	}
}
