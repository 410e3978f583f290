package analysis

import (
	"encoding/binary"
	"unsafe"

	"github.com/tallyprof/tally/internal/hugemem"
)

// Records that arrive in order (records.ordered) are kept packed: a header
// byte and the differences from the record before (start, then end and
// launch call from the start, each in 1, 2, 4 or 8 bytes as a byte of
// 2-bit widths says; sync end, queue and kernel as varints, the queue and
// kernel only when they change), about 12 bytes a dispatch on hrx's and
// nsys's traces instead of 56. They need no sort, and the memory budget
// (Records × 56 bytes) holds 4 to 5 times as many of them before a run is
// spilled: the generated 300 MB hrx trace's 291,509 dispatches take 3.5 MB
// and spill nothing. Fixed widths, not varints, for the four frequent
// fields: unpacking is a load and a mask each. The differences wrap (int64
// arithmetic modulo 2^64), so any record comes back exactly, only longer.

// recMem is a record's size in memory: the unit of the memory budget.
const recMem = int64(unsafe.Sizeof(bdRec{}))

// Header bits of a packed record, above its flags (fLaunch, fSync, fGraph).
// A launch call is written when fLaunch, as lEnd − start and lEnd − lBegin
// (only the latter when pkAtEnd: hrx's serial timing starts every command
// where its launch call ended); a sync end when fSync, as lBegin − syncEnd.
// A record whose fields do not follow its flags (flags past pkFlags, a
// launch or sync end without its flag: the sink makes none) is pkMore: its
// flags byte and a byte of pkLaunch and pkSync follow the header.
const (
	pkFlags  = 1<<3 - 1
	pkQueue  = 1 << 3 // the queue follows (else the one before's)
	pkKernel = 1 << 4 // the kernel follows (else the one before's)
	pkAtEnd  = 1 << 5 // the launch call ended at the start
	pkMore   = 1 << 7

	pkLaunch = 1 << 0 // pkMore: the launch call follows
	pkSync   = 1 << 1 // pkMore: the sync end follows
)

// pkMax bounds one packed record: header, two bytes, the widths, four
// fixed fields, three varints, and the 8 bytes a field's store or load may
// reach past the record's end.
const pkMax = 4 + 4*8 + 3*binary.MaxVarintLen64 + 8

// pkBlock is the first block's size; blocks grow 4 times up to pkBlockMax.
// Blocks from pkHuge up are advised for huge pages (breakdown_huge_linux.go):
// the hrx trace's 3.5 MB took 850 faults in 4 KiB pages.
const (
	pkBlock    = 64 << 10
	pkBlockMax = 2 << 20
	pkHuge     = 1 << 20
)

// pkWidth is a fixed field's width code: 0, 1, 2, 3 for 1, 2, 4, 8 bytes.
func pkWidth(v uint64) uint8 {
	switch {
	case v < 1<<8:
		return 0
	case v < 1<<16:
		return 1
	case v < 1<<32:
		return 2
	}
	return 3
}

// pkBase is what the next packed record is written against: the last
// one's start, queue and kernel (not the whole record: a copy of it cost a
// third of the unpacking).
type pkBase struct {
	start         int64
	queue, kernel int32
}

// pkMask keeps a fixed field's bytes of an 8-byte load, by width code.
var pkMask = [4]uint64{1<<8 - 1, 1<<16 - 1, 1<<32 - 1, 1<<64 - 1}

// packed holds records in order in blocks of bytes (no record straddles
// two), within budget bytes.
type packed struct {
	blocks [][]byte // used: blocks[:bi+1]; the rest are kept for reuse
	bi     int
	alloc  int64 // bytes of all blocks
	budget int64
	n      int64  // records held
	prev   pkBase // the last record packed: the next one's base
}

// add packs r, or returns false when the budget has no room for it (spill,
// reset, then add again; with no spill file, grow).
func (p *packed) add(r *bdRec, grow bool) bool {
	if len(p.blocks) == 0 || len(p.blocks[p.bi])+pkMax > cap(p.blocks[p.bi]) {
		if !p.nextBlock(grow) {
			return false
		}
	}
	b := p.blocks[p.bi]
	n := len(b)
	b = b[:n+pkMax]
	pv := &p.prev
	h := r.flags & pkFlags
	i := n + 1
	launch, sync := r.flags&fLaunch != 0, r.flags&fSync != 0
	if r.flags > pkFlags || !launch && (r.lBegin != 0 || r.lEnd != 0) || !sync && r.syncEnd != 0 {
		launch = launch || r.lBegin != 0 || r.lEnd != 0
		sync = sync || r.syncEnd != 0
		h |= pkMore
		b[i] = r.flags
		b[i+1] = 0
		if launch {
			b[i+1] |= pkLaunch
		}
		if sync {
			b[i+1] |= pkSync
		}
		i += 2
	}
	wi := i // the widths byte
	i++
	le := binary.LittleEndian
	var widths uint8
	put := func(v uint64, slot uint) {
		w := pkWidth(v)
		widths |= w << (2 * slot)
		le.PutUint64(b[i:], v)
		i += 1 << w
	}
	put(uint64(r.start)-uint64(pv.start), 0)
	put(zig(r.end-r.start), 1)
	if launch {
		if r.lEnd == r.start {
			h |= pkAtEnd
		} else {
			put(zig(r.lEnd-r.start), 2)
		}
		put(zig(r.lEnd-r.lBegin), 3)
	}
	b[wi] = widths
	if sync {
		i += binary.PutUvarint(b[i:], zig(r.lBegin-r.syncEnd))
	}
	if r.queue != pv.queue {
		h |= pkQueue
		i += binary.PutUvarint(b[i:], zig(int64(r.queue)))
	}
	if r.kernel != pv.kernel {
		h |= pkKernel
		i += binary.PutUvarint(b[i:], zig(int64(r.kernel)))
	}
	b[n] = h
	p.blocks[p.bi] = b[:i]
	p.n++
	pv.start, pv.queue, pv.kernel = r.start, r.queue, r.kernel
	return true
}

// nextBlock moves to the next block: a kept one, or a new one 4 times the
// last (pkBlock at first, at most pkBlockMax), cut to the budget unless
// grow. It returns false when the budget has no room for one.
func (p *packed) nextBlock(grow bool) bool {
	if len(p.blocks) > 0 {
		if p.bi+1 < len(p.blocks) {
			p.bi++
			return true
		}
	}
	size := int64(pkBlock)
	if k := len(p.blocks); k > 0 {
		size = pkBlockMax
	}
	if !grow {
		size = min(size, p.budget-p.alloc)
		if size < pkMax {
			if p.alloc > 0 {
				return false
			}
			size = pkMax // a budget of less than one record holds one
		}
	}
	b := make([]byte, 0, size)
	if size >= pkHuge {
		hugemem.Advise(b[:size])
	}
	p.blocks = append(p.blocks, b)
	p.alloc += size
	p.bi = len(p.blocks) - 1
	return true
}

// copyFrom copies r field by field: a whole-record copy of fields just
// stored stalls on their loads (records.add's copy of the last record
// cost as much as packing it).
func (d *bdRec) copyFrom(r *bdRec) {
	d.start, d.end, d.lBegin, d.lEnd, d.syncEnd = r.start, r.end, r.lBegin, r.lEnd, r.syncEnd
	d.queue, d.kernel, d.flags = r.queue, r.kernel, r.flags
}

// reset empties p, keeping its blocks.
func (p *packed) reset() {
	for i := range p.blocks {
		p.blocks[i] = p.blocks[i][:0]
	}
	p.bi, p.n, p.prev = 0, 0, pkBase{}
}

// release drops p's blocks (the records went elsewhere).
func (p *packed) release() {
	*p = packed{budget: p.budget}
}

// reader returns a reader of p's records, in order.
func (p *packed) reader() *pkReader {
	u := &pkReader{blocks: p.blocks[:min(p.bi+1, len(p.blocks))]}
	u.block()
	return u
}

// pkReader unpacks records one after another.
type pkReader struct {
	blocks [][]byte
	bi, i  int
	cur    []byte // blocks[bi] to its capacity: loads may reach past its records
	end    int    // its records' end
	prev   pkBase
}

// block moves to the next block with records; false past the last.
func (u *pkReader) block() bool {
	for ; u.bi < len(u.blocks); u.bi++ {
		if b := u.blocks[u.bi]; len(b) > 0 {
			u.cur, u.end, u.i = b[:cap(b)], len(b), 0
			return true
		}
	}
	u.cur, u.end, u.i = nil, 0, 0
	return false
}

// next unpacks the next record into r; false at the end.
func (u *pkReader) next(r *bdRec) bool {
	if u.i == u.end {
		u.bi++
		if !u.block() {
			return false
		}
	}
	b := u.cur[u.i:]
	h := b[0]
	i := 1
	pv := &u.prev
	flags := h & pkFlags
	launch, sync := flags&fLaunch != 0, flags&fSync != 0
	if h&pkMore != 0 {
		flags = b[i]
		launch, sync = b[i+1]&pkLaunch != 0, b[i+1]&pkSync != 0
		i += 2
	}
	widths := b[i]
	i++
	le := binary.LittleEndian
	w := widths & 3
	start := int64(uint64(pv.start) + le.Uint64(b[i:])&pkMask[w])
	i += 1 << w
	w = widths >> 2 & 3
	// Field by field, and pv from the fields, not from r: a whole-record
	// copy just after its fields were stored stalls the loads (a third of
	// the unpacking, measured).
	r.start, r.end, r.flags = start, start+unzig(le.Uint64(b[i:])&pkMask[w]), flags
	r.lBegin, r.lEnd, r.syncEnd = 0, 0, 0
	queue, kernel := pv.queue, pv.kernel
	i += 1 << w
	if launch {
		r.lEnd = start
		if h&pkAtEnd == 0 {
			w = widths >> 4 & 3
			r.lEnd += unzig(le.Uint64(b[i:]) & pkMask[w])
			i += 1 << w
		}
		w = widths >> 6
		r.lBegin = r.lEnd - unzig(le.Uint64(b[i:])&pkMask[w])
		i += 1 << w
	}
	var v uint64
	var k int
	if sync {
		v, k = binary.Uvarint(b[i:])
		i += k
		r.syncEnd = r.lBegin - unzig(v)
	}
	if h&pkQueue != 0 {
		v, k = binary.Uvarint(b[i:])
		i += k
		queue = int32(unzig(v))
	}
	if h&pkKernel != 0 {
		v, k = binary.Uvarint(b[i:])
		i += k
		kernel = int32(unzig(v))
	}
	r.queue, r.kernel = queue, kernel
	u.i += i
	*pv = pkBase{start, queue, kernel}
	return true
}

// zig maps small magnitudes of either sign to small unsigned numbers.
func zig(x int64) uint64 { return uint64(x<<1) ^ uint64(x>>63) }

func unzig(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }

// addPacked packs r, first spilling the packed records as one run when
// the budget is full.
func (rs *records) addPacked(r *bdRec) {
	if rs.pk.add(r, rs.inMemory) {
		return
	}
	rs.spillPacked()
	if rs.err != nil {
		return
	}
	rs.pk.add(r, rs.inMemory) // an empty budget has room for one, or grows
}

// spillPacked writes the packed records, in order, as one run (without a
// spill file: nothing, and the packed records grow from then on).
func (rs *records) spillPacked() {
	if !rs.startRun() {
		return
	}
	u := rs.pk.reader()
	var rec bdRec
	rs.writeRun(func() (*bdRec, bool) { return &rec, u.next(&rec) }, rs.pk.n)
	rs.pk.reset()
}

// unpack ends the ordered records at the first one out of order: the
// packed records become a sorted run when they are more than the chunks
// hold, else they go to the chunks (sorted there, as the later ones).
func (rs *records) unpack() {
	rs.ordered = false
	if rs.pk.n > int64(rs.limit) && rs.openSpill() {
		rs.spillPacked()
	} else if rs.pk.n > 0 {
		u := rs.pk.reader()
		var rec bdRec
		for rs.err == nil && u.next(&rec) {
			rs.add(&rec) // to the chunks: no longer ordered
		}
	}
	rs.pk.release()
}
