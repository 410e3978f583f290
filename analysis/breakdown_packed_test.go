package analysis

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// Packed records come back exactly, in order, whatever their values:
// extreme times (the differences wrap), negative queues, flags past the
// header's, a launch or sync end without its flag.
func TestPackedRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	vals := []int64{0, 1, -1, 30, 1 << 40, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, math.MaxInt64 - 1}
	pick := func() int64 {
		switch rng.IntN(3) {
		case 0:
			return vals[rng.IntN(len(vals))]
		case 1: // every width's edges
			return (int64(1)<<rng.IntN(63) - 1 + rng.Int64N(3)) * (1 - 2*rng.Int64N(2))
		}
		return rng.Int64()
	}
	var want []bdRec
	for range 5000 {
		r := bdRec{start: pick(), end: pick(), queue: int32(rng.IntN(5)) - 1, kernel: int32(rng.IntN(4)), flags: uint8(rng.IntN(8))}
		if rng.IntN(2) == 0 {
			r.lBegin, r.lEnd = pick(), pick()
		}
		if rng.IntN(3) == 0 {
			r.syncEnd = pick()
		}
		switch rng.IntN(10) {
		case 0:
			r.flags = uint8(rng.IntN(256))
		case 1:
			r.queue, r.kernel = math.MinInt32, math.MaxInt32
		}
		want = append(want, r)
	}
	slices.SortFunc(want, func(a, b bdRec) int { return recCmp(&a, &b) })
	p := packed{budget: 1 << 30}
	for i := range want {
		if !p.add(&want[i], false) {
			t.Fatalf("record %d: got no room, want it packed", i)
		}
	}
	if p.n != int64(len(want)) || len(p.blocks) < 2 {
		t.Fatalf("got %d records in %d blocks, want %d in 2 or more", p.n, len(p.blocks), len(want))
	}
	u := p.reader()
	var got bdRec
	for i := range want {
		if !u.next(&got) || got != want[i] {
			t.Fatalf("record %d: got %+v, want %+v", i, got, want[i])
		}
	}
	if u.next(&got) {
		t.Fatalf("after the last record: got %+v, want the end", got)
	}
}

// Packing stays within its budget: a full budget refuses a record, a
// reset one takes it, and a budget smaller than one record holds one.
func TestPackedBudget(t *testing.T) {
	p := packed{budget: 200}
	r := bdRec{start: 1, end: 2, flags: fLaunch, lBegin: 0, lEnd: 1}
	n := 0
	for ; p.add(&r, false); n++ {
		r.start += 1000
		r.end = r.start + 500
	}
	if n == 0 || p.alloc > 200 {
		t.Fatalf("got %d records in %d bytes, want some within 200", n, p.alloc)
	}
	p.reset()
	if !p.add(&r, false) || p.n != 1 {
		t.Fatalf("after reset: got %d records, want 1", p.n)
	}
	tiny := packed{budget: 1}
	if !tiny.add(&r, false) || tiny.add(&r, false) {
		t.Fatalf("budget 1: got %d records, want exactly 1", tiny.n)
	}
	if !tiny.add(&r, true) || tiny.n != 2 {
		t.Fatalf("budget 1, growing: got %d records, want 2", tiny.n)
	}
}

// The first record out of order ends the packing: more packed records
// than the chunks hold become one sorted run, fewer go to the chunks.
func TestRecordsUnpack(t *testing.T) {
	for _, tc := range []struct {
		limit, runs, held int
	}{{10, 1, 1}, {200, 0, 101}} {
		rs := newRecords(BreakdownOptions{Records: tc.limit, TempDir: t.TempDir()}.withDefaults())
		for i := range 100 {
			rs.add(&bdRec{start: int64(10 * i), end: int64(10*i + 5)})
		}
		if !rs.ordered || rs.pk.n != 100 || len(rs.runs) != 0 {
			t.Fatalf("limit %d, in order: got ordered %v, %d packed, %d runs; want true, 100, 0", tc.limit, rs.ordered, rs.pk.n, len(rs.runs))
		}
		rs.add(&bdRec{start: 3})
		if rs.err != nil {
			t.Fatal(rs.err)
		}
		if rs.ordered || rs.pk.n != 0 || len(rs.runs) != tc.runs || rs.held != tc.held || tc.runs == 1 && rs.runs[0].n != 100 {
			t.Fatalf("limit %d, one out of order: got ordered %v, %d packed, runs %v, %d held; want false, 0, %d runs (of 100), %d held",
				tc.limit, rs.ordered, rs.pk.n, rs.runs, rs.held, tc.runs, tc.held)
		}
		rs.close()
	}
}

// multiBD adds a second device, a ticks program and shared graph launches
// to the capture of newBD.
type multiBD struct {
	*bdCapture
	g1   capture.QueueID
	tick capture.ProgramID
	tk   capture.KernelID
}

// randomOrdered makes n dispatches on two devices and two clocks, in
// recCmp order: coarse times (equal starts and ends), exact duplicates,
// graph replays sharing their launch, launches without a call, host syncs.
func (m *multiBD) randomOrdered(rng *rand.Rand, n int) []disp {
	kerns := []capture.KernelID{m.gemm, m.gemm2, m.nccl, m.htod, m.dtoh, m.memset, m.other, m.tk}
	queues := []capture.QueueID{m.s1, m.s2, m.g1}
	var ds []disp
	var graph disp
	for len(ds) < n {
		if len(ds) > 0 && rng.IntN(8) == 0 {
			ds = append(ds, ds[rng.IntN(len(ds))]) // a duplicate
			continue
		}
		s := 10 * rng.Int64N(int64(n)*8)
		d := disp{q: queues[rng.IntN(len(queues))], k: kerns[rng.IntN(len(kerns))], s: s, e: s + 10*rng.Int64N(30)}
		switch rng.IntN(5) {
		case 0:
		case 1:
			d.noCall = true
		case 2:
			if graph.le == 0 || rng.IntN(3) == 0 {
				graph.lb = max(0, s-rng.Int64N(300))
				graph.le = graph.lb + rng.Int64N(100) + 1
			}
			d.lb, d.le, d.graph = graph.lb, graph.le, true
		default:
			d.lb = max(0, s-10*rng.Int64N(30))
			d.le = d.lb + 10*rng.Int64N(10) + 1
			if rng.IntN(3) == 0 {
				d.sync = d.lb - 1
			}
		}
		ds = append(ds, d)
	}
	slices.SortFunc(ds, func(x, y disp) int {
		a, b := recOf(x), recOf(y)
		return recCmp(&a, &b)
	})
	return ds
}

// feedStored feeds ds to a sink that keeps every record in chunks (the
// record path, as for input out of order), not packed.
func (b *bdCapture) feedStored(opt BreakdownOptions, ds ...disp) *BreakdownSink {
	s := NewBreakdownSink(opt)
	s.recs.ordered = false
	return b.feedInto(s, ds...)
}

// The packed path (records in order, a sweep of the packed bytes; spilled
// when past the budget; ended by a record out of order, early or late)
// gives every figure the stored path gives, on two devices and two clocks
// with equal timestamps, duplicates, graph replays and host syncs.
func TestBreakdownPackedSameAsStored(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := range 30 {
		b := newBD()
		m := &multiBD{bdCapture: b, g1: b.c.AddQueue(capture.Queue{Name: "stream 7", Device: "GPU 1"})}
		m.tick = b.c.AddProgram(capture.Program{Name: "ticked", Clock: &capture.Clock{Domain: "device-ticks", Unit: "ticks", Timed: true}})
		m.tk = b.c.AddKernel(capture.Kernel{Program: m.tick, Name: "k"})
		ds := m.randomOrdered(rng, 50+rng.IntN(400))
		swap := func(i int) []disp {
			o := slices.Clone(ds)
			for j := i; j+1 < len(o); j++ {
				a, c := recOf(o[j]), recOf(o[j+1])
				if recCmp(&a, &c) != 0 {
					o[j], o[j+1] = o[j+1], o[j]
					return o
				}
			}
			return o
		}
		shuffled := slices.Clone(ds)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		reversed := slices.Clone(ds)
		slices.Reverse(reversed)
		orders := []struct {
			name    string
			ds      []disp
			ordered bool
		}{
			{"in order", ds, true},
			{"swapped first", swap(0), false},
			{"swapped in the middle", swap(len(ds) / 2), false},
			{"swapped last", swap(len(ds) - 3), false},
			{"shuffled", shuffled, false},
			{"reversed", reversed, false},
		}
		opts := []struct {
			name string
			opt  BreakdownOptions
		}{
			{"in memory", BreakdownOptions{}},
			{"spilled, 3", BreakdownOptions{Records: 3, TempDir: t.TempDir()}},
			{"spilled, 40", BreakdownOptions{Records: 40, TempDir: t.TempDir()}},
			{"no spill file", BreakdownOptions{Records: 5, TempDir: "/nonexistent/tally-test"}},
		}
		for _, o := range orders {
			want := m.feedStored(BreakdownOptions{}, o.ds...).Finish(b.c)
			if want.Err != nil || len(want.Devices) != 4 {
				t.Fatalf("trial %d, %s, stored: got err %v, %d rows; want 4 rows (two devices on two clocks)", trial, o.name, want.Err, len(want.Devices))
			}
			for _, op := range opts {
				s := b.feed(op.opt, o.ds...)
				if s.recs.ordered != o.ordered {
					t.Fatalf("trial %d, %s, %s: got ordered %v, want %v", trial, o.name, op.name, s.recs.ordered, o.ordered)
				}
				got := s.Finish(b.c)
				if got.Err != nil {
					t.Fatalf("trial %d, %s, %s: got error %v, want none", trial, o.name, op.name, got.Err)
				}
				if op.opt.Records == 3 && got.Spilled == 0 {
					t.Fatalf("trial %d, %s, %s: got nothing spilled, want a spill", trial, o.name, op.name)
				}
				if !reflect.DeepEqual(got.Devices, want.Devices) {
					t.Fatalf("trial %d, %s, %s: got rows\n%+v\nwant\n%+v", trial, o.name, op.name, got.Devices, want.Devices)
				}
				if !reflect.DeepEqual(got.Programs, want.Programs) || got.SyncRecorded != want.SyncRecorded {
					t.Fatalf("trial %d, %s, %s: got launch statistics %+v, want %+v", trial, o.name, op.name, got.Programs, want.Programs)
				}
			}
		}
	}
}

// Records with equal starts are in order only in recCmp's order, field by
// field: each pair below, differing in one field, stays packed in order
// and ends the packing reversed.
func TestRecordsOrderTies(t *testing.T) {
	base := bdRec{start: 5, end: 9, lBegin: 1, lEnd: 2, syncEnd: 1, queue: 1, kernel: 1, flags: fLaunch}
	for name, more := range map[string]func(*bdRec){
		"end": func(r *bdRec) { r.end++ }, "lEnd": func(r *bdRec) { r.lEnd++ }, "queue": func(r *bdRec) { r.queue++ },
		"kernel": func(r *bdRec) { r.kernel++ }, "lBegin": func(r *bdRec) { r.lBegin++ }, "syncEnd": func(r *bdRec) { r.syncEnd++ },
		"flags": func(r *bdRec) { r.flags |= fGraph },
	} {
		hi := base
		more(&hi)
		for _, tc := range []struct {
			a, b    bdRec
			ordered bool
		}{{base, hi, true}, {hi, base, false}} {
			rs := newRecords(BreakdownOptions{}.withDefaults())
			rs.add(&tc.a)
			rs.add(&tc.b)
			if rs.ordered != tc.ordered {
				t.Fatalf("%s: %+v then %+v: got ordered %v, want %v", name, tc.a, tc.b, rs.ordered, tc.ordered)
			}
		}
	}
}
