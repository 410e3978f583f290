package hrxserial

// detailCache keeps what a scan worker parsed of details or lines, by
// their text: a program runs the same commands again and again, so most
// are looked up, not parsed. A run also writes them in the same order each time, so each
// entry remembers the entry looked up after it, and a lookup first
// compares the text with the one that followed the previous lookup: one
// comparison instead of hashing the text (the map is the fallback). At
// most maxDetails entries are kept; then it starts over.
type detailCache struct {
	index map[string]int32
	ents  []cached
	prev  int32 // the entry of the latest lookup or put, -1 for none
}

type cached struct {
	key  string
	d    detail
	ok   bool  // the detail parsed
	next int32 // the entry looked up after this one last time, -1 for none
	// A line's (scanner.otherLine): contEvent, or 0 when it is not applied
	// from what was parsed, and then its event, phase, and the lengths of
	// its phase name and detail (both end the line).
	form            cont
	ev              event
	ph              phase
	nameLen, detLen int32
}

const maxDetails = 4096

func newDetailCache() detailCache {
	return detailCache{index: map[string]int32{}, prev: -1}
}

func (c *detailCache) len() int { return len(c.ents) }

// get returns the entry for det, nil when there is none.
func (c *detailCache) get(det []byte) *cached {
	if c.prev >= 0 {
		if n := c.ents[c.prev].next; n >= 0 && c.ents[n].key == string(det) {
			c.prev = n
			return &c.ents[n]
		}
	}
	i, ok := c.index[string(det)]
	if !ok {
		return nil
	}
	c.follow(i)
	return &c.ents[i]
}

// put adds an entry for det (after a get that found none) and returns
// it, for the caller to fill.
func (c *detailCache) put(det []byte) *cached {
	if len(c.ents) >= maxDetails {
		clear(c.index)
		clear(c.ents) // drop the keys
		c.ents, c.prev = c.ents[:0], -1
	}
	i := int32(len(c.ents))
	c.ents = append(c.ents, cached{key: string(det), next: -1})
	c.index[c.ents[i].key] = i
	c.follow(i)
	return &c.ents[i]
}

// follow records that entry i was looked up after the previous one.
func (c *detailCache) follow(i int32) {
	if c.prev >= 0 {
		c.ents[c.prev].next = i
	}
	c.prev = i
}
