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

// has reports whether id is in the set.
func (s *idSet) has(id uint64) bool {
	i := sort.Search(len(s.runs), func(i int) bool { return s.runs[i].hi >= id })
	return i < len(s.runs) && s.runs[i].lo <= id
}

// missing counts the ids of s that are not in other, and those of them
// inside [lo, hi], walking both run lists once.
func (s *idSet) missing(other *idSet, lo, hi uint64) (n, inside uint64) {
	j := 0
	for _, r := range s.runs {
		at := r.lo
		for at <= r.hi {
			for j < len(other.runs) && other.runs[j].hi < at {
				j++
			}
			end := r.hi // the stretch [at, end] not covered by other
			if j < len(other.runs) && other.runs[j].lo <= at {
				if other.runs[j].hi >= r.hi {
					break
				}
				at = other.runs[j].hi + 1
				continue
			}
			if j < len(other.runs) && other.runs[j].lo <= r.hi {
				end = other.runs[j].lo - 1
			}
			n += end - at + 1
			if a, b := max(at, lo), min(end, hi); a <= b {
				inside += b - a + 1
			}
			if end == r.hi {
				break
			}
			at = end + 1
		}
	}
	return n, inside
}
