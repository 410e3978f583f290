package outerrange

import (
	"math/rand"
	"sort"
	"testing"
)

// TestAgainstBruteForce compares Outermost with a scan over every range:
// random nested ranges and random overlapping ones, on two threads.
func TestAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var all []Range
	var gen func(key, lo, hi int64, depth int)
	gen = func(key, lo, hi int64, depth int) {
		for at := lo; at < hi && depth < 4; {
			s := at + rng.Int63n(20)
			e := s + rng.Int63n(200)
			if e >= hi {
				return
			}
			all = append(all, Range{key, s, e})
			gen(key, s, e, depth+1)
			at = e + 1
		}
	}
	gen(1, 0, 5000, 0)
	gen(2, 0, 5000, 0)
	for range 300 { // start/end ranges may overlap without nesting
		s := rng.Int63n(5000)
		all = append(all, Range{3, s, s + rng.Int63n(300)})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Before(all[j]) })
	var s Set
	ids := map[int32]int{} // kept id → index in all
	for i, x := range all {
		if id, ok := s.Add(x.Key, x.Start, x.End); ok {
			ids[id] = i
		}
	}
	if s.Len() >= len(all) || s.Len() == 0 {
		t.Fatalf("kept %d of %d ranges, want some but not all (nested ones dropped)", s.Len(), len(all))
	}
	for key := int64(0); key <= 3; key++ {
		for ts := int64(-5); ts < 5400; ts += 3 {
			want := -1
			for i, x := range all {
				if x.Key == key && x.Start <= ts && ts <= x.End {
					want = i // sorted by start: the first containing is outermost
					break
				}
			}
			got := -1
			if id := s.Outermost(key, ts); id >= 0 {
				got = ids[id]
			}
			if got != want {
				t.Fatalf("key %d ts %d: got range %d, want %d", key, ts, got, want)
			}
		}
	}
}

func TestTrimInstance(t *testing.T) {
	for in, want := range map[string]string{
		"ProfilerStep#550":           "ProfilerStep",
		"aten::view, op_id = 314290": "aten::view",
		"Optimizer.step#SGD.step":    "Optimizer.step#SGD.step",
		"layer12":                    "layer12",
		"#7":                         "",
		"":                           "",
		"x, op_id = ":                "x, op_id = ",
	} {
		if got := TrimInstance(in); got != want {
			t.Errorf("TrimInstance(%q) = %q, want %q", in, got, want)
		}
	}
}

// Before is the order Add takes: key, then start, then the longer first.
func TestBefore(t *testing.T) {
	for _, c := range []struct {
		a, b Range
		want bool
	}{
		{Range{1, 50, 60}, Range{2, 10, 20}, true}, // key first
		{Range{2, 10, 20}, Range{1, 50, 60}, false},
		{Range{1, 10, 20}, Range{1, 11, 90}, true}, // then start
		{Range{1, 11, 90}, Range{1, 10, 20}, false},
		{Range{1, 10, 90}, Range{1, 10, 20}, true}, // equal starts: the longer first
		{Range{1, 10, 20}, Range{1, 10, 90}, false},
		{Range{1, 10, 20}, Range{1, 10, 20}, false},
	} {
		if got := c.a.Before(c.b); got != c.want {
			t.Errorf("%+v.Before(%+v): got %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
