package hrxserial

import "github.com/tallyprof/tally/internal/hugemem"

// hugeBlocks is the size of a pipeline's block buffers from which they are
// taken from one slab advised for huge pages.
const hugeBlocks = 1 << 20

// blockMemory returns the memory of a pipeline's n blocks of bs bytes,
// each with room for the lines of a block of a kept trace (~160 bytes a
// line, one in three parsed) so that they seldom grow. filled says that
// the input fills them (a file of n blocks at least); a stream of unknown
// length may not, and a huge page is cleared whole at its first touch.
//
// Why one slab: every 4 KiB page a buffer first touches is a fault, and
// on a virtual machine a fault costs 10 to 20 µs. The blocks of a large
// trace are 1.5 MiB on two cores (6 of 256 KiB): 384 faults as separate
// allocations, one or two huge pages as one advised slab (1,600–1,900
// faults for the 300 MB trace before, 830–1,300 after).
func blockMemory(n, bs int, filled bool) (bufs [][]byte, toks [][]tok, parsedRoom [][]parsed) {
	nTok, nParsed := bs/128+1, bs/384+1
	bufs, toks, parsedRoom = make([][]byte, n), make([][]tok, n), make([][]parsed, n)
	if !filled || n*bs < hugeBlocks {
		for i := range n {
			bufs[i], toks[i], parsedRoom[i] = make([]byte, bs), make([]tok, 0, nTok), make([]parsed, 0, nParsed)
		}
		return bufs, toks, parsedRoom
	}
	allBufs, allToks, allParsed := hugemem.Make[byte](n*bs), hugemem.Make[tok](n*nTok), hugemem.Make[parsed](n*nParsed)
	for i := range n {
		bufs[i] = allBufs[i*bs : (i+1)*bs : (i+1)*bs]
		toks[i] = allToks[i*nTok : i*nTok : (i+1)*nTok]
		parsedRoom[i] = allParsed[i*nParsed : i*nParsed : (i+1)*nParsed]
	}
	return bufs, toks, parsedRoom
}
