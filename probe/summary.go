package probe

import (
	"fmt"

	"github.com/tallyprof/tally/internal/probefile"
	"github.com/tallyprof/tally/internal/units"
)

// windowCounts is one kernel's counts in the current summary window, on
// one queue (under its lock) or summed.
type windowCounts struct {
	launches, completed uint64
	total               int64 // ns of the completed ones
}

// familyLine sums one program's kernels for a summary line.
type familyLine struct {
	p                   *Program
	launches, completed uint64
	total               int64
}

// maybeSummarise writes a summary when the launch count has reached the
// next window boundary. Launches are counted at Begin, so a summary is
// never due at zero launches, and one program alone reaches it as well as
// any mix. A summary covers every launch since the previous one: Window,
// or more when launches outran the writer.
func (s *Session) maybeSummarise() {
	if !s.summ {
		return
	}
	n := s.launches.Load()
	if n < s.w.nextBoundary {
		return
	}
	s.w.nextBoundary = (n/s.window + 1) * s.window
	s.summarise()
}

func (s *Session) summarise() {
	w := &s.w
	w.summaries++
	window := w.summaries
	t := s.now()
	// Definitions are taken with the kernel list: a summary never names a
	// kernel whose definition is not before it in the file.
	s.mu.Lock()
	kernels, queues := s.kernels, s.queues
	defs := s.defs
	s.defs = nil
	s.mu.Unlock()
	if s.bw != nil {
		s.write(defs)
	}
	// Counts of kernels defined after this snapshot stay on their queues
	// for the next summary.
	sums := make([]windowCounts, len(kernels))
	for _, q := range queues {
		q.mu.Lock()
		for i := range q.win {
			if i < len(sums) {
				sums[i].launches += q.win[i].launches
				sums[i].completed += q.win[i].completed
				sums[i].total += q.win[i].total
				q.win[i] = windowCounts{}
			}
		}
		q.mu.Unlock()
	}
	var fams []familyLine
	idx := map[*Program]int{}
	var covered uint64
	for i, k := range kernels {
		l, c, tot := sums[i].launches, sums[i].completed, sums[i].total
		if l == 0 && c == 0 {
			continue
		}
		covered += l
		i, ok := idx[k.program]
		if !ok {
			i = len(fams)
			idx[k.program] = i
			fams = append(fams, familyLine{p: k.program})
		}
		fams[i].launches += l
		fams[i].completed += c
		fams[i].total += tot
		if s.bw != nil {
			b := w.buf[:0]
			b = probefile.AppendRecord(b, probefile.TypeSummary, probefile.SummaryLen)
			b = appendU32(b, uint32(window))
			b = appendU64(b, uint64(t))
			b = appendU32(b, k.id)
			b = appendU64(b, l)
			b = appendU64(b, c)
			b = appendU64(b, uint64(tot))
			w.buf = b
			s.write(b)
		}
	}
	w.summarised += covered
	for _, f := range fams {
		line := fmt.Sprintf("[probe] window %d %s: %d launches, %d completed", window, f.p.name, f.launches, f.completed)
		if f.completed > 0 {
			line += fmt.Sprintf(", total %s, mean %s", units.NS(float64(f.total)), units.NS(float64(f.total)/float64(f.completed)))
		}
		s.logLine(line)
	}
	if s.bw != nil {
		s.flush()
	}
}

// finalSummaryLine says, at Close, what no summary covered: the line a
// stalled or short run would otherwise never print.
func (s *Session) finalSummaryLine() (unsummarised int64, err error) {
	w := &s.w
	n := s.launches.Load()
	rest := int64(n - w.summarised)
	if w.summaries == 0 {
		s.logLine(fmt.Sprintf("[probe] %d launches, no summary written (window %d)", n, s.window))
		return rest, fmt.Errorf("%w: %d launches, below the window of %d", ErrNotSummaried, n, s.window)
	}
	if rest > 0 {
		s.logLine(fmt.Sprintf("[probe] %d launches after the last summary, not summarised (window %d)", rest, s.window))
	}
	return rest, nil
}

// logLine writes one line to Log; the first failure is returned by Close.
func (s *Session) logLine(line string) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	if _, err := fmt.Fprintln(s.opts.Log, line); err != nil && s.logErr == nil {
		s.logErr = fmt.Errorf("probe: writing to the log: %w", err)
	}
}
