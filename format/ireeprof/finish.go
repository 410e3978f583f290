package ireeprof

import (
	"fmt"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// finish turns what the passes counted into gaps, program run counts, the
// capture's clock and its inventory.
func (r *reader) finish() {
	r.stopGaps()
	r.lengthGaps()
	r.sessionGaps()
	r.lossGaps()
	r.clockGaps()
	for _, u := range r.res.unresolved {
		if u != nil {
			u.gap.SetFigure("dispatches", figure(u.gap, "dispatches")+u.dispatches)
		}
	}
	r.presenceGaps()
	for _, p := range r.res.progs {
		r.c.Programs[p.id].Instances = p.runs
	}
	r.dedupeKernelNames()
	r.setClock()
	r.inventory()
}

// headerCut is the capture of a file that ends inside its 24-byte header.
func (r *reader) headerCut() {
	g := r.gap(capture.TruncatedInput, "")
	r.bytes.Lose(g, "cut file header", r.hdr.present, at(0))
	g.Summary = fmt.Sprintf("the file ends after %d of the 24 bytes of the bundle header, so nothing after the header was recorded or kept: copy the whole file, or let the program finish writing it.", r.hdr.present)
	g.Add(itemAt(fmt.Sprintf("file header cut: %d of 24 bytes present", r.hdr.present), 0))
	r.noDispatches()
	r.c.Clock = capture.Clock{Description: "none: the file holds no records, so it has no times"}
	r.inventory()
}

// stopGaps reports the record the walk stopped at: cut or malformed.
func (r *reader) stopGaps() {
	e := r.stop
	if e.kind == stopEnd {
		return
	}
	r.records.Read++
	where := fmt.Sprintf("record #%d, byte %d", e.index, e.at)
	what := "record"
	if e.hasType {
		what = recordTypeName(e.recType)
		if e.ct != ctUnknown {
			what += " (" + e.ct.String() + ")"
		}
	}
	if e.kind == stopMalformed {
		g := r.gap(MalformedRecord, "")
		r.records.Lose(g, "malformed record", 1, where)
		r.bytes.Lose(g, "malformed record (rest of file not parsed)", e.present, at(e.at))
		g.Add(itemAt(fmt.Sprintf("%s #%d: %s; the remaining %d bytes were not parsed", what, e.index, e.why, e.present), e.at))
		return
	}
	g := r.gap(capture.TruncatedInput, "")
	r.records.Lose(g, "cut at end of file", 1, where)
	r.bytes.Lose(g, "cut record at end of file", e.present, at(e.at))
	bound := "the file ends inside it"
	if r.end < r.size {
		bound = fmt.Sprintf("it extends past the logical end (file_length %d)", r.end)
	}
	var item string
	switch {
	case e.kind == stopCutHeader && e.length > uint64(e.present):
		item = fmt.Sprintf("%s #%d: only %d of its 104 header bytes are present; its record_length says %d bytes, so %d are missing",
			what, e.index, e.present, e.length, e.length-uint64(e.present))
	case e.kind == stopCutHeader:
		item = fmt.Sprintf("%s #%d: only %d of its 104 header bytes are present (its length is unknown)", what, e.index, e.present)
	default:
		item = fmt.Sprintf("%s #%d: %d bytes long, %d present, %d missing: %s (or its header is corrupt)",
			what, e.index, e.length, e.present, e.length-uint64(e.present), bound)
	}
	g.Add(itemAt(item, e.at))
	g.SetFigure("cut_at_byte", e.at)
	g.SetFigure("bytes_not_parsed", e.present)
	g.Summary = fmt.Sprintf("the bundle is cut inside record #%d (byte %d): every record before it is used, but that record and whatever the producer wrote after it are missing; copy the whole file, or let the program finish writing it.", e.index, e.at)
}

func recordTypeName(t uint16) string {
	switch t {
	case recSessionBegin:
		return "SESSION_BEGIN"
	case recChunk:
		return "chunk"
	case recSessionEnd:
		return "SESSION_END"
	}
	return fmt.Sprintf("record of type %d", t)
}

// lengthGaps compares file_length with the file: a bundle shorter than its
// header says was cut after it was finalised; bytes past it are stale.
func (r *reader) lengthGaps() {
	h := &r.hdr
	if !h.finalised() {
		return
	}
	if h.fileLength > uint64(r.size) {
		missing := h.fileLength - uint64(r.size)
		g := r.gap(capture.TruncatedInput, "")
		g.Add(itemAt(fmt.Sprintf("the header's file_length says the bundle is %d bytes, but the file has %d: the last %d bytes are missing", h.fileLength, r.size, missing), r.size))
		g.SetFigure("missing_bytes", int64(missing))
		if g.Summary == "" {
			g.Summary = fmt.Sprintf("the file is %d bytes shorter than its header says (file_length %d, file size %d): the records in the missing tail are lost; copy the whole file again.", missing, h.fileLength, r.size)
		}
		return
	}
	if h.fileLength == uint64(r.size) {
		return
	}
	stale := r.size - int64(h.fileLength)
	// They may hold an unended session's dispatches (describeStale).
	g := r.gap(capture.StaleBytes, "")
	r.bytes.Lose(g, "beyond file_length", stale, at(int64(h.fileLength)))
	g.SetFigure("bytes", stale)
	g.Summary = fmt.Sprintf("%d bytes after the bundle's logical end (file_length %d) were ignored: they are stale storage, or the records of a session that was still running when an earlier one ended and never ended itself.", stale, h.fileLength)
	g.Add(itemAt(r.describeStale(), int64(h.fileLength)))
}

// describeStale looks at the bytes after file_length, without using them,
// to say whether they hold records (e.g. an unended session's dispatches).
func (r *reader) describeStale() string {
	var recs, dispatchChunks int64
	wk := &walker{w: r.w, start: int64(r.hdr.fileLength), end: r.size}
	e, err := wk.walk(func(h *recHeader) error {
		recs++
		if h.ct == ctDispatch {
			dispatchChunks++
		}
		return nil
	}, func(*recHeader, string) error { recs++; return nil })
	span := fmt.Sprintf("bytes %d..%d", r.hdr.fileLength, r.size)
	if err != nil || recs == 0 {
		return span + " are ignored; they do not start with a well-formed record"
	}
	s := fmt.Sprintf("%s are ignored; they hold %s", span, units.Plural(recs, "well-formed record", "well-formed records"))
	if dispatchChunks > 0 {
		s += fmt.Sprintf(", %s among them", units.Plural(dispatchChunks, "dispatch-events chunk", "dispatch-events chunks"))
	}
	if e.kind != stopEnd {
		s += fmt.Sprintf(", then a cut or malformed record at byte %d", e.at)
	}
	return s
}

// sessionGaps reports sessions that never ended, ended badly, or could not
// be told apart from another with their id.
func (r *reader) sessionGaps() {
	unfinal := r.hdr.hasFileLength && r.hdr.fileLength == 0
	var open []*session
	for _, s := range r.sessions {
		if !s.ended {
			open = append(open, s)
		}
	}
	if unfinal {
		g := r.gap(capture.UnfinalizedCapture, "")
		g.Summary = "the bundle was never finalised (its header's file_length is still 0: no session ended cleanly), so the events still in the producer's buffers are missing and their number is unknown: make the program end profiling cleanly (HRX writes events only when profiling ends)."
		for _, s := range open {
			g.Add(itemAt(fmt.Sprintf("%s began and never ended", s.label()), s.beginOff))
		}
		if len(open) == 0 {
			what := "file_length is 0 and the file holds no session"
			if len(r.sessions) > 0 {
				what = fmt.Sprintf("file_length is 0 although %s ended: the header was never patched", units.Plural(int64(len(r.sessions)), "session", "sessions"))
			}
			g.Add(itemAt(what, 16))
		}
	} else {
		for _, s := range open {
			r.gap(UnendedSession, "").Add(itemAt(fmt.Sprintf("%s began and never ended", s.label()), s.beginOff))
		}
	}
	for _, s := range r.sessions {
		if s.ended && s.status != 0 {
			g := r.gap(capture.FailedSession, "")
			g.Add(itemAt(fmt.Sprintf("%s ended with status %s", s.label(), statusName(s.status)), s.endOff))
		}
		if s.ambiguous > 0 {
			// One item (and count) per session; the records are a figure.
			g := r.gap(AmbiguousSession, "")
			g.Add(itemAt(fmt.Sprintf("%s: %s written while another session with id %d was open", s.label(), units.Plural(s.ambiguous, "record", "records"), s.id), s.beginOff))
			g.SetFigure("records", figure(g, "records")+s.ambiguous)
		}
	}
}

// lossGaps sums truncated chunks and dropped records per content type.
func (r *reader) lossGaps() {
	var chunks, dropped int64
	for _, s := range r.sessions {
		for t := ctype(0); t < numCT; t++ {
			c := &s.ct[t]
			if c.truncated == 0 {
				continue
			}
			chunks += c.truncated
			dropped += c.dropped
			what := fmt.Sprintf("%s: %s: %s flagged truncated, ", s.label(), t, units.Plural(c.truncated, "chunk", "chunks"))
			if c.dropped > 0 {
				what += units.Plural(c.dropped, "record", "records") + " dropped"
			} else {
				what += "number of dropped records unknown"
			}
			// One item (and count) per session and content type; the
			// chunk and record totals are figures.
			r.gap(capture.DroppedRecords, "").Add(capture.Item{What: what})
		}
	}
	if chunks > 0 {
		g := r.gap(capture.DroppedRecords, "")
		g.SetFigure("truncated_chunks", chunks)
		g.SetFigure("dropped_records", dropped)
	}
}

// clockGaps notes devices with dispatches but no fit, and extrapolation.
func (r *reader) clockGaps() {
	for _, s := range r.sessions {
		for _, dev := range s.dispatchDevices {
			d := s.devices[dev]
			if d != nil && d.fit.ok {
				continue
			}
			why := "no clock samples"
			if d != nil {
				why = d.fit.why
			}
			r.gap(NoClockFit, "").Add(capture.Item{What: fmt.Sprintf("%s, device %s: %s", s.label(), ordinal(dev), why)})
		}
		if s.extrapolated > 0 {
			g := r.gap(ClockExtrapolated, "")
			g.Add(capture.Item{What: fmt.Sprintf("%s: %s outside the clock samples' tick range", s.label(), units.Plural(s.extrapolated, "dispatch", "dispatches"))})
			g.SetFigure("dispatches", figure(g, "dispatches")+s.extrapolated)
		}
	}
}
