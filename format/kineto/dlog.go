package kineto

import "encoding/binary"

// A device event's program (the gpu_user_annotation around it, which
// Kineto writes after all device events) and its absolute time (the base
// may follow traceEvents) are only known at the end of the file. So device
// events are kept as compact fixed-size records and turned into dispatches
// once the whole file is read. Records beyond a memory budget are spilled to
// an unlinked temporary file, which keeps memory flat on any trace size.

// drec is one device event, as the dispatch log holds it.
type drec struct {
	ts, dur   int64 // ns, in the file's time base
	lts, ldur int64 // launch call, when linked with a time
	corr      uint64
	off       int64 // input offset of the event
	next      int64 // seq of the next older record waiting on the same corr, -1
	kname     uint32
	queue     uint32
	call      uint32 // runtime call name, when linked
	thread    uint32 // host thread of the linked call (ops.go)
	state     uint8
}

// Record states: how the event is (or may still be) linked to its launch.
const (
	stPending        uint8 = iota // waiting in memory for its runtime call
	stLate                        // its runtime call, if any, is looked up at the end
	stLaunched                    // linked, launch interval known
	stLaunchedNoTime              // its runtime call was read but its times were dropped
	stGraph                       // replayed by a graph launch
	stNoCorr                      // no correlation id: unlinkable
	stCorrZero                    // correlation id 0: unlinkable (RCCL)
	stBadCorr                     // correlation present but not an integer id
)

const drecSize = 8*7 + 4 + 4 + 4 + 4 + 1

func (r *drec) encode(b []byte) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], uint64(r.ts))
	le.PutUint64(b[8:], uint64(r.dur))
	le.PutUint64(b[16:], uint64(r.lts))
	le.PutUint64(b[24:], uint64(r.ldur))
	le.PutUint64(b[32:], r.corr)
	le.PutUint64(b[40:], uint64(r.off))
	le.PutUint64(b[48:], uint64(r.next))
	le.PutUint32(b[56:], r.kname)
	le.PutUint32(b[60:], r.queue)
	le.PutUint32(b[64:], r.call)
	le.PutUint32(b[68:], r.thread)
	b[72] = r.state
}

func (r *drec) decode(b []byte) {
	le := binary.LittleEndian
	r.ts = int64(le.Uint64(b[0:]))
	r.dur = int64(le.Uint64(b[8:]))
	r.lts = int64(le.Uint64(b[16:]))
	r.ldur = int64(le.Uint64(b[24:]))
	r.corr = le.Uint64(b[32:])
	r.off = int64(le.Uint64(b[40:]))
	r.next = int64(le.Uint64(b[48:]))
	r.kname = le.Uint32(b[56:])
	r.queue = le.Uint32(b[60:])
	r.call = le.Uint32(b[64:])
	r.thread = le.Uint32(b[68:])
	r.state = b[72]
}

// dlog is the dispatch log: records by sequence number, in chunks of a
// fixed size, the newest in memory, the oldest spilled. Adding a record
// never moves another: the log holds chunks, not one growing slice, so
// neither its growth nor a spill copies what stays in memory, and a
// spilled chunk's memory takes the next records.
type dlog struct {
	chunks [][]drec // in memory, oldest first; every one full but the last
	base   int64    // seq of chunks[0][0]
	added  int64    // records added
	// shift: a chunk holds 1<<shift records; at most maxChunks are in
	// memory (limit records, rounded down to whole chunks).
	shift     uint
	maxChunks int
	limit     int // records held in memory before the oldest are spilled
	free      []drec
	// slab holds a full-size log's chunks (slab.go), slabNext the index
	// of the next chunk it has not yet handed out.
	slab     []drec
	slabNext int

	file    spillFile // its budget bounds the spill (--spill-limit)
	spilled int64
	// noSpill is set when no temporary file could be made: memory then
	// grows with the trace, which the inventory states.
	noSpill bool
	// onSpill sees each record just before it leaves memory.
	onSpill func(*drec)
	scratch [drecSize]byte
}

// spillBuf sizes the spill file's write and read buffers: each of its
// pages costs a fault when first touched, and a larger buffer saves
// nothing on a file in the page cache.
const spillBuf = 64 << 10

// defaultLogBytes is the in-memory budget of the dispatch log.
const defaultLogBytes = 8 << 20

// maxChunkShift sizes the chunks of a full-size log: 4,096 records
// (288 KiB), about 30 chunks in the 8 MiB budget.
const maxChunkShift = 12

func newDlog(limitRecords int, tmpDir string) *dlog {
	if limitRecords < 2 {
		limitRecords = 2
	}
	// A quarter of the budget per chunk or less, so that a spill leaves
	// most of the log (and the records still waiting for their launch
	// call) in memory; tests' tiny logs get one-record chunks.
	shift := uint(0)
	for shift < maxChunkShift && 4<<(shift+1) <= limitRecords {
		shift++
	}
	return &dlog{limit: limitRecords, shift: shift, maxChunks: limitRecords >> shift, file: spillFile{tmpDir: tmpDir}}
}

// n is the number of records added.
func (l *dlog) n() int64 { return l.added }

// add appends r and returns its sequence number.
func (l *dlog) add(r drec) (int64, error) {
	last := len(l.chunks) - 1
	if last < 0 || len(l.chunks[last]) == 1<<l.shift {
		if err := l.newChunk(); err != nil {
			return 0, err
		}
		last = len(l.chunks) - 1
	}
	l.chunks[last] = append(l.chunks[last], r)
	l.added++
	return l.added - 1, nil
}

// newChunk opens a chunk for the next records, spilling the oldest first
// when memory holds maxChunks.
func (l *dlog) newChunk() error {
	if len(l.chunks) >= l.maxChunks && !l.noSpill {
		if err := l.spillOldest(); err != nil {
			return err
		}
	}
	c := l.free
	l.free = nil
	if c == nil && l.shift == maxChunkShift {
		c = l.slabChunk()
	}
	if c == nil {
		c = make([]drec, 0, 1<<l.shift)
	}
	l.chunks = append(l.chunks, c[:0])
	return nil
}

// at returns the record seq while it is in memory, else nil.
func (l *dlog) at(seq int64) *drec {
	i := seq - l.base
	if i < 0 || i >= l.added-l.base {
		return nil
	}
	return &l.chunks[i>>l.shift][i&(1<<l.shift-1)]
}

// spillOldest writes the oldest chunk to the temporary file and keeps its
// memory for the next chunk.
func (l *dlog) spillOldest() error {
	if !l.file.open() {
		l.noSpill = true
		return nil
	}
	c := l.chunks[0]
	if err := l.file.take(int64(len(c)) * drecSize); err != nil {
		return err
	}
	for i := range c {
		r := &c[i]
		if l.onSpill != nil {
			l.onSpill(r)
		}
		r.encode(l.scratch[:])
		if err := l.file.write(l.scratch[:]); err != nil {
			return err
		}
	}
	n := copy(l.chunks, l.chunks[1:])
	l.chunks[n] = nil
	l.chunks = l.chunks[:n]
	l.free = c
	l.base += int64(len(c))
	l.spilled += int64(len(c))
	return nil
}

// replay calls fn for every record in sequence order.
func (l *dlog) replay(fn func(*drec)) error {
	if l.file.f != nil {
		br, err := l.file.rewind()
		if err != nil {
			return err
		}
		var rec drec
		for k := int64(0); k < l.spilled; k++ {
			if err := l.file.read(br, l.scratch[:]); err != nil {
				return err
			}
			rec.decode(l.scratch[:])
			fn(&rec)
		}
	}
	for _, c := range l.chunks {
		for i := range c {
			fn(&c[i])
		}
	}
	return nil
}

// close releases the spill file and the chunks' memory; no record read
// from the log may be used afterwards.
func (l *dlog) close() {
	if l.slab != nil {
		slabs.put(l.slab) // to the next read (reuse.go), or the collector
		l.slab = nil
	}
	l.chunks, l.free = nil, nil
	l.file.remove()
}
