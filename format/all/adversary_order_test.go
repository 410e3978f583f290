package all

import (
	"slices"
	"testing"
)

// Repeat any record, swap any two neighbours: every reader's promise base
// written through its fixture's records arm with record i written twice
// (each i in turn), or records i and i+1 swapped. A repeat is the format's
// repeat gap or changes nothing; a swap changes nothing, or the read says
// what it could not pair. Never a complete read with other tables.

// recordsOf is the count of fx's records, found by writing them all.
func recordsOf(t *testing.T, fx promiseFixture) int {
	t.Helper()
	if fx.records == nil {
		t.Fatal("got no records arm, want one: add promiseFixture.records (promise_test.go)")
	}
	n := -1
	fx.records(t, t.TempDir(), func(k int) []int { n = k; return identity(k) })
	return n
}

func identity(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// advOrderRead reads fx's records as pick orders them; "" when the read
// keeps what check asks, else what is wrong.
func advOrderRead(t *testing.T, fx promiseFixture, reader string, pick func(int) []int) advRead {
	t.Helper()
	r := advReadPath(fx.records(t, t.TempDir(), pick), fx.opts)
	if r.err != nil {
		t.Fatalf("read: got error %v, want none", r.err)
	}
	if r.c.Source.Format != reader {
		t.Fatalf("detected as %s, want %s", r.c.Source.Format, reader)
	}
	return r
}

func TestAdversaryRepeatEach(t *testing.T) {
	eachFixture(t, func(t *testing.T, reader string, fx promiseFixture) {
		t.Parallel()
		if fx.repeated == nil {
			t.Skipf("no record identity: %s", fx.noIdentity)
		}
		_, base := advBase(t, reader, fx)
		n := recordsOf(t, fx)
		for i := range n {
			r := advOrderRead(t, fx, reader, func(n int) []int {
				return slices.Insert(identity(n), i, i)
			})
			same := tablesSig(r.tb) == tablesSig(base.tb)
			switch {
			case !same && r.c.Accounting.CountOf(fx.repeatKind) == 0:
				t.Errorf("record %d of %d written twice: gaps %s, tables\n%s\nwant %s, or base's tables\n%s", i, n, gapKinds(r.c), tablesSig(r.tb), fx.repeatKind, tablesSig(base.tb))
			case !same && complete(r.c, fx.inherent):
				t.Errorf("record %d of %d written twice: got complete with other tables than base's, want a %s gap or base's tables", i, n, fx.repeatKind)
			}
		}
	})
}

func TestAdversarySwapNeighbours(t *testing.T) {
	eachFixture(t, func(t *testing.T, reader string, fx promiseFixture) {
		t.Parallel()
		_, base := advBase(t, reader, fx)
		n := recordsOf(t, fx)
		for i := 0; i+1 < n; i++ {
			r := advOrderRead(t, fx, reader, func(n int) []int {
				idx := identity(n)
				idx[i], idx[i+1] = idx[i+1], idx[i]
				return idx
			})
			if fx.ordered != "" {
				// Read without error and checked (advOrderRead); what it
				// holds is another input's.
				t.Logf("records %d and %d swapped: %s", i, i+1, fx.ordered)
				continue
			}
			if tablesSig(r.tb) != tablesSig(base.tb) && complete(r.c, fx.inherent) {
				t.Errorf("records %d and %d of %d swapped: complete (gaps %s) with tables\n%s\nwant base's\n%s, or a gap", i, i+1, n, gapKinds(r.c), tablesSig(r.tb), tablesSig(base.tb))
			}
			if d, ok := subset(r.seen, base.seen); !ok {
				t.Errorf("records %d and %d of %d swapped: got dispatch %s, none of base's; want only base's dispatches", i, i+1, n, d)
			}
		}
	})
}
