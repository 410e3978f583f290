package analysis

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sync"

	"github.com/tallyprof/tally/internal/hugemem"
	"github.com/tallyprof/tally/internal/spillfile"
)

// The breakdown sweeps each device in time order, and readers hand
// dispatches over in their own order (Kineto: file order; nsys: by process
// and correlation). So each dispatch is kept as a compact record (bdRec,
// 56 bytes in memory); the memory budget is BreakdownOptions.Records of
// them. While the records arrive in order (records.ordered: hrx serial,
// nsys, IREE) they are packed instead (breakdown_packed.go, about 10 bytes
// each, so the budget holds 5 times as many) and need no sort: a full
// budget is written as one run, the runs are consecutive, and Finish
// unpacks them straight into the sweep. The first record out of order
// moves the packed ones to a sorted run (or, fewer than Records, to the
// chunks) and records from then on go to chunks of chunkRecs records, each
// sorted when full (no copy to grow it); a full buffer is sorted and
// written to TMPDIR as one sorted run (an unlinked file, every write
// checked, bounded by SpillLimit), and the sweep reads the runs and the
// last buffer through a k-way merge. More than maxRuns runs are first
// merged into one, so the merge's read buffers stay bounded too: memory is
// Records × 56 B + maxRuns × runBuffer (14 MiB + 4 MiB by default),
// whatever the trace's size. The sweep cannot run as the records arrive,
// which would spare keeping them: the row a dispatch belongs to (its
// queue's device and rank, its program's clock, its kernel's class) may be
// set only at the end of the read (Kineto's rank, IREE's clocks).

// bdRec is one dispatch as the sweep needs it.
type bdRec struct {
	start, end   int64 // device interval
	lBegin, lEnd int64 // launch call, when fLaunch
	syncEnd      int64 // end of the host sync call the launch followed, when fSync
	queue        int32 // capture.QueueID (NoQueue is -1)
	kernel       int32 // capture.KernelID
	flags        uint8
}

const (
	fLaunch uint8 = 1 << iota // lBegin/lEnd hold the launch call
	fSync                     // syncEnd holds the host sync's end
	fGraph                    // replayed by a graph launch (capture.LinkGraph)
)

const recSize = 5*8 + 4 + 4 + 1

func (r *bdRec) encode(b []byte) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], uint64(r.start))
	le.PutUint64(b[8:], uint64(r.end))
	le.PutUint64(b[16:], uint64(r.lBegin))
	le.PutUint64(b[24:], uint64(r.lEnd))
	le.PutUint64(b[32:], uint64(r.syncEnd))
	le.PutUint32(b[40:], uint32(r.queue))
	le.PutUint32(b[44:], uint32(r.kernel))
	b[48] = r.flags
}

func (r *bdRec) decode(b []byte) {
	le := binary.LittleEndian
	r.start = int64(le.Uint64(b[0:]))
	r.end = int64(le.Uint64(b[8:]))
	r.lBegin = int64(le.Uint64(b[16:]))
	r.lEnd = int64(le.Uint64(b[24:]))
	r.syncEnd = int64(le.Uint64(b[32:]))
	r.queue = int32(le.Uint32(b[40:]))
	r.kernel = int32(le.Uint32(b[44:]))
	r.flags = b[48]
}

// recCmp orders records by start, then by every other field, so that the
// sweep sees one order however the records were split into runs.
func recCmp(a, b *bdRec) int {
	if c := cmp.Compare(a.start, b.start); c != 0 {
		return c
	}
	if c := cmp.Compare(a.end, b.end); c != 0 {
		return c
	}
	if c := cmp.Compare(a.lEnd, b.lEnd); c != 0 {
		return c
	}
	if c := cmp.Compare(a.queue, b.queue); c != 0 {
		return c
	}
	if c := cmp.Compare(a.kernel, b.kernel); c != 0 {
		return c
	}
	if c := cmp.Compare(a.lBegin, b.lBegin); c != 0 {
		return c
	}
	if c := cmp.Compare(a.syncEnd, b.syncEnd); c != 0 {
		return c
	}
	return cmp.Compare(a.flags, b.flags)
}

// maxRuns is how many sorted runs are merged at once; runBuffer is each
// one's read buffer.
const (
	maxRuns   = 64
	runBuffer = 64 << 10
)

// run is one sorted run in the spill file.
type run struct {
	off, n int64 // byte offset and record count
}

// chunkRecs is how many records one in-memory chunk holds (448 KiB): the
// buffer grows a chunk at a time, each sorted when full, so no record is
// copied to grow it, and the sort of a chunk stays in cache.
const chunkRecs = 8 << 10

// records buffers the records, in sorted chunks, spilling sorted runs.
type records struct {
	chunks [][]bdRec // full, sorted
	cur    []bdRec   // filling, unsorted
	free   [][]bdRec // chunks emptied by a spill, for reuse
	spare  []bdRec   // the chunk a sort moves records into
	keys   []sortKey // sortedWide's keys
	packed []uint64  // sorted's keys
	held   int       // records in chunks and cur
	limit  int
	chunk  int // records per chunk: min(chunkRecs, limit)

	dir       string
	spillMax  int64 // 0: no limit
	spillHint string
	f         *os.File
	size      int64 // bytes in f
	runs      []run
	spilled   int64 // bytes ever written
	inMemory  bool  // no spill file could be made: memory grows instead
	err       error
	wbuf      []byte // writeRun's buffer

	made int     // chunks made
	slab []bdRec // the last slab's chunks not handed out yet

	// ordered: every record so far arrived in order (recCmp), as most
	// readers deliver them (hrx serial, nsys, IREE): they are packed (pk,
	// breakdown_packed.go), not chunked, need no sort, and the runs are
	// consecutive, so they are written and read one after another, without
	// a merge. last is the last record (at first one before any record).
	ordered bool
	last    bdRec
	pk      packed
}

func newRecords(opt BreakdownOptions) *records {
	return &records{ordered: true, last: bdRec{start: math.MinInt64}, limit: opt.Records, chunk: min(chunkRecs, opt.Records), dir: opt.TempDir, spillMax: opt.SpillLimit, spillHint: opt.SpillHint,
		pk: packed{budget: int64(opt.Records) * recMem}}
}

// add appends r, spilling a full buffer; after a failed spill it only
// keeps the first error.
func (rs *records) add(r *bdRec) {
	if rs.err != nil {
		return
	}
	if rs.ordered {
		if last := &rs.last; r.start > last.start || r.start == last.start && recCmp(last, r) <= 0 {
			last.copyFrom(r)
			rs.addPacked(r)
			return
		}
		rs.unpack()
		if rs.err != nil {
			return
		}
	}
	if len(rs.cur) == cap(rs.cur) {
		if n := len(rs.cur); n > 0 {
			rs.chunks = append(rs.chunks, rs.sorted(rs.cur))
			rs.cur = nil
		}
		if rs.held >= rs.limit && !rs.inMemory {
			rs.spill()
			if rs.err != nil {
				return
			}
		}
		rs.cur = rs.newChunk()
	}
	rs.cur = append(rs.cur, *r)
	rs.held++
}

// sorted returns the records of c in order, in c or in a chunk of the same
// capacity (c then becomes the spare). It sorts keys, not the 56-byte
// records, and moves each record once: each key is the start (less the
// chunk's first) and the index packed in 8 bytes, sorted without a compare
// function; records with equal starts are then ordered by recCmp. A chunk
// whose starts span 2^51 or more sorts 16-byte keys (start and index).
func (rs *records) sorted(c []bdRec) []bdRec {
	if rs.ordered || len(c) < 2 {
		return c
	}
	lo, hi := c[0].start, c[0].start
	inOrder := true
	for i := 1; i < len(c); i++ {
		s := c[i].start
		lo, hi = min(lo, s), max(hi, s)
		if inOrder && (s < c[i-1].start || s == c[i-1].start && recCmp(&c[i-1], &c[i]) > 0) {
			inOrder = false
		}
	}
	if inOrder {
		return c
	}
	if uint64(hi)-uint64(lo) >= 1<<(64-idxBits) {
		return rs.sortedWide(c)
	}
	keys := rs.packed[:0]
	for i := range c {
		keys = append(keys, (uint64(c[i].start)-uint64(lo))<<idxBits|uint64(i))
	}
	rs.packed = keys
	slices.Sort(keys)
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j]>>idxBits == keys[i]>>idxBits {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(keys[i:j], func(a, b uint64) int { return recCmp(&c[a&idxMask], &c[b&idxMask]) })
		}
		i = j
	}
	out := rs.spareFor(c)
	for j, k := range keys {
		out[j] = c[k&idxMask]
	}
	rs.spare = c[:0]
	return out
}

// idxBits hold a record's index in a chunk in a packed sort key.
const (
	idxBits = 13
	idxMask = 1<<idxBits - 1
)

var _ [1<<idxBits - chunkRecs]struct{} // chunkRecs must fit in idxBits

// spareFor returns the spare chunk, len(c) long.
func (rs *records) spareFor(c []bdRec) []bdRec {
	out := rs.spare
	if cap(out) < len(c) {
		out = rs.newChunk()
	}
	return out[:len(c)]
}

// newChunk returns an empty chunk: a free one, or one made. The first two
// (the filling chunk and the sort's spare: all a small trace needs) are
// made on their own; later ones are cut from slabs, each as large as all
// chunks made so far (at least 4), up to the budget (limit records, the
// filling chunk and the spare), their memory advised for huge pages
// (internal/hugemem): on a VM, faulting the 14 MiB budget in 4 KiB
// pages took 50 ms, in 2 MiB pages 1.5 ms. Slabs grow, rather than one
// slab of the whole budget, so that a trace of a few chunks does not clear
// 14 MiB (in a run of many inputs, memory is reused and cleared). Past the
// budget (no spill file: memory grows) chunks are made one by one.
func (rs *records) newChunk() []bdRec {
	if rs.made < 2 && rs.chunk == chunkRecs {
		if c, ok := keptChunks.get(); ok {
			rs.made++
			return c
		}
	}
	if n := len(rs.free); n > 0 {
		c := rs.free[n-1][:0]
		rs.free = rs.free[:n-1]
		return c
	}
	if len(rs.slab) < rs.chunk {
		budget := rs.limit/rs.chunk + 2
		if n := min(max(rs.made, 4), budget-rs.made); rs.made >= 2 && n > 1 {
			rs.slab = hugemem.Make[bdRec](n * rs.chunk)
		}
	}
	rs.made++
	if len(rs.slab) >= rs.chunk {
		c := rs.slab[:0:rs.chunk]
		rs.slab = rs.slab[rs.chunk:]
		return c
	}
	return make([]bdRec, 0, rs.chunk)
}

// sortedWide is sorted for starts too far apart to pack.
func (rs *records) sortedWide(c []bdRec) []bdRec {
	keys := rs.keys[:0]
	for i := range c {
		keys = append(keys, sortKey{c[i].start, uint32(i)})
	}
	rs.keys = keys
	slices.SortFunc(keys, func(a, b sortKey) int {
		if a.start != b.start {
			return cmp.Compare(a.start, b.start)
		}
		return recCmp(&c[a.i], &c[b.i])
	})
	out := rs.spareFor(c)
	for j, k := range keys {
		out[j] = c[k.i]
	}
	rs.spare = c[:0]
	return out
}

type sortKey struct {
	start int64
	i     uint32
}

// openSpill makes the spill file if there is none; false when none can be
// made (then inMemory).
func (rs *records) openSpill() bool {
	if rs.f == nil {
		f, err := spillfile.Create(rs.dir, "tally-breakdown-*.spill")
		if err != nil {
			// As the Kineto dispatch log does: no spill file, so memory
			// grows with the trace (the report says so).
			rs.inMemory = true
			return false
		}
		rs.f = f
	}
	return true
}

// startRun readies the spill file for one more run: opened, and with
// fewer than maxRuns runs in it (compacted first where needed). False:
// no run can be written (an error, or no spill file to write to).
func (rs *records) startRun() bool {
	if !rs.openSpill() {
		return false
	}
	if len(rs.runs) >= maxRuns {
		rs.compact()
	}
	return rs.err == nil
}

// spill writes the full chunks, merged, as one sorted run.
func (rs *records) spill() {
	if !rs.startRun() {
		return
	}
	m := &merger{seq: rs.ordered}
	var n int64
	for _, c := range rs.chunks {
		m.addMem(c)
		n += int64(len(c))
	}
	m.init()
	rs.writeRun(m.next, n)
	for _, c := range rs.chunks {
		rs.free = append(rs.free, c[:0])
	}
	rs.chunks = nil
	rs.held -= int(n)
}

// writeRun appends n records from next to the spill file as one run.
func (rs *records) writeRun(next func() (*bdRec, bool), n int64) {
	bytes := n * recSize
	if rs.spillMax > 0 && rs.size+bytes > rs.spillMax {
		rs.err = fmt.Errorf("the breakdown's spill file %s in TMPDIR reached the spill limit of %d bytes: %s", rs.f.Name(), rs.spillMax, rs.spillHint)
		return
	}
	if _, err := rs.f.Seek(rs.size, io.SeekStart); err != nil {
		rs.err = rs.writeErr(err)
		return
	}
	if rs.wbuf == nil {
		rs.wbuf = make([]byte, runBuffer/recSize*recSize)
	}
	buf, p := rs.wbuf, 0
	for r, ok := next(); ok; r, ok = next() {
		r.encode(buf[p : p+recSize])
		if p += recSize; p == len(buf) {
			if _, err := rs.f.Write(buf); err != nil {
				rs.err = rs.writeErr(err)
				return
			}
			p = 0
		}
	}
	if _, err := rs.f.Write(buf[:p]); err != nil {
		rs.err = rs.writeErr(err)
		return
	}
	rs.runs = append(rs.runs, run{off: rs.size, n: n})
	rs.size += bytes
	rs.spilled += bytes
}

func (rs *records) writeErr(err error) error {
	return fmt.Errorf("writing the breakdown's temporary spill file %s: %w (set TMPDIR to a disk with free space)", rs.f.Name(), err)
}

// compact merges every run into one, in a new spill file that replaces
// the old.
func (rs *records) compact() {
	m, err := rs.merger(false)
	if err != nil {
		rs.err = err
		return
	}
	var n int64
	for _, r := range rs.runs {
		n += r.n
	}
	old := rs.f
	f, err := spillfile.Create(rs.dir, "tally-breakdown-*.spill")
	if err != nil {
		rs.err = fmt.Errorf("making a second breakdown spill file in TMPDIR: %w (set TMPDIR to a disk with free space)", err)
		return
	}
	rs.f, rs.size, rs.runs = f, 0, nil
	rs.writeRun(m.next, n)
	if m.err != nil && rs.err == nil {
		rs.err = m.err
	}
	old.Close()
}

// close releases the spill file.
func (rs *records) close() {
	rs.keep()
	if rs.f != nil {
		name := rs.f.Name()
		rs.f.Close()
		os.Remove(name) // already gone where unlinking open files works
		rs.f = nil
	}
}

// merger returns the records in order: the spilled runs and, when
// withMem, the buffered chunks (the filling one sorted first).
func (rs *records) merger(withMem bool) (*merger, error) {
	m := &merger{seq: rs.ordered}
	for _, r := range rs.runs {
		src := &runReader{f: rs.f, off: r.off, left: r.n, name: rs.f.Name()}
		if src.advance() {
			m.h = append(m.h, src)
		} else if src.err != nil {
			return nil, src.err
		}
	}
	if withMem {
		if rs.pk.n > 0 {
			src := &runReader{pk: rs.pk.reader(), left: rs.pk.n}
			src.advance()
			m.h = append(m.h, src)
		}
		rs.cur = rs.sorted(rs.cur)
		for _, c := range rs.chunks {
			m.addMem(c)
		}
		m.addMem(rs.cur)
	}
	m.init()
	return m, nil
}

// addMem adds a sorted in-memory chunk to the merge (call init after).
func (m *merger) addMem(c []bdRec) {
	if len(c) == 0 {
		return
	}
	src := &runReader{mem: c, left: int64(len(c))}
	src.advance()
	m.h = append(m.h, src)
}

// runReader reads one sorted run (from the file, the chunks, or the packed
// records). cur
// points at its current record: into the buffer, or at one of two decoded
// copies, so that the record merger.next returned stays valid while the
// reader moves on.
type runReader struct {
	cur  *bdRec
	mem  []bdRec
	pk   *pkReader
	i    int
	left int64

	f    *os.File
	off  int64 // file offset of the next read
	buf  []byte
	p    int // next record in buf
	dec  [2]bdRec
	name string
	err  error
}

func (s *runReader) advance() bool {
	if s.left == 0 {
		return false
	}
	s.left--
	if s.pk != nil {
		d := &s.dec[0]
		if s.cur == d {
			d = &s.dec[1]
		}
		s.pk.next(d)
		s.cur = d
		return true
	}
	if s.f == nil {
		s.cur = &s.mem[s.i]
		s.i++
		return true
	}
	if s.p == len(s.buf) {
		// Read as many whole records as the buffer holds, at most the
		// run's rest.
		n := min(int64(runBuffer/recSize), s.left+1) * recSize
		if s.buf == nil {
			s.buf = make([]byte, 0, runBuffer/recSize*recSize)
		}
		s.buf = s.buf[:n]
		if _, err := s.f.ReadAt(s.buf, s.off); err != nil {
			s.err = fmt.Errorf("rereading the breakdown's temporary spill file %s: %w", s.name, err)
			return false
		}
		s.off += n
		s.p = 0
	}
	d := &s.dec[0]
	if s.cur == d {
		d = &s.dec[1]
	}
	d.decode(s.buf[s.p : s.p+recSize])
	s.p += recSize
	s.cur = d
	return true
}

// merger is the k-way merge of sorted runs: a binary min-heap of their
// readers, or, when the runs are consecutive (seq: every record arrived in
// order), the runs one after another.
type merger struct {
	h   []*runReader
	seq bool
	err error
}

// less orders two readers by their current records.
func less(a, b *runReader) bool {
	x, y := a.cur, b.cur
	if x.start != y.start {
		return x.start < y.start
	}
	return recCmp(x, y) < 0
}

func (m *merger) init() {
	if m.seq {
		return
	}
	for i := len(m.h)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
}

// down moves the reader at i down to its place in the heap.
func (m *merger) down(i int) {
	h := m.h
	n := len(h)
	for {
		j := 2*i + 1
		if j >= n {
			return
		}
		if r := j + 1; r < n && less(h[r], h[j]) {
			j = r
		}
		if !less(h[j], h[i]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// next returns the next record in order, or false at the end (or on a read
// error, kept in err). The record stays valid until the next call.
func (m *merger) next() (*bdRec, bool) {
	if len(m.h) == 0 || m.err != nil {
		return nil, false
	}
	top := m.h[0]
	out := top.cur
	if top.advance() {
		if !m.seq {
			m.down(0)
		}
		return out, true
	}
	if top.err != nil {
		m.err = top.err
		return nil, false
	}
	if m.seq {
		m.h[0] = nil
		m.h = m.h[1:]
		return out, true
	}
	last := len(m.h) - 1
	m.h[0] = m.h[last]
	m.h[last] = nil
	m.h = m.h[:last]
	m.down(0)
	return out, true
}

// keptChunks are the chunks of small traces, for the next breakdown: a
// directory of ranks makes one breakdown per rank, and a rank that needs
// no more than the first two chunks (the filling one and the sort's spare,
// 448 KiB each) would otherwise clear 896 KiB of new memory, most of a
// rank's garbage, page faults and collections. At most keptLen are kept
// (3.5 MiB); chunks cut from slabs (larger traces) are not, so no slab
// stays alive for them.
var keptChunks chunkStore

const keptLen = 8

type chunkStore struct {
	mu   sync.Mutex
	free [][]bdRec
}

func (k *chunkStore) get() ([]bdRec, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := len(k.free)
	if n == 0 {
		return nil, false
	}
	c := k.free[n-1]
	k.free[n-1] = nil
	k.free = k.free[:n-1]
	return c, true
}

// keep gives the chunks of a trace that made at most two (each made on its
// own, none cut from a slab) to the next breakdown.
func (rs *records) keep() {
	if rs.made > 2 || rs.chunk != chunkRecs {
		return
	}
	var cs [][]bdRec
	for _, c := range append(append([][]bdRec{rs.cur, rs.spare}, rs.chunks...), rs.free...) {
		if cap(c) != chunkRecs {
			continue
		}
		dup := false
		for _, k := range cs {
			dup = dup || &k[:1][0] == &c[:1][0]
		}
		if !dup {
			cs = append(cs, c[:0])
		}
	}
	rs.cur, rs.spare, rs.chunks, rs.free = nil, nil, nil, nil
	keptChunks.mu.Lock()
	defer keptChunks.mu.Unlock()
	for _, c := range cs {
		if len(keptChunks.free) < keptLen {
			keptChunks.free = append(keptChunks.free, c)
		}
	}
}
