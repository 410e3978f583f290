package kineto

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/tallyprof/tally/internal/spillfile"
)

// tallyLog keeps args.tally of each logged device event of a file tally
// exported, in the dispatch log's order (one record per drec, added when
// the drec is), so the read-back replays both side by side. Like the
// dispatch log it holds a bounded number of records in memory and spills
// the rest to an unlinked temporary file: memory stays flat on any trace.
type tallyLog struct {
	mem     []tallyRec
	limit   int
	tmpDir  string
	f       *os.File
	w       *bufio.Writer
	spilled int64
	budget  *spillBudget // shared with the dispatch log
	scratch [tallyRecSize]byte
}

// tallyRec is one event's args.tally; kernel -1 when the event has none
// that could be read.
type tallyRec struct {
	kernel, run, index, ordinal, link int64
}

const tallyRecSize = 5 * 8

// newTallyLog holds up to limit records in memory (the dispatch log's
// limit: tests shrink both to exercise the spill).
func newTallyLog(limit int, tmpDir string) *tallyLog {
	return &tallyLog{limit: max(limit, 2), tmpDir: tmpDir}
}

func (l *tallyLog) add(r tallyRec) error {
	if len(l.mem) >= l.limit {
		if err := l.spill(); err != nil {
			return err
		}
	}
	l.mem = append(l.mem, r)
	return nil
}

// spill writes every record in memory to the temporary file; memory is
// kept when no file can be made (the dispatch log states that case).
func (l *tallyLog) spill() error {
	if l.f == nil {
		f, err := spillfile.Create(l.tmpDir, "tally-kineto-*.spill")
		if err != nil {
			l.limit *= 2
			return nil
		}
		l.f = f
		l.w = bufio.NewWriterSize(f, spillBuf)
	}
	if err := l.budget.take(int64(len(l.mem))*tallyRecSize, l.f.Name()); err != nil {
		return err
	}
	for _, r := range l.mem {
		for i, v := range [5]int64{r.kernel, r.run, r.index, r.ordinal, r.link} {
			binary.LittleEndian.PutUint64(l.scratch[8*i:], uint64(v))
		}
		if _, err := l.w.Write(l.scratch[:]); err != nil {
			return fmt.Errorf("writing the temporary spill file %s: %w (set TMPDIR to a disk with free space)", l.f.Name(), err)
		}
	}
	l.spilled += int64(len(l.mem))
	l.mem = l.mem[:0]
	return nil
}

// reader returns a function that yields the records in order (ok false
// after the last).
func (l *tallyLog) reader() (next func() (tallyRec, bool, error), err error) {
	var br *bufio.Reader
	if l.f != nil {
		if err := l.w.Flush(); err != nil {
			return nil, fmt.Errorf("writing the temporary spill file %s: %w (set TMPDIR to a disk with free space)", l.f.Name(), err)
		}
		if _, err := l.f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("rereading the temporary spill file %s: %w", l.f.Name(), err)
		}
		br = bufio.NewReaderSize(l.f, spillBuf)
	}
	var k int64
	i := 0
	return func() (tallyRec, bool, error) {
		if k < l.spilled {
			k++
			if _, err := io.ReadFull(br, l.scratch[:]); err != nil {
				return tallyRec{}, false, fmt.Errorf("rereading the temporary spill file %s: %w", l.f.Name(), err)
			}
			var v [5]int64
			for j := range v {
				v[j] = int64(binary.LittleEndian.Uint64(l.scratch[8*j:]))
			}
			return tallyRec{kernel: v[0], run: v[1], index: v[2], ordinal: v[3], link: v[4]}, true, nil
		}
		if i < len(l.mem) {
			i++
			return l.mem[i-1], true, nil
		}
		return tallyRec{}, false, nil
	}, nil
}

func (l *tallyLog) close() {
	if l.f != nil {
		name := l.f.Name()
		l.f.Close()
		os.Remove(name)
		l.f = nil
	}
}
