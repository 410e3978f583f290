package kineto

import (
	"sync"

	"github.com/tallyprof/tally/format/internal/reorder"
)

// Buffers kept between reads. A directory of ranks is read input after
// input, and the scanner's block and the dispatch log's chunks are the
// bulk of what a read allocates: fresh, they are zeroed memory, page
// faults and garbage collections, which cost two readers running at once
// more than one (each collection stops both). Reads return them here when
// they end, and the next reads take them. The linker's ring and the
// overlap check's reorder windows grow with each read (a 4 MB rank: 280
// KB and 370 KB of growth), so they are kept too, up to maxReusedRing and
// maxReusedWindow records. At most reuseLen of each are kept: 8 MiB of
// blocks, 5 MiB of rings and 1.8 MiB of windows at most, beside the log
// chunks, for the life of the process.
const reuseLen = 8

type reuse[T any] struct {
	mu   sync.Mutex
	free []T
}

func (c *reuse[T]) get() (x T, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.free); n > 0 {
		x = c.free[n-1]
		var zero T
		c.free[n-1] = zero
		c.free = c.free[:n-1]
		return x, true
	}
	return x, false
}

func (c *reuse[T]) put(x T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.free) < reuseLen {
		c.free = append(c.free, x)
	}
}

var (
	blocks  reuse[[]byte]                // scanner blocks of defaultConfig.bufSize
	chunks  reuse[[]drec]                // dispatch log chunks of 1<<maxChunkShift records
	rings   reuse[[]rtRec]               // the linker's rings, at most maxReusedRing records
	windows reuse[reorder.Window[ovRec]] // overlap reorder windows, emptied
)
