package progress

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tallyprof/tally/format"
)

// Set draws one bar for a set of inputs read in parallel (it is an
// inputs.Progress): its size is the bytes of all input files, its progress
// the bytes of the inputs done plus how far each open one got, and it says
// how many inputs are done. Directories and streams add no bytes; they
// count when done.
type Set struct {
	W     io.Writer
	Delay time.Duration

	mu       sync.Mutex
	bar      *Bar
	size     int64
	finished int64 // bytes of the inputs done
	open     map[*format.Progress]struct{}
	done, n  int
}

// Begin sizes the bar from the files' sizes and starts it.
func (s *Set) Begin(paths []string) {
	var size int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			size += st.Size()
		}
	}
	label := fmt.Sprintf("tally: reading %d inputs", len(paths))
	if len(paths) == 1 {
		label = "tally: reading " + filepath.Base(paths[0])
	}
	s.mu.Lock()
	s.size, s.n, s.open = size, len(paths), map[*format.Progress]struct{}{}
	s.bar = &Bar{W: s.W, Label: label, Size: size, Done: s.bytesDone, Suffix: s.suffix, Delay: s.Delay}
	s.mu.Unlock()
	s.bar.Start()
}

// Watch follows one input's read until the returned func is called.
func (s *Set) Watch(_ string, in *format.Input) func() {
	var p *format.Progress
	if in != nil && !in.IsStream() {
		p = format.TrackProgress(in)
		s.mu.Lock()
		s.open[p] = struct{}{}
		s.mu.Unlock()
	}
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if p != nil {
			delete(s.open, p)
			s.finished += in.Size
		}
		s.done++
	}
}

// End stops the bar and clears its line.
func (s *Set) End() { s.bar.Stop() }

func (s *Set) bytesDone() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.finished
	for p := range s.open {
		n += p.Done()
	}
	return min(n, s.size)
}

func (s *Set) suffix() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("; %d of %d inputs done", s.done, s.n)
}
