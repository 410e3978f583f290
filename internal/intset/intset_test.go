package intset

import "testing"

func TestRanges(t *testing.T) {
	set := map[int64]bool{-1: true, 0: true, 1: true, 2: true, 5: true, 9: true, 10: true, 1000000000: true}
	rs := Of(set)
	if got, want := String(rs), "-1..2, 5, 9..10, 1000000000"; got != want {
		t.Fatalf("String(Of(set)) = %q, want %q", got, want)
	}
	h := Holes(rs)
	if got, want := String(h), "3..4, 6..8, 11..999999999"; got != want {
		t.Fatalf("String(Holes) = %q, want %q", got, want)
	}
	if got, want := Count(h), int64(2+3+999999989); got != want {
		t.Fatalf("Count(Holes) = %d, want %d", got, want)
	}
	if got := String(nil); got != "none" {
		t.Errorf("String(nil) = %q, want \"none\"", got)
	}
	if got := Holes(Of(map[int64]bool{3: true})); len(got) != 0 {
		t.Errorf("Holes of a single member = %v, want none", got)
	}
}
