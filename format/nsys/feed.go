package nsys

import (
	"github.com/tallyprof/tally/format/internal/sqlitein"
)

// feed runs a row source on its own goroutine and hands its rows over in
// batches: each table is scanned and sorted on one core while the merge
// runs on another.
type feed[T any] struct {
	ch   chan []T
	free chan []T
	done chan struct{}
	cur  []T
	i    int
	err  error // set before ch is closed
}

const feedBatch = 4096

func startFeed[T any](next func() (*T, error), cleanup func()) *feed[T] {
	f := &feed[T]{ch: make(chan []T, 2), free: make(chan []T, 3), done: make(chan struct{})}
	go func() {
		defer close(f.ch)
		defer cleanup()
		for {
			var b []T
			select {
			case b = <-f.free:
				b = b[:0]
			default:
				b = make([]T, 0, feedBatch)
			}
			for len(b) < feedBatch {
				x, err := next()
				if err != nil {
					f.err = err
					break
				}
				if x == nil {
					break
				}
				b = append(b, *x)
			}
			if len(b) > 0 {
				select {
				case f.ch <- b:
				case <-f.done:
					return
				}
			}
			if len(b) < feedBatch {
				return
			}
		}
	}()
	return f
}

// next returns the next row (valid until the following call), nil at the
// end.
func (f *feed[T]) next() (*T, error) {
	for f.i >= len(f.cur) {
		if f.cur != nil {
			select {
			case f.free <- f.cur:
			default:
			}
			f.cur = nil
		}
		b, ok := <-f.ch
		if !ok {
			return nil, f.err
		}
		f.cur, f.i = b, 0
	}
	f.i++
	return &f.cur[f.i-1], nil
}

// stop ends the goroutine and waits until it has closed its files.
func (f *feed[T]) stop() {
	close(f.done)
	for range f.ch {
	}
}

// perPid yields a table's rows process by process (pids in sort order),
// each process's rows sorted through a window: one scan per process.
func perPid[T any](r *reader, table string, cols []string, pids []pidKey, read func(*sqlitein.Scanner, *T), pidOf func(*T) pidKey, cmp func(a, b *T) int) (func() (*T, error), func()) {
	var s *sqlitein.Scanner
	var w *window[T]
	i := 0
	closeScan := func() {
		if s != nil {
			s.Close()
			s, w = nil, nil
		}
	}
	next := func() (*T, error) {
		for {
			if w == nil {
				if i == len(pids) {
					return nil, nil
				}
				var err error
				if s, err = r.db.Scan(table, cols, ints(len(cols))); err != nil {
					return nil, r.db.QueryError(table, err)
				}
				p, sc := pids[i], s
				i++
				w = newWindow(func(x *T) (bool, error) {
					for sc.Next() {
						read(sc, x)
						if pidOf(x) == p {
							return true, nil
						}
					}
					return false, sc.Err()
				}, cmp)
			}
			x, err := w.next()
			if err != nil {
				return nil, r.db.QueryError(table, err)
			}
			if x != nil {
				return x, nil
			}
			closeScan()
		}
	}
	return next, closeScan
}

// actFeed merges the device tables' feeds into activityQuery's order.
type actFeed struct {
	feeds []*feed[arow]
	heads []*arow
	begun bool
}

func (r *reader) startDirect(p *plan) (*actFeed, *feed[rrow]) {
	m := &actFeed{}
	for i, sp := range p.act {
		cat := sp.cat
		next, cleanup := perPid(r, sp.table, sp.cols, p.actPids[i],
			func(s *sqlitein.Scanner, a *arow) { readArow(s, cat, a) }, (*arow).pid, cmpArow)
		m.feeds = append(m.feeds, startFeed(next, cleanup))
	}
	var rt *feed[rrow]
	if p.rt {
		next, cleanup := perPid(r, runtimeTable, runtimeCols, p.rtPids, readRrow, (*rrow).pid, cmpRrow)
		rt = startFeed(next, cleanup)
	}
	return m, rt
}

func (m *actFeed) next(a *activity) (bool, error) {
	if !m.begun {
		m.begun = true
		m.heads = make([]*arow, len(m.feeds))
		for i, f := range m.feeds {
			var err error
			if m.heads[i], err = f.next(); err != nil {
				return false, err
			}
		}
	}
	best := -1
	for i, h := range m.heads {
		if h != nil && (best < 0 || cmpArow(h, m.heads[best]) < 0) {
			best = i
		}
	}
	if best < 0 {
		return false, nil
	}
	m.heads[best].activity(a)
	var err error
	m.heads[best], err = m.feeds[best].next()
	return true, err
}

func (m *actFeed) stop() {
	for _, f := range m.feeds {
		f.stop()
	}
}
