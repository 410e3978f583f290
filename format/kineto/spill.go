package kineto

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/spillfile"
)

// spillBudget is what one read may write to its spill files in all, the
// dispatch log's and the tally log's together (format.Options.SpillLimit;
// 0: no limit).
type spillBudget struct{ limit, used int64 }

// take accounts for n more bytes written to file, or refuses them.
func (b *spillBudget) take(n int64, file string) error {
	if b == nil || b.limit <= 0 {
		return nil
	}
	if b.used+n > b.limit {
		return &format.SpillLimitError{Limit: b.limit, File: file}
	}
	b.used += n
	return nil
}

// spillFile is where a log (the dispatch log, the tally log) puts the
// fixed-size records it cannot hold: an unlinked temporary file, made at
// the first spill, written through a buffer, read back from its start
// once, and removed on close. One type, so the two logs' files say the
// same things when they fail.
type spillFile struct {
	tmpDir string       // where it is made ("" = os.TempDir)
	budget *spillBudget // shared by every spill file of the read
	f      *os.File
	w      *bufio.Writer
}

// open makes the file if it is not made yet; false when it cannot be (the
// log then keeps its records in memory, and says so).
func (s *spillFile) open() bool {
	if s.f == nil {
		f, err := spillfile.Create(s.tmpDir, "tally-kineto-*.spill")
		if err != nil {
			return false
		}
		s.f, s.w = f, bufio.NewWriterSize(f, spillBuf)
	}
	return true
}

// take reserves n bytes of the budget before they are written.
func (s *spillFile) take(n int64) error { return s.budget.take(n, s.f.Name()) }

// write appends one record.
func (s *spillFile) write(rec []byte) error {
	if _, err := s.w.Write(rec); err != nil {
		return s.writeErr(err)
	}
	return nil
}

// rewind flushes what was written and returns a reader from the first
// record.
func (s *spillFile) rewind() (*bufio.Reader, error) {
	if err := s.w.Flush(); err != nil {
		return nil, s.writeErr(err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, s.readErr(err)
	}
	return bufio.NewReaderSize(s.f, spillBuf), nil
}

// read reads the next record from br (rewind's reader) into rec.
func (s *spillFile) read(br *bufio.Reader, rec []byte) error {
	if _, err := io.ReadFull(br, rec); err != nil {
		return s.readErr(err)
	}
	return nil
}

// writeErr and readErr are the file's two messages: which file failed
// and, for a write (mostly a full disk), what to do.
func (s *spillFile) writeErr(err error) error {
	return fmt.Errorf("writing the temporary spill file %s: %w (set TMPDIR to a disk with free space)", s.f.Name(), err)
}

func (s *spillFile) readErr(err error) error {
	return fmt.Errorf("rereading the temporary spill file %s: %w", s.f.Name(), err)
}

// remove closes and removes the file, if it was made.
func (s *spillFile) remove() {
	if s.f != nil {
		name := s.f.Name()
		s.f.Close()
		os.Remove(name) // already gone where unlinking open files works
		s.f = nil
	}
}
