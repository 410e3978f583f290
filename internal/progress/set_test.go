package progress

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tallyprof/tally/format"
)

// TestSetOneBarForAll: the bar's size is every input file's bytes, its
// progress the inputs done plus how far the open ones got; directories
// and failed inputs count as inputs done.
func TestSetOneBarForAll(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	os.WriteFile(a, make([]byte, 3000), 0o644)
	os.WriteFile(b, make([]byte, 1000), 0o644)
	var w syncBuf
	s := &Set{W: &w, Delay: time.Nanosecond}
	s.Begin([]string{a, b, dir, filepath.Join(dir, "missing")})
	if s.size != 4000 {
		t.Fatalf("size %d, want the two files' 4000", s.size)
	}
	inA, err := format.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer inA.Close()
	stopA := s.Watch(a, inA)
	inA.ReaderAt.ReadAt(make([]byte, 1500), 0)
	if got := s.bytesDone(); got != 1500 {
		t.Fatalf("half of a read: got %d bytes done, want 1500", got)
	}
	stopA()
	s.Watch(dir, nil)()
	s.Watch("missing", nil)()
	if got, sfx := s.bytesDone(), s.suffix(); got != 3000 || sfx != "; 3 of 4 inputs done" {
		t.Fatalf("a done: got %d bytes, %q; want 3000, \"; 3 of 4 inputs done\"", got, sfx)
	}
	inB, err := format.Open(b)
	if err != nil {
		t.Fatal(err)
	}
	defer inB.Close()
	s.Watch(b, inB)()
	s.End()
	out := w.String()
	if !strings.Contains(out, "tally: reading 4 inputs [==============================] 100% 0.0 MiB of 0.0 MiB") ||
		!strings.Contains(out, "; 4 of 4 inputs done") || !strings.HasSuffix(out, "\r\033[K") {
		t.Fatalf("bar: got %q, want 100%% over 4 inputs, 4 of 4 done, then cleared", out)
	}
}
