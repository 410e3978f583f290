package hugemem

import "testing"

type rec struct {
	a, b int64
	c    uint32
}

// Make gives n zeroed, writable records whatever n, and Advise is a hint
// that never fails, whatever the slice.
func TestMake(t *testing.T) {
	for _, n := range []int{0, 1, PageSize/20 - 1, PageSize / 20, 5*PageSize/20 + 7} {
		s := Make[rec](n)
		if len(s) != n {
			t.Fatalf("Make(%d): %d records, want %d", n, len(s), n)
		}
		for i := range s {
			if s[i] != (rec{}) {
				t.Fatalf("Make(%d): record %d = %+v, want zero", n, i, s[i])
			}
			s[i] = rec{a: int64(i)}
		}
		if n > 0 && s[n-1].a != int64(n-1) {
			t.Fatalf("Make(%d): the last record read back %+v, want a = %d", n, s[n-1], n-1)
		}
	}
	Advise([]byte(nil))
	Advise(make([]byte, 1)[:0])
	Advise(make([]struct{}, 5))
}
