package kineto

import "github.com/tallyprof/tally/internal/hugemem"

// A full-size dispatch log takes its chunks from one slab: an array the
// size of the whole in-memory budget, advised for huge pages
// (internal/hugemem). Filling the budget page by page was 2,000 faults of
// 4 KiB on a 200 MB trace, about a tenth of its read on a virtual machine;
// on huge pages it is five. The slab is fresh memory, untouched until
// used, so a small trace costs one page; it goes to the next read when
// this one ends, as the scanner's blocks do.

// maxReusedLarge bounds the slabs, and the linker's rings, kept for later
// reads: two reads run at once on two cores, and each slab kept holds up
// to the log's budget (about 9 MiB), each ring up to 2.6 MB, for the life
// of the process.
const maxReusedLarge = 2

// slabChunk hands out the next chunk of the log's slab, taking a slab
// first if it has none; nil once the slab is used up (the log then makes
// its chunks one by one: only a log that cannot spill outgrows it).
func (l *dlog) slabChunk() []drec {
	if l.slab == nil {
		l.slab = takeSlab(l.maxChunks << l.shift)
	}
	at := l.slabNext << l.shift
	if at+1<<l.shift > len(l.slab) {
		return nil
	}
	l.slabNext++
	return l.slab[at : at : at+1<<l.shift]
}

// takeSlab returns a slab of n records, one kept from an earlier read when
// its size fits.
func takeSlab(n int) []drec {
	if s, ok := slabs.get(); ok && len(s) == n {
		return s
	}
	return hugemem.Make[drec](n)
}
