package hrxserial

import (
	"fmt"
	"testing"
)

// The cache answers by text whatever the order of the lookups: the entry
// that followed last time is only a guess, checked against the text.
func TestDetailCacheOrder(t *testing.T) {
	c := newDetailCache()
	keys := []string{"main_commands=1", "main_commands=2", "main_commands=3"}
	for i, k := range keys {
		if c.get([]byte(k)) != nil {
			t.Fatalf("get(%q) before put: got an entry, want none", k)
		}
		e := c.put([]byte(k))
		e.d, e.ok = detail{main: uint64(i + 1)}, i != 1
	}
	// The same order (each guess right), then others (each guess wrong).
	orders := [][]int{{0, 1, 2}, {0, 1, 2}, {2, 1, 0}, {0, 0, 2, 2, 1}, {1, 0, 2, 0, 1}}
	for _, order := range orders {
		for _, i := range order {
			e := c.get([]byte(keys[i]))
			if e == nil || e.d.main != uint64(i+1) || e.ok != (i != 1) {
				t.Fatalf("order %v: get(%q) = %+v, want main %d, ok %v", order, keys[i], e, i+1, i != 1)
			}
		}
	}
	if e := c.get([]byte("main_commands=4")); e != nil {
		t.Fatalf("get of a text never put: got %+v, want none", e)
	}
}

// Past maxDetails the cache starts over, and still answers right.
func TestDetailCacheStartsOver(t *testing.T) {
	c := newDetailCache()
	key := func(i int) []byte { return []byte(fmt.Sprintf("main_commands=%d", i)) }
	for i := 0; i < maxDetails+10; i++ {
		c.put(key(i)).d.main = uint64(i)
		if c.len() > maxDetails {
			t.Fatalf("after %d puts: %d entries, want at most %d", i+1, c.len(), maxDetails)
		}
	}
	if c.len() != 10 || len(c.index) != 10 {
		t.Fatalf("after %d puts: %d entries, %d indexed, want 10", maxDetails+10, c.len(), len(c.index))
	}
	if e := c.get(key(3)); e != nil {
		t.Fatalf("get of an entry dropped when it started over: got %+v, want none", e)
	}
	for i := maxDetails; i < maxDetails+10; i++ {
		if e := c.get(key(i)); e == nil || e.d.main != uint64(i) {
			t.Fatalf("get(%q) = %+v, want main %d", key(i), e, i)
		}
	}
}
