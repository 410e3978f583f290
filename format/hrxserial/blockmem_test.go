package hrxserial

import (
	"bytes"
	"reflect"
	"testing"
	"unsafe"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
)

// Each block owns its memory, whether the blocks share one advised slab
// or not: no buffer, token list or parsed list reaches into another's.
func TestBlockMemorySeparate(t *testing.T) {
	for _, c := range []struct {
		bufs, bs int
		filled   bool
	}{{3, 1000, true}, {6, 256 << 10, true}, {6, 256 << 10, false}} {
		bufs, toks, parsedRoom := blockMemory(c.bufs, c.bs, c.filled)
		if len(bufs) != c.bufs || len(toks) != c.bufs || len(parsedRoom) != c.bufs {
			t.Fatalf("%+v: got %d buffers, %d token lists, %d parsed lists; want %d of each", c, len(bufs), len(toks), len(parsedRoom), c.bufs)
		}
		for i := range c.bufs {
			if len(bufs[i]) != c.bs || cap(bufs[i]) != c.bs {
				t.Fatalf("%+v block %d: got a buffer of len %d cap %d, want %d and %d", c, i, len(bufs[i]), cap(bufs[i]), c.bs, c.bs)
			}
			if cap(toks[i]) != c.bs/128+1 || cap(parsedRoom[i]) != c.bs/384+1 || len(toks[i]) != 0 || len(parsedRoom[i]) != 0 {
				t.Fatalf("%+v block %d: got tokens len %d cap %d, parsed len %d cap %d; want 0, %d, 0, %d", c, i, len(toks[i]), cap(toks[i]), len(parsedRoom[i]), cap(parsedRoom[i]), c.bs/128+1, c.bs/384+1)
			}
			for j := i + 1; j < c.bufs; j++ {
				if overlap(bufs[i], bufs[j]) || overlap(toks[i][:cap(toks[i])], toks[j][:cap(toks[j])]) || overlap(parsedRoom[i][:cap(parsedRoom[i])], parsedRoom[j][:cap(parsedRoom[j])]) {
					t.Fatalf("%+v: the memory of blocks %d and %d share memory, want each its own", c, i, j)
				}
			}
		}
	}
}

func overlap[T any](a, b []T) bool {
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	size := unsafe.Sizeof(a[0])
	return pa < pb+uintptr(len(b))*size && pb < pa+uintptr(len(a))*size
}

// A trace large enough for its blocks to come from one advised slab reads
// as it does in small blocks, each its own allocation.
func TestBlockMemoryLargeRead(t *testing.T) {
	k := newKept()
	for len(k.bytes()) < 3<<20 {
		k.begin()
		for i := range 40 {
			k.command(i%7, 6)
		}
		k.end()
	}
	data := k.bytes()
	read := func(o readOptions) (*capture.Capture, []capture.Dispatch) {
		var all capture.Collect
		c, err := readStream(bytes.NewReader(data), "large", catalog.New(), &all, o)
		if err != nil {
			t.Fatalf("%+v: got error %v, want none", o, err)
		}
		return c, all.Dispatches
	}
	slab := readOptions{fast: true, blockSize: 256 << 10, workers: 2}
	if bufs := min(2*slab.workers+2, (len(data)+slab.blockSize-1)/slab.blockSize); bufs*slab.blockSize < hugeBlocks {
		t.Fatalf("%d blocks of %d bytes: under %d, want the slab path tested", bufs, slab.blockSize, hugeBlocks)
	}
	wc, wd := read(readOptions{fast: true, blockSize: 16 << 10, workers: 2})
	if len(wd) < 500 {
		t.Fatalf("got %d dispatches, want over 500: the trace tests little", len(wd))
	}
	if c, d := read(slab); !reflect.DeepEqual(c, wc) || !reflect.DeepEqual(d, wd) {
		t.Fatalf("in one slab: got %d dispatches, gaps %s; want %d, %s", len(d), gapList(c), len(wd), gapList(wc))
	}
}
