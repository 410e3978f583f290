package inputs

import (
	"sync/atomic"
	"testing"
)

// Each worker ends its time slice after every input it reads (yield's
// comment says why), however many workers there are.
func TestReadYieldsPerInput(t *testing.T) {
	dir := runDir(t)
	e := Expand([]string{dir}, "")
	var n atomic.Int64
	old := yield
	yield = func() { n.Add(1); old() }
	defer func() { yield = old }()
	for _, workers := range []int{1, 2} {
		n.Store(0)
		e.Read(Options{Workers: workers})
		if got := n.Load(); got != int64(len(e.Paths)) {
			t.Errorf("%d workers: %d yields, want one per input (%d)", workers, got, len(e.Paths))
		}
	}
}
