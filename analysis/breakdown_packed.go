package analysis

import (
	"encoding/binary"
	"unsafe"
)

// Records that arrive in order (records.ordered) are kept packed: a header
// byte and varints of the differences from the record before (start, then
// end, launch call and sync end from the start, queue and kernel only when
// they change), about 10 bytes a dispatch on hrx's and nsys's traces
// instead of 56. They need no sort, and the memory budget (Records × 56
// bytes) holds 5 times as many of them before a run is spilled: the
// generated 300 MB hrx trace's 291,509 dispatches take 3 MB and spill
// nothing. The differences wrap (int64 arithmetic modulo 2^64), so any
// record comes back exactly, only longer.

// recMem is a record's size in memory: the unit of the memory budget.
const recMem = int64(unsafe.Sizeof(bdRec{}))

// Header bits of a packed record, above its flags (fLaunch, fSync, fGraph).
const (
	pkFlags  = 1<<3 - 1
	pkLaunch = 1 << 3 // lEnd − start and lEnd − lBegin follow
	pkSync   = 1 << 4 // lBegin − syncEnd follows
	pkQueue  = 1 << 5 // the queue follows (else the one before's)
	pkKernel = 1 << 6 // the kernel follows (else the one before's)
	pkMore   = 1 << 7 // the whole flags byte follows (flags past pkFlags)
)

// pkMax bounds one packed record: header, flags byte, six varints.
const pkMax = 2 + 6*binary.MaxVarintLen64

// pkBlock is the first block's size; blocks double up to pkBlockMax.
const (
	pkBlock    = 64 << 10
	pkBlockMax = 2 << 20
)

// packed holds records in order in blocks of bytes (no record straddles
// two), within budget bytes.
type packed struct {
	blocks [][]byte // used: blocks[:bi+1]; the rest are kept for reuse
	bi     int
	alloc  int64 // bytes of all blocks
	budget int64
	n      int64 // records held
	prev   bdRec // the last record packed: the next one's base
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
	if r.flags > pkFlags {
		h |= pkMore
		b[i] = r.flags
		i++
	}
	i += binary.PutUvarint(b[i:], uint64(r.start)-uint64(pv.start))
	i += binary.PutUvarint(b[i:], zig(r.end-r.start))
	if r.flags&fLaunch != 0 || r.lBegin != 0 || r.lEnd != 0 {
		h |= pkLaunch
		i += binary.PutUvarint(b[i:], zig(r.lEnd-r.start))
		i += binary.PutUvarint(b[i:], zig(r.lEnd-r.lBegin))
	}
	if r.syncEnd != 0 {
		h |= pkSync
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
	*pv = *r
	return true
}

// nextBlock moves to the next block: a kept one, or a new one twice the
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
		size = min(2*int64(cap(p.blocks[k-1])), pkBlockMax)
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
	if size >= pkBlockMax {
		adviseHuge(b[:size])
	}
	p.blocks = append(p.blocks, b)
	p.alloc += size
	p.bi = len(p.blocks) - 1
	return true
}

// reset empties p, keeping its blocks.
func (p *packed) reset() {
	for i := range p.blocks {
		p.blocks[i] = p.blocks[i][:0]
	}
	p.bi, p.n, p.prev = 0, 0, bdRec{}
}

// release drops p's blocks (the records went elsewhere).
func (p *packed) release() {
	*p = packed{budget: p.budget}
}

// reader returns a reader of p's records, in order.
func (p *packed) reader() *pkReader {
	return &pkReader{blocks: p.blocks[:min(p.bi+1, len(p.blocks))]}
}

// pkReader unpacks records one after another.
type pkReader struct {
	blocks [][]byte
	bi, i  int
	prev   bdRec
}

// next unpacks the next record into r; false at the end.
func (u *pkReader) next(r *bdRec) bool {
	for u.bi < len(u.blocks) && u.i == len(u.blocks[u.bi]) {
		u.bi++
		u.i = 0
	}
	if u.bi == len(u.blocks) {
		return false
	}
	b := u.blocks[u.bi][u.i:]
	h := b[0]
	i := 1
	pv := &u.prev
	flags := h & pkFlags
	if h&pkMore != 0 {
		flags = b[i]
		i++
	}
	v, k := binary.Uvarint(b[i:])
	i += k
	start := int64(uint64(pv.start) + v)
	v, k = binary.Uvarint(b[i:])
	i += k
	*r = bdRec{start: start, end: start + unzig(v), flags: flags, queue: pv.queue, kernel: pv.kernel}
	if h&pkLaunch != 0 {
		v, k = binary.Uvarint(b[i:])
		i += k
		r.lEnd = start + unzig(v)
		v, k = binary.Uvarint(b[i:])
		i += k
		r.lBegin = r.lEnd - unzig(v)
	}
	if h&pkSync != 0 {
		v, k = binary.Uvarint(b[i:])
		i += k
		r.syncEnd = r.lBegin - unzig(v)
	}
	if h&pkQueue != 0 {
		v, k = binary.Uvarint(b[i:])
		i += k
		r.queue = int32(unzig(v))
	}
	if h&pkKernel != 0 {
		v, k = binary.Uvarint(b[i:])
		i += k
		r.kernel = int32(unzig(v))
	}
	u.i += i
	*pv = *r
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
	if !rs.openSpill() {
		return
	}
	if len(rs.runs) >= maxRuns {
		rs.compact()
		if rs.err != nil {
			return
		}
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
			rs.addChunked(rec)
		}
	}
	rs.pk.release()
}
