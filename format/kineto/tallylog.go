package kineto

import (
	"bufio"
	"encoding/binary"
)

// tallyLog keeps args.tally of each logged device event of a file tally
// exported, in the dispatch log's order (one record per drec, added when
// the drec is), so the read-back replays both side by side. Like the
// dispatch log it holds a bounded number of records in memory and spills
// the rest to an unlinked temporary file: memory stays flat on any trace.
type tallyLog struct {
	mem     []tallyRec
	limit   int
	file    spillFile // beside the dispatch log's, in its budget
	spilled int64
	scratch [tallyRecSize]byte
}

// tallyRec is one event's args.tally; kernel -1 when the event has none
// that could be read.
type tallyRec struct {
	kernel, run, index, ordinal, link int64
}

const tallyRecSize = 5 * 8

// newTallyLog holds up to limit records in memory (the dispatch log's
// limit: tests shrink both to exercise the spill) and spills beside the
// dispatch log d, in its budget.
func newTallyLog(limit int, d *spillFile) *tallyLog {
	return &tallyLog{limit: max(limit, 2), file: spillFile{tmpDir: d.tmpDir, budget: d.budget}}
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
	if !l.file.open() {
		l.limit *= 2
		return nil
	}
	if err := l.file.take(int64(len(l.mem)) * tallyRecSize); err != nil {
		return err
	}
	for _, r := range l.mem {
		for i, v := range [5]int64{r.kernel, r.run, r.index, r.ordinal, r.link} {
			binary.LittleEndian.PutUint64(l.scratch[8*i:], uint64(v))
		}
		if err := l.file.write(l.scratch[:]); err != nil {
			return err
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
	if l.file.f != nil {
		if br, err = l.file.rewind(); err != nil {
			return nil, err
		}
	}
	var k int64
	i := 0
	return func() (tallyRec, bool, error) {
		if k < l.spilled {
			k++
			if err := l.file.read(br, l.scratch[:]); err != nil {
				return tallyRec{}, false, err
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

func (l *tallyLog) close() { l.file.remove() }
