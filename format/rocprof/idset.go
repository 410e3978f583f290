package rocprof

import "sort"

// idSet remembers which dispatch ids were seen, as sorted runs of
// consecutive ids: rocprofv3 numbers dispatches 1, 2, 3, … per process, so
// a whole capture is a handful of runs and memory stays O(gaps between
// ids), not O(dispatches).
type idSet struct {
	runs []idRun // sorted, disjoint, not adjacent
}

type idRun struct{ lo, hi uint64 } // inclusive

// add inserts id and reports whether it was already present.
func (s *idSet) add(id uint64) (dup bool) {
	n := len(s.runs)
	if n == 0 {
		s.runs = append(s.runs, idRun{id, id})
		return false
	}
	if last := &s.runs[n-1]; id > last.hi {
		if id == last.hi+1 {
			last.hi = id
		} else {
			s.runs = append(s.runs, idRun{id, id})
		}
		return false
	}
	// Out of order: find the first run ending at or after id.
	i := sort.Search(n, func(i int) bool { return s.runs[i].hi >= id })
	if i < n && s.runs[i].lo <= id {
		return true
	}
	// Extend a neighbour or insert a new run.
	joinPrev := i > 0 && s.runs[i-1].hi+1 == id
	joinNext := i < n && s.runs[i].lo == id+1
	switch {
	case joinPrev && joinNext:
		s.runs[i-1].hi = s.runs[i].hi
		s.runs = append(s.runs[:i], s.runs[i+1:]...)
	case joinPrev:
		s.runs[i-1].hi = id
	case joinNext:
		s.runs[i].lo = id
	default:
		s.runs = append(s.runs, idRun{})
		copy(s.runs[i+1:], s.runs[i:])
		s.runs[i] = idRun{id, id}
	}
	return false
}
