package ireeprof

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// inventory describes the bundle for `tally inspect`: the header, each
// session occurrence, the content types and what is missing; and the
// report's comments, after them.
func (r *reader) inventory() {
	c := r.c
	c.Inventory = append(c.Inventory, r.fileSection())
	for _, s := range r.sessions {
		c.Inventory = append(c.Inventory, r.sessionSection(s))
	}
	if cts := r.contentSection(); len(cts.Fields) > 0 {
		c.Inventory = append(c.Inventory, cts)
	}
	c.Inventory = append(c.Inventory, missingSection(c))
	// Not nil: a bundle with no session shows an empty section in JSON.
	c.Comments, c.CommentsAt = []capture.Field{}, len(c.Inventory)
	r.comments()
}

func (r *reader) fileSection() capture.Section {
	h := &r.hdr
	s := capture.Section{Title: "file"}
	s.Add("format version", fmt.Sprintf("%d.%d", h.versionMajor, h.versionMinor))
	s.Add("header length (bytes)", int64(h.headerLen))
	if h.cut {
		s.Add("header", fmt.Sprintf("cut: %d of 24 bytes present", h.present))
		return s
	}
	if h.flags != 0 {
		s.Add("header flags", fmt.Sprintf("0x%x (reserved, expected 0; ignored)", h.flags))
	}
	switch {
	case !h.hasFileLength:
		s.Add("file_length", "absent (16-byte development header): tally cannot tell whether the bundle was finalised")
	case h.fileLength == 0:
		s.Add("file_length", "0: not finalised (no session ended cleanly)")
	default:
		s.Add("file_length (bytes)", int64(h.fileLength))
	}
	s.Add("finalised", h.finalised())
	s.Add("file size (bytes)", r.size)
	s.Add("records parsed", fmt.Sprintf("bytes %d..%d", h.headerLen, r.stop.at))
	s.Add("records", fmt.Sprintf("%d SESSION_BEGIN, %d chunks, %d SESSION_END, %d of unknown type, %d malformed",
		r.recordTypes[recSessionBegin], r.recordTypes[recChunk], r.recordTypes[recSessionEnd], r.recordTypes[0], r.malformed))
	switch r.stop.kind {
	case stopCutHeader, stopCutRecord:
		s.Add("cut", fmt.Sprintf("record #%d at byte %d: %d bytes present of %s", r.stop.index, r.stop.at, r.stop.present, lengthOrUnknown(r.stop.length)))
	case stopMalformed:
		s.Add("stopped", fmt.Sprintf("malformed record #%d at byte %d: %s", r.stop.index, r.stop.at, r.stop.why))
	}
	if h.finalised() && h.fileLength < uint64(r.size) {
		s.Add("beyond file_length (bytes)", r.size-int64(h.fileLength))
	}
	if h.finalised() && h.fileLength > uint64(r.size) {
		s.Add("missing after the end of the file (bytes)", int64(h.fileLength)-r.size)
	}
	if r.outsideRecords > 0 {
		s.Add("records outside any session", r.outsideRecords)
	}
	if r.beginsWhileOpen > 0 {
		s.Add("SESSION_BEGIN while another session was open", r.beginsWhileOpen)
	}
	if len(r.unknownCTs) > 0 {
		s.Add("unknown content types", fmt.Sprintf("%d chunks: %s", r.unknownCTChunks, strings.Join(r.unknownCTs, ", ")))
	}
	sessions := fmt.Sprint(len(r.sessions))
	if ids := repeatedIDs(r.sessions); ids != "" {
		sessions += " (repeated session ids: " + ids + "; kept apart by occurrence)"
	}
	s.Add("sessions", sessions)
	return s
}

func lengthOrUnknown(n uint64) string {
	if n == 0 {
		return "an unknown length"
	}
	return fmt.Sprint(n)
}

func repeatedIDs(ss []*session) string {
	n := map[uint64]int{}
	for _, s := range ss {
		n[s.id]++
	}
	var out []string
	for _, s := range ss {
		if n[s.id] > 1 {
			out = append(out, fmt.Sprint(s.id))
			n[s.id] = 0
		}
	}
	return strings.Join(out, ", ")
}

func (r *reader) sessionSection(s *session) capture.Section {
	sec := capture.Section{Title: s.label()}
	sec.Add("occurrence", int64(s.occ))
	sec.Add("session id", int64(s.id))
	sec.Add("producer", s.producer)
	sec.Add("began at byte", s.beginOff)
	end := s.endState()
	if s.ended {
		end += fmt.Sprintf(" at byte %d", s.endOff)
	}
	sec.Add("end", end)
	if s.ambiguous > 0 {
		sec.Add("records attributed while another session with this id was open", s.ambiguous)
	}
	var devs []string
	for _, ord := range s.deviceList {
		d := s.devices[ord]
		v := "device " + ordinal(ord)
		if d.records == 0 {
			v += " (no device record)"
		} else if len(d.uuid) == 16 {
			v += fmt.Sprintf(" (uuid %x)", d.uuid)
		}
		devs = append(devs, v)
	}
	sec.Add("devices", joinOr(devs, "none"))
	var qs []string
	for k := range s.queues {
		qs = append(qs, fmt.Sprintf("device %s queue %s stream %d", ordinal(k.device), ordinal(k.queue), k.stream))
	}
	sort.Strings(qs)
	sec.Add("queues", joinOr(qs, "none"))
	for _, ord := range s.deviceList {
		d := s.devices[ord]
		v := fmt.Sprintf("%s: ", units.Plural(d.samples, "sample", "samples"))
		if d.fit.ok {
			v += fmt.Sprintf("fit over the first and last: %s ns/tick (%d ticks ↔ %d ns)", d.fit.nsPerTick(), d.fit.dTicks, d.fit.dNS)
		} else {
			v += "no fit: " + d.fit.why
		}
		sec.Add("clock, device "+ordinal(ord), v)
	}
	var fct []string
	if s.funcCTs[0] {
		fct = append(fct, ctFunctions.String())
	}
	if s.funcCTs[1] {
		fct = append(fct, ctExports.String()+" (older name)")
	}
	sec.Add("function metadata", fmt.Sprintf("%s: %s", joinOr(fct, "none"), units.Plural(int64(len(s.functions)), "function", "functions")))
	sec.Add("executables", s.executables)
	sec.Add("command buffers", s.commandBuffers)
	sec.Add("dispatch events", fmt.Sprintf("%d (%d timed dispatches, %d invalid)", s.dispatchEvents, s.dispatches, s.invalid))
	if s.hostSpans > 0 {
		sec.Add("host execution spans", fmt.Sprintf("%d (%d timed dispatches, %d invalid dispatches, %d other spans)",
			s.hostSpans, s.hostDispatches, s.hostInvalid, s.hostSpans-s.hostDispatches-s.hostInvalid))
	}
	if s.extrapolated > 0 {
		sec.Add("dispatches outside the clock samples' tick range", s.extrapolated)
	}
	if v, why := r.verdict(s); v != vHas {
		sec.Add("dispatch events verdict", why)
	}
	return sec
}

func joinOr(parts []string, none string) string {
	if len(parts) == 0 {
		return none
	}
	return strings.Join(parts, "; ")
}

// contentSection sums chunks and typed records per content type over all
// sessions.
func (r *reader) contentSection() capture.Section {
	sec := capture.Section{Title: "content types"}
	for t := ctSession + 1; t < numCT; t++ {
		var sum ctCount
		for _, s := range r.sessions {
			c := &s.ct[t]
			sum.chunks += c.chunks
			sum.records += c.records
			sum.truncated += c.truncated
			sum.dropped += c.dropped
			sum.badRecords += c.badRecords
		}
		if sum.chunks == 0 {
			continue
		}
		v := fmt.Sprintf("%s, %s", units.Plural(sum.chunks, "chunk", "chunks"), units.Plural(sum.records, "record", "records"))
		if sum.truncated > 0 {
			v += fmt.Sprintf(", %d truncated (%s dropped)", sum.truncated, units.Plural(sum.dropped, "record", "records"))
		}
		if sum.badRecords > 0 {
			v += fmt.Sprintf(", %d with a bad record length", sum.badRecords)
		}
		sec.Add(t.String(), v)
	}
	return sec
}

// missingSection lists the gaps by kind, one line each.
func missingSection(c *capture.Capture) capture.Section {
	sec := capture.Section{Title: "missing"}
	for _, g := range c.Accounting.Gaps {
		if g.Count == 0 {
			continue
		}
		key := string(g.Kind)
		if g.Program != "" {
			key += " (" + g.Program + ")"
		}
		if g.Note {
			key += " [note]"
		}
		sec.Add(key, g.Count)
	}
	if len(sec.Fields) == 0 {
		sec.Add("nothing", "no gap tally can detect")
	}
	return sec
}

// comments adds the lines the text report prints under "times:".
func (r *reader) comments() {
	c := r.c
	var ss []string
	for _, s := range r.sessions {
		ss = append(ss, fmt.Sprintf("%s %s", s.label(), s.endState()))
	}
	if len(ss) > 0 {
		c.Comment("sessions", strings.Join(ss, "; "))
	}
	for _, s := range r.sessions {
		devs := s.dispatchDevices
		if len(devs) == 0 && len(r.c.Programs) == 0 {
			// No dispatches anywhere: the fit still tells whether
			// device-timed families were recorded at all.
			devs = s.deviceList
		}
		for _, dev := range devs {
			key := "clock"
			if len(r.sessions) > 1 || len(devs) > 1 {
				key = fmt.Sprintf("clock (session %d, device %s)", s.occ, ordinal(dev))
			}
			d := s.devices[dev]
			if d != nil && d.fit.ok {
				c.Comment(key, fmt.Sprintf("device ticks converted to ns by a fit over %d clock samples: %s ns/tick", d.fit.samples, d.fit.nsPerTick()))
				continue
			}
			why := "no clock samples"
			if d != nil {
				why = d.fit.why
			}
			c.Comment(key, fmt.Sprintf("no tick-to-ns fit was possible (%s): times are in device ticks", why))
		}
		if s.hostSpans > 0 {
			c.Comment("host execution", fmt.Sprintf("%s: CPU dispatch spans are in ns on IREE's host clock, in their own \"(host execution)\" programs", s.label()))
		}
	}
}
