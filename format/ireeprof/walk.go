package ireeprof

import "fmt"

// recHeader is one file-level record header (spec §3) and where its parts
// are. The four padding bytes at 76..79 are never read: the writer leaves
// stack garbage there.
type recHeader struct {
	index      int   // 0-based record index in the file
	off        int64 // byte offset of the record
	length     uint64
	payloadLen uint64
	sessionID  uint64
	streamID   uint64
	headerLen  uint32
	ctLen      uint32
	nameLen    uint32
	device     uint32
	queue      uint32
	chunkFlags uint64
	dropped    uint64
	status     uint32
	recType    uint16
	flags      uint16
	ct         ctype
	payloadOff int64
}

func (h *recHeader) nameOff() int64 { return h.off + int64(h.headerLen) + int64(h.ctLen) }

func (h *recHeader) truncated() bool { return h.chunkFlags&chunkTruncated != 0 || h.dropped != 0 }

func decodeRecHeader(b []byte, h *recHeader) {
	_ = b[recordHeaderLen-1]
	h.length = u64(b, 0)
	h.payloadLen = u64(b, 8)
	h.sessionID = u64(b, 16)
	h.streamID = u64(b, 24)
	h.headerLen = u32(b, 56)
	h.ctLen = u32(b, 60)
	h.nameLen = u32(b, 64)
	h.device = u32(b, 68)
	h.queue = u32(b, 72)
	// 76..79: padding, uninitialised by the writer.
	h.chunkFlags = u64(b, 80)
	h.dropped = u64(b, 88)
	h.status = u32(b, 96)
	h.recType = u16(b, 100)
	h.flags = u16(b, 102)
}

// stopKind says why a walk ended.
type stopKind int

const (
	stopEnd       stopKind = iota // reached the logical end on a record boundary
	stopCutHeader                 // fewer than 104 bytes left for a record header
	stopCutRecord                 // a record claims more bytes than remain
	stopMalformed                 // a record too short to step over
)

// walkEnd describes where and why a walk stopped.
type walkEnd struct {
	kind    stopKind
	at      int64  // offset of the record that stopped the walk
	index   int    // its record index
	present int64  // bytes of it present before the logical end
	length  uint64 // its record_length, when readable (0 otherwise)
	recType uint16 // its record type, when readable
	hasType bool
	ct      ctype
	why     string
}

// walker steps over the records in [start, end) (spec §5). Both passes use
// it, so they see exactly the same records.
type walker struct {
	w          *window
	start, end int64
}

// walk calls rec for every well-formed record and bad for every record that
// is malformed but can be stepped over. It stops at the logical end, at a
// cut, or at a record too short to step over.
func (wk *walker) walk(rec func(h *recHeader) error, bad func(h *recHeader, why string) error) (walkEnd, error) {
	var h recHeader
	off, index := wk.start, 0
	for off < wk.end {
		rem := wk.end - off
		if rem < recordHeaderLen {
			e := walkEnd{kind: stopCutHeader, at: off, index: index, present: rem}
			if rem >= 8 {
				b, err := wk.w.get(off, 8)
				if err != nil {
					return e, err
				}
				e.length = u64(b, 0)
			}
			return e, nil
		}
		b, err := wk.w.get(off, recordHeaderLen)
		if err != nil {
			return walkEnd{}, err
		}
		h = recHeader{index: index, off: off}
		decodeRecHeader(b, &h)
		if h.length > uint64(rem) {
			e := walkEnd{kind: stopCutRecord, at: off, index: index, present: rem, length: h.length, recType: h.recType, hasType: true}
			e.ct, err = wk.contentType(&h, rem)
			return e, err
		}
		if h.length < recordHeaderLen {
			return walkEnd{kind: stopMalformed, at: off, index: index, present: rem, length: h.length, recType: h.recType, hasType: true,
				why: fmt.Sprintf("record_length %d is shorter than the 104-byte record header, so the next record cannot be found", h.length)}, nil
		}
		if why := h.check(); why != "" {
			if err := bad(&h, why); err != nil {
				return walkEnd{}, err
			}
		} else {
			h.payloadOff = h.off + int64(h.headerLen) + int64(h.ctLen) + int64(h.nameLen)
			if h.ct, err = wk.contentType(&h, rem); err != nil {
				return walkEnd{}, err
			}
			if err := rec(&h); err != nil {
				return walkEnd{}, err
			}
		}
		off += int64(h.length)
		index++
	}
	return walkEnd{kind: stopEnd, at: off, index: index}, nil
}

// check validates a header whose record_length fits (spec §5); it returns
// why the record is malformed, or "".
func (h *recHeader) check() string {
	if h.flags != 0 {
		return fmt.Sprintf("reserved record flags are 0x%04x, not 0", h.flags)
	}
	if h.headerLen < recordHeaderLen || uint64(h.headerLen) > h.length {
		return fmt.Sprintf("header_length %d is outside 104..record_length (%d)", h.headerLen, h.length)
	}
	// Summed in 64 bits from a bounded length: ctLen and nameLen are u32,
	// and payloadLen is compared, never added, so nothing overflows.
	rest := h.length - uint64(h.headerLen)
	strs := uint64(h.ctLen) + uint64(h.nameLen)
	if strs > rest || h.payloadLen != rest-strs {
		return fmt.Sprintf("lengths do not add up: header %d + content type %d + name %d + payload %d != record_length %d",
			h.headerLen, h.ctLen, h.nameLen, h.payloadLen, h.length)
	}
	return ""
}

// maxContentType is longer than any content type tally knows; longer
// strings are unknown without being read.
const maxContentType = 128

func (wk *walker) contentType(h *recHeader, rem int64) (ctype, error) {
	if h.ctLen == 0 || h.ctLen > maxContentType || int64(h.headerLen)+int64(h.ctLen) > rem {
		return ctUnknown, nil
	}
	b, err := wk.w.get(h.off+int64(h.headerLen), int(h.ctLen))
	if err != nil {
		return ctUnknown, err
	}
	return lookupCT(b), nil
}

// str returns up to max bytes of a string field, for names shown to
// people; longer strings are cut and marked. The caller has checked that the
// n bytes at off are inside the file.
func (w *window) str(off int64, n uint32, max int) (string, error) {
	if n == 0 {
		return "", nil
	}
	m := int(n)
	if m > max {
		m = max
	}
	b, err := w.get(off, m)
	if err != nil {
		return "", err
	}
	s := string(b)
	if m < int(n) {
		s += "…"
	}
	return s, nil
}
