package inputs

import (
	"bytes"
	"hash/fnv"
	"io"
	"os"

	"github.com/tallyprof/tally/analysis"
)

// passRepeats passes over every input that repeats one already among the
// inputs, listing it as skipped with the input it repeats: read twice, one
// recording would count its dispatches twice in the merged tables, and the
// run would still read as complete. A repeat is a path that names the same
// file or directory (the same path twice, a link to it, a file named again
// inside a directory that was walked), or a file holding the same bytes as
// an earlier one (a copy: two recordings never write the same bytes, as
// their times differ).
func (e *Expansion) passRepeats() {
	bySize := map[int64][]*named{}
	kept := e.Paths[:0]
	for _, p := range e.Paths {
		st, err := os.Stat(p)
		if p == "-" || err != nil {
			kept = append(kept, p) // standard input, or a path whose read will fail visibly
			continue
		}
		this := &named{path: p, st: st}
		why, of := "", ""
		for _, n := range bySize[st.Size()] {
			if os.SameFile(n.st, st) {
				why, of = "the same file as "+n.path+", named again: read once", n.path
				break
			}
		}
		if why == "" && st.Mode().IsRegular() && st.Size() > 0 {
			for _, n := range bySize[st.Size()] {
				// Each file's last block is hashed once, so that many files of
				// one size cost a read each, not one per pair.
				if n.st.Mode().IsRegular() && n.tailHash() == this.tailHash() && compareBytes(n.path, p, st.Size()) {
					why, of = "the same bytes as "+n.path+": a copy of one recording, read once", n.path
					break
				}
			}
		}
		if why != "" {
			e.Skipped = append(e.Skipped, analysis.Skipped{Path: p, Reason: why, Repeats: of})
			continue
		}
		bySize[st.Size()] = append(bySize[st.Size()], this)
		kept = append(kept, p)
	}
	e.Paths = kept
}

// named is an input kept by passRepeats.
type named struct {
	path string
	st   os.FileInfo
	tail uint64 // hash of the last block, once read
	read bool
}

// tailHash hashes the file's last block (a trace's last events differ
// between recordings, as their times do); 0 for a file it cannot read.
func (n *named) tailHash() uint64 {
	if !n.read {
		n.read = true
		f, err := os.Open(n.path)
		if err != nil {
			return 0
		}
		defer f.Close()
		off := max(n.st.Size()-block, 0)
		buf := make([]byte, n.st.Size()-off)
		if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
			return 0
		}
		h := fnv.New64a()
		h.Write(buf)
		n.tail = h.Sum64()
	}
	return n.tail
}

// block is how much of a file sameBytes and tailHash read at a time.
const block = 64 << 10

// compareBytes is sameBytes; a variable so that a test can count the calls.
var compareBytes = sameBytes

// sameBytes reports whether files a and b, both size bytes long, hold the
// same bytes. It compares their last block first (a trace's last events
// differ between recordings, as their times do), then the whole, stopping
// at the first difference; a file it cannot read is not the same.
func sameBytes(a, b string, size int64) bool {
	fa, err := os.Open(a)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false
	}
	defer fb.Close()
	ba, bb := make([]byte, block), make([]byte, block)
	same := func(off int64, n int) bool {
		if _, err := fa.ReadAt(ba[:n], off); err != nil && err != io.EOF {
			return false
		}
		if _, err := fb.ReadAt(bb[:n], off); err != nil && err != io.EOF {
			return false
		}
		return bytes.Equal(ba[:n], bb[:n])
	}
	last := max(size-block, 0)
	if !same(last, int(size-last)) {
		return false
	}
	for off := int64(0); off < last; off += block {
		if !same(off, int(min(block, last-off))) {
			return false
		}
	}
	return true
}
