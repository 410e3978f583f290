package kineto

import (
	"sync"

	"github.com/tallyprof/tally/format/internal/reorder"
)

// Buffers kept between reads. A directory of ranks is read input after
// input, and the scanner's block, the dispatch log's slab and the linker's
// ring are the bulk of what a read allocates: fresh, they are zeroed
// memory, page faults and garbage collections, which cost two readers
// running at once more than one (each collection stops both). Reads return
// them here when they end, and the next reads take them. The overlap
// check's reorder windows grow with each read (a 4 MB rank: 370 KB of
// growth), so they are kept too, up to maxReusedWindow records. At most
// reuseLen blocks and windows are kept (8 MiB and 1.8 MiB at most) and
// maxReusedLarge slabs and rings (slab.go), for the life of the process.
const reuseLen = 8

type reuse[T any] struct {
	mu   sync.Mutex
	free []T
	max  int // kept at most; 0: reuseLen
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

// put keeps x for a later get; a full pool leaves it to the collector.
func (c *reuse[T]) put(x T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	limit := c.max
	if limit == 0 {
		limit = reuseLen
	}
	if len(c.free) < limit {
		c.free = append(c.free, x)
	}
}

var (
	blocks  reuse[[]byte]                         // scanner blocks of defaultConfig.bufSize
	slabs   = reuse[[]drec]{max: maxReusedLarge}  // dispatch log slabs (slab.go)
	rings   = reuse[[]rtRec]{max: maxReusedLarge} // the linker's rings' memory
	windows reuse[reorder.Window[ovRec]]          // overlap reorder windows, emptied
	// the repeat check's windows (repeat.go), 20 KiB each: a read
	// keeps one per stream
	repeatWindows = reuse[[]repeatRec]{max: 4 * reuseLen}
)
