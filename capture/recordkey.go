package capture

import "sort"

// RecordKey is the identity of the input record a dispatch came from, in
// formats whose records carry one: IREE event ids, rocprof dispatch ids,
// nsys correlation ids. Scope separates id spaces (a session, a process,
// a device); Set is false when the format has no identity. Each format's
// page in docs/formats says which identity it uses, or that it has none.
type RecordKey struct {
	Scope, ID uint64
	Set       bool
}

// KeyOf returns the record key (scope, id).
func KeyOf(scope, id uint64) RecordKey { return RecordKey{Scope: scope, ID: id, Set: true} }

// maxKeyRanges bounds the memory of the duplicate check: the ids seen are
// kept as disjoint ranges, one or a few per scope when ids are dense (as
// event and correlation ids are), up to this many in all — 16 bytes each,
// 64 MiB at most. Past it the check stops and says so.
const maxKeyRanges = 4 << 20

// keySets holds the ids seen per scope as sorted, disjoint, merged ranges.
type keySets struct {
	scopes    map[uint64]*keyRanges
	ranges    int
	unchecked int64 // dispatches not checked once the bound was hit
}

type keyRanges struct{ lo, hi []uint64 }

// add records k and reports whether it was new.
func (s *keySets) add(k RecordKey) bool {
	if s.ranges >= maxKeyRanges {
		s.unchecked++
		return true
	}
	if s.scopes == nil {
		s.scopes = map[uint64]*keyRanges{}
	}
	r := s.scopes[k.Scope]
	if r == nil {
		r = &keyRanges{}
		s.scopes[k.Scope] = r
	}
	id := k.ID
	n := len(r.lo)
	// Fast path: ids mostly come in increasing order.
	if n > 0 && id > r.hi[n-1] {
		if id == r.hi[n-1]+1 {
			r.hi[n-1] = id
		} else {
			r.lo, r.hi = append(r.lo, id), append(r.hi, id)
			s.ranges++
		}
		return true
	}
	// i is the first range whose hi ≥ id.
	i := sort.Search(n, func(j int) bool { return r.hi[j] >= id })
	if i < n && r.lo[i] <= id {
		return false
	}
	joinPrev := i > 0 && r.hi[i-1]+1 == id
	joinNext := i < n && id+1 == r.lo[i]
	switch {
	case joinPrev && joinNext:
		r.hi[i-1] = r.hi[i]
		r.lo = append(r.lo[:i], r.lo[i+1:]...)
		r.hi = append(r.hi[:i], r.hi[i+1:]...)
		s.ranges--
	case joinPrev:
		r.hi[i-1] = id
	case joinNext:
		r.lo[i] = id
	default:
		r.lo = append(r.lo, 0)
		r.hi = append(r.hi, 0)
		copy(r.lo[i+1:], r.lo[i:])
		copy(r.hi[i+1:], r.hi[i:])
		r.lo[i], r.hi[i] = id, id
		s.ranges++
	}
	return true
}
