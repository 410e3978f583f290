package kineto

// Interning: every table of names, keys and signatures hands out ids in
// the order first seen (an id indexes its list), so tables stay
// O(distinct values) however many events name them.

// internString returns the id of the string b in (idx, list), adding it
// when new. The lookup converts b without allocating.
func internString(idx map[string]uint32, list *[]string, b []byte) uint32 {
	if id, ok := idx[string(b)]; ok {
		return id
	}
	id := uint32(len(*list))
	s := string(b)
	*list = append(*list, s)
	idx[s] = id
	return id
}

// intern returns the id of key k in (idx, list), adding v for it when new.
func intern[K comparable, V any](idx map[K]uint32, list *[]V, k K, v V) uint32 {
	if id, ok := idx[k]; ok {
		return id
	}
	id := uint32(len(*list))
	*list = append(*list, v)
	idx[k] = id
	return id
}
