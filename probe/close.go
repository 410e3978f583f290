package probe

import (
	"errors"
	"fmt"
	"os"

	"github.com/tallyprof/tally/internal/probefile"
)

// Close drains every ring, writes the final checkpoint (with what is still
// in flight) and the end record, and closes the file. The error joins
// everything the session failed to record: no dispatch events although
// they were asked for (ErrNoDispatches), drops (ErrDropped), no summary
// (ErrNotSummaried), write failures (ErrWrite), layer dumps not written
// (ErrLayers), misused handles (ErrMisuse). Unless Options.Quiet, each is
// also printed to Options.Log. Close may be called more than once.
func (s *Session) Close() (Result, error) {
	s.closeOnce.Do(func() { s.result, s.err = s.close() })
	return s.result, s.err
}

func (s *Session) close() (Result, error) {
	close(s.stop)
	<-s.stopped
	s.drainMu.Lock()
	defer s.drainMu.Unlock()
	s.drain(false) // a last due summary, then the final state
	s.closed.Store(true)
	s.drain(true)
	w := &s.w
	var r Result
	r.Signal = s.signal
	s.mu.Lock()
	queues := s.queues
	s.mu.Unlock()
	for _, q := range queues {
		q.mu.Lock()
		r.Dispatches += int64(q.recorded)
		r.Dropped += int64(q.dropped)
		r.InFlight += int64(q.inFlight)
		r.Misused += int64(q.misused)
		r.Launches += int64(q.begun)
		q.mu.Unlock()
	}
	var errs []error
	if s.summ {
		var err error
		r.Unsummarised, err = s.finalSummaryLine()
		errs = append(errs, err)
	}
	r.Summaries = w.summaries
	if s.events {
		r.Dispatches -= w.unwritten
		r.Unwritten = w.unwritten
	}
	r.LayersNotWritten = s.layers.failures()
	if s.bw != nil {
		s.writeEnd(&r)
		s.flush()
		if err := s.f.Sync(); err != nil && w.err == nil && !isUnsyncable(s.f) {
			s.fail(err)
		}
		if err := s.f.Close(); err != nil {
			s.fail(err)
		}
	}
	if s.events && r.Dispatches+r.Unwritten == 0 {
		errs = append(errs, fmt.Errorf("%w: %d launches, %d dropped, %d still in flight; check that every Begin has its End on a queue of this session", ErrNoDispatches, r.Launches, r.Dropped, r.InFlight))
	}
	if r.Dropped > 0 {
		errs = append(errs, fmt.Errorf("%w: %d (rings full: raise RingSize or lower Threshold; or more than MaxInFlight in flight)", ErrDropped, r.Dropped))
	}
	if w.err != nil {
		errs = append(errs, fmt.Errorf("%w (%d dispatches not written)", w.err, r.Unwritten))
	}
	if n := len(r.LayersNotWritten); n > 0 {
		errs = append(errs, fmt.Errorf("%w: %d (first: layer %d: %v)", ErrLayers, n, r.LayersNotWritten[0].Layer, r.LayersNotWritten[0].Err))
	}
	if r.Misused > 0 {
		errs = append(errs, fmt.Errorf("%w: %d times", ErrMisuse, r.Misused))
	}
	err := errors.Join(errs...)
	if err != nil && !s.opts.Quiet {
		for _, e := range errs {
			if e != nil && !errors.Is(e, ErrNotSummaried) { // already printed as the final line
				s.logLine("probe: " + e.Error())
			}
		}
	}
	s.logMu.Lock()
	err = errors.Join(err, s.logErr)
	s.logMu.Unlock()
	return r, err
}

func (s *Session) writeEnd(r *Result) {
	b := s.w.buf[:0]
	if r.Signal != nil {
		note := "closed on signal " + r.Signal.String()
		b = probefile.AppendRecord(b, probefile.TypeNote, 4+len(note))
		b = probefile.AppendString(b, note)
	}
	flags := uint32(0)
	if r.Signal != nil {
		flags |= probefile.EndClosedBySignal
	}
	b = probefile.AppendRecord(b, probefile.TypeEnd, probefile.EndLen)
	b = appendU64(b, uint64(s.now()))
	b = appendU64(b, uint64(r.Launches))
	b = appendU64(b, uint64(r.Dispatches))
	b = appendU64(b, uint64(r.Dropped))
	b = appendU32(b, uint32(r.InFlight))
	b = appendU32(b, uint32(r.Summaries))
	b = appendU32(b, uint32(len(r.LayersNotWritten)))
	b = appendU32(b, flags)
	s.w.buf = b
	s.write(b)
}

// isUnsyncable is true for files fsync cannot apply to (character devices
// such as /dev/null), which are not a failed write.
func isUnsyncable(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && !st.Mode().IsRegular()
}
