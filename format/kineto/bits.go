package kineto

// sparseBits is a set of correlation ids. CUPTI, roctracer and MTIA number
// their calls from a counter, so ids are dense: a page of 4096 bits per
// populated range costs 1/8 byte per id. Arbitrary 64-bit ids would cost a
// page each (the documented worst case).
type sparseBits struct {
	pages   map[uint64]*[64]uint64
	lastKey uint64
	last    *[64]uint64
	n       int64
}

func (b *sparseBits) page(x uint64, create bool) *[64]uint64 {
	k := x >> 12
	if b.last != nil && b.lastKey == k {
		return b.last
	}
	p := b.pages[k]
	if p == nil {
		if !create {
			return nil
		}
		if b.pages == nil {
			b.pages = make(map[uint64]*[64]uint64)
		}
		p = new([64]uint64)
		b.pages[k] = p
	}
	b.lastKey, b.last = k, p
	return p
}

func (b *sparseBits) set(x uint64) {
	p := b.page(x, true)
	w, m := (x>>6)&63, uint64(1)<<(x&63)
	if p[w]&m == 0 {
		p[w] |= m
		b.n++
	}
}

func (b *sparseBits) has(x uint64) bool {
	p := b.page(x, false)
	return p != nil && p[(x>>6)&63]&(1<<(x&63)) != 0
}
