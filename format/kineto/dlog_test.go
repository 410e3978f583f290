package kineto

import (
	"testing"

	"github.com/tallyprof/tally/internal/testfile"
)

// The log hands out sequence numbers in order, keeps the newest records
// in memory within its limit (at), spills the oldest in order (onSpill
// sees each once), and replays all of them in order.
func TestDlogChunks(t *testing.T) {
	for _, limit := range []int{2, 3, 7, 64, 1000, 20000} {
		l := newDlog(limit, t.TempDir())
		var spilled []uint64
		l.onSpill = func(r *drec) { spilled = append(spilled, r.corr) }
		const n = 50000
		for i := int64(0); i < n; i++ {
			seq, err := l.add(drec{corr: uint64(i), ts: i})
			if err != nil {
				t.Fatal(err)
			}
			if seq != i {
				t.Fatalf("limit %d: record %d: got seq %d, want %d", limit, i, seq, i)
			}
			held := int(l.added - l.base)
			if held > limit || held < 1 {
				t.Fatalf("limit %d: got %d records in memory after %d added, want 1 to %d", limit, held, i+1, limit)
			}
			if r := l.at(i); r == nil || r.ts != i {
				t.Fatalf("limit %d: at(%d) = %v right after adding it, want the record with ts %d", limit, i, r, i)
			}
			if l.base > 0 && l.at(l.base-1) != nil {
				t.Fatalf("limit %d: got at(%d) answering for a spilled record, want nil", limit, l.base-1)
			}
		}
		if l.spilled != l.base || int64(len(spilled)) != l.spilled || l.spilled == 0 {
			t.Fatalf("limit %d: spilled %d, base %d, onSpill saw %d; want equal and above 0", limit, l.spilled, l.base, len(spilled))
		}
		for i, c := range spilled {
			if c != uint64(i) {
				t.Fatalf("limit %d: spilled record %d is %d, want them in order", limit, i, c)
			}
		}
		var next uint64
		err := l.replay(func(r *drec) {
			if r.corr != next || r.ts != int64(next) {
				t.Fatalf("limit %d: replay gave %d (ts %d), want %d", limit, r.corr, r.ts, next)
			}
			next++
		})
		if err != nil || next != n {
			t.Fatalf("limit %d: got %d records replayed, error %v; want %d, none", limit, next, err, n)
		}
		l.close()
	}
}

// A record stays where it is while it is in memory: the linker completes
// waiting records through the pointer at returns.
func TestDlogRecordsStay(t *testing.T) {
	l := newDlog(1000, t.TempDir())
	defer l.close()
	first, _ := l.add(drec{corr: 1})
	p := l.at(first)
	for i := 0; i < 600; i++ {
		l.add(drec{corr: 2})
	}
	if q := l.at(first); q != p {
		t.Fatalf("record %d: got %p, want %p (not moved while in memory)", first, q, p)
	}
}

// Adding records allocates a bounded amount, whatever their number: chunks
// leave memory by the spill and take the next records (no slice growth, no
// copy of what stays).
func TestDlogFlat(t *testing.T) {
	alloc := func(n int) uint64 {
		l := newDlog(defaultLogBytes/drecSize, t.TempDir())
		defer l.close()
		return testfile.Allocated(func() {
			for i := 0; i < n; i++ {
				if _, err := l.add(drec{corr: uint64(i)}); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	small, large := alloc(200_000), alloc(1_000_000)
	if large > small+small/4 {
		t.Fatalf("the log allocated %d bytes for 200,000 records and %d for 1,000,000: want about the same", small, large)
	}
	if budget := uint64(defaultLogBytes) * 3 / 2; small > budget {
		t.Fatalf("the log allocated %d bytes for 200,000 records, want at most %d (its 8 MiB budget, the spill buffer)", small, budget)
	}
}

// BenchmarkDlogAdd: the cost of one record in the log, spill included.
//
//	go test -run '^$' -bench DlogAdd -benchmem ./format/kineto/
func BenchmarkDlogAdd(b *testing.B) {
	l := newDlog(defaultLogBytes/drecSize, b.TempDir())
	defer l.close()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := l.add(drec{corr: uint64(i)}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
