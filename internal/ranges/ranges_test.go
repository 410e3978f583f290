package ranges

import "testing"

func TestRanges(t *testing.T) {
	set := map[int64]bool{-1: true, 0: true, 1: true, 2: true, 5: true, 9: true, 10: true, 1000000000: true}
	rs := Of(set)
	if got := String(rs); got != "-1..2, 5, 9..10, 1000000000" {
		t.Fatal(got)
	}
	h := Holes(rs)
	if got := String(h); got != "3..4, 6..8, 11..999999999" {
		t.Fatal(got)
	}
	if Count(h) != 2+3+999999989 {
		t.Fatal(Count(h))
	}
	if String(nil) != "none" || len(Holes(Of(map[int64]bool{3: true}))) != 0 {
		t.Fatal("empty / single")
	}
}
