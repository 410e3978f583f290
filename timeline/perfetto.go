package timeline

import "bufio"

// arg is one annotation of an event: a string, an int or a bool.
type arg struct {
	key    string
	s      string
	i      int64
	b      bool
	isInt  bool
	isBool bool
}

// encoder writes one file format; the Writer decides what to write.
type encoder interface {
	track(t *track)
	// slice draws [begin, end]; flowOut starts a flow arrow at its begin,
	// flowIn ends one there (0: none).
	slice(t *track, name, cat string, begin, end int64, args []arg, flowOut, flowIn uint64)
	instant(t *track, name, cat string, ts int64, args []arg)
	finish(meta []arg)
	// args returns a reusable, empty argument slice.
	args() []arg
}

// sequenceID is the one trusted_packet_sequence_id of a tally file (trace
// processor drops TrackEvents without one).
const sequenceID = 1

// perfetto streams a Trace: each TracePacket framed as field 1 of Trace,
// written as soon as it is built (a cut file is still readable up to the
// last whole packet). Names, categories and annotation names are interned
// on the one sequence.
type perfetto struct {
	w        *bufio.Writer
	hdr      []byte // the packet's framing
	pkt      []byte // the packet being built
	ev       []byte // its TrackEvent
	ann      []byte // one annotation
	intern   []byte // its InternedData
	names    map[string]uint64
	cats     map[string]uint64
	annNames map[string]uint64
	a        []arg
	started  bool
}

func newPerfetto(w *bufio.Writer) *perfetto {
	return &perfetto{w: w, names: map[string]uint64{}, cats: map[string]uint64{}, annNames: map[string]uint64{}}
}

func (p *perfetto) args() []arg { return p.a[:0] }

// emit frames the packet in p.pkt and writes it.
func (p *perfetto) emit() {
	p.hdr = appendTag(p.hdr[:0], fTracePacket, bytesType)
	p.hdr = appendVarint(p.hdr, uint64(len(p.pkt)))
	p.w.Write(p.hdr)
	p.w.Write(p.pkt)
}

// begin starts a packet on tally's sequence; the first packet clears the
// incremental state, every later one depends on it.
func (p *perfetto) begin() {
	p.pkt = p.pkt[:0]
	p.pkt = appendTag(p.pkt, fPacketSequenceID, varintType)
	p.pkt = appendVarint(p.pkt, sequenceID)
	flags := uint64(seqNeedsIncrementalState)
	if !p.started {
		flags |= seqIncrementalStateCleared
		p.started = true
	}
	p.pkt = appendTag(p.pkt, fPacketSeqFlags, varintType)
	p.pkt = appendVarint(p.pkt, flags)
}

func appendString(b []byte, n fieldNum, s string) []byte {
	b = appendTag(b, n, bytesType)
	return appendStr(b, s)
}

func appendUint(b []byte, n fieldNum, v uint64) []byte {
	b = appendTag(b, n, varintType)
	return appendVarint(b, v)
}

func (p *perfetto) track(t *track) {
	p.begin()
	var d []byte
	d = appendUint(d, fTrackUUID, t.uuid)
	d = appendString(d, fTrackName, t.name)
	if t.parent != nil {
		d = appendUint(d, fTrackParent, t.parent.uuid)
	}
	if t.desc != "" {
		d = appendString(d, fTrackDescription, t.desc)
	}
	if t.group {
		d = appendUint(d, fTrackChildOrdering, childOrderingExplicit)
	}
	d = appendUint(d, fTrackOrderRank, uint64(t.order))
	d = appendUint(d, fTrackMerge, siblingMergeNone)
	p.pkt = appendTag(p.pkt, fPacketTrackDesc, bytesType)
	p.pkt = appendBytes(p.pkt, d)
	p.emit()
}

// iid interns s in table m, adding the definition to p.intern under field f
// on first use.
func (p *perfetto) iid(m map[string]uint64, f fieldNum, s string) uint64 {
	if id, ok := m[s]; ok {
		return id
	}
	id := uint64(len(m) + 1)
	m[s] = id
	var e [64]byte
	entry := appendUint(e[:0], fInternIID, id)
	entry = appendString(entry, fInternName, s)
	p.intern = appendTag(p.intern, f, bytesType)
	p.intern = appendBytes(p.intern, entry)
	return id
}

// event writes one TrackEvent packet at ts.
func (p *perfetto) event(t *track, typ uint64, name, cat string, ts int64, args []arg, flowOut, flowIn uint64) {
	p.intern = p.intern[:0]
	p.ev = p.ev[:0]
	p.ev = appendUint(p.ev, fEventType, typ)
	p.ev = appendUint(p.ev, fEventTrackUUID, t.uuid)
	if typ != typeSliceEnd {
		p.ev = appendUint(p.ev, fEventNameIID, p.iid(p.names, fInternNames, name))
		p.ev = appendUint(p.ev, fEventCategoryIIDs, p.iid(p.cats, fInternCategories, cat))
	}
	if flowOut != 0 {
		p.ev = appendTag(p.ev, fEventFlowIDs, fixed64Type)
		p.ev = appendFixed64(p.ev, flowOut)
	}
	if flowIn != 0 {
		p.ev = appendTag(p.ev, fEventTermFlowIDs, fixed64Type)
		p.ev = appendFixed64(p.ev, flowIn)
	}
	for _, a := range args {
		p.ann = appendUint(p.ann[:0], fAnnNameIID, p.iid(p.annNames, fInternAnnNames, a.key))
		switch {
		case a.isInt:
			p.ann = appendUint(p.ann, fAnnInt, uint64(a.i))
		case a.isBool:
			v := uint64(0)
			if a.b {
				v = 1
			}
			p.ann = appendUint(p.ann, fAnnBool, v)
		default:
			p.ann = appendString(p.ann, fAnnString, a.s)
		}
		p.ev = appendTag(p.ev, fEventAnnotation, bytesType)
		p.ev = appendBytes(p.ev, p.ann)
	}
	p.begin()
	p.pkt = appendUint(p.pkt, fPacketTimestamp, uint64(ts))
	if len(p.intern) > 0 {
		p.pkt = appendTag(p.pkt, fPacketInterned, bytesType)
		p.pkt = appendBytes(p.pkt, p.intern)
	}
	p.pkt = appendTag(p.pkt, fPacketTrackEvent, bytesType)
	p.pkt = appendBytes(p.pkt, p.ev)
	p.emit()
}

// slice is a BEGIN/END pair on one track: the END is written right away,
// so no slice is ever left open, whatever happens to the rest of the run.
func (p *perfetto) slice(t *track, name, cat string, begin, end int64, args []arg, flowOut, flowIn uint64) {
	p.event(t, typeSliceBegin, name, cat, begin, args, flowOut, flowIn)
	p.event(t, typeSliceEnd, "", "", end, nil, 0, 0)
	p.a = args[:0]
}

func (p *perfetto) instant(t *track, name, cat string, ts int64, args []arg) {
	p.event(t, typeInstant, name, cat, ts, args, 0, 0)
	p.a = args[:0]
}

// finish writes the metadata as a ChromeEventBundle, which trace processor
// keeps in its metadata table ("cr-tally_verdict", …).
func (p *perfetto) finish(meta []arg) {
	var bundle, m []byte
	for _, a := range meta {
		m = appendString(m[:0], fMetaName, a.key)
		if a.isInt {
			m = appendUint(m, fMetaInt, uint64(a.i))
		} else {
			m = appendString(m, fMetaString, a.s)
		}
		bundle = appendTag(bundle, fBundleMetadata, bytesType)
		bundle = appendBytes(bundle, m)
	}
	p.begin()
	p.pkt = appendTag(p.pkt, fPacketChromeEvent, bytesType)
	p.pkt = appendBytes(p.pkt, bundle)
	p.emit()
}
