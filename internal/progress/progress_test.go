package progress

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestBarDrawsAfterDelayAndClears(t *testing.T) {
	var w syncBuf
	var done atomic.Int64
	done.Store(512 << 10)
	b := &Bar{W: &w, Label: "reading t.json", Size: 1 << 20, Done: done.Load, Delay: time.Millisecond, Every: time.Millisecond}
	b.Start()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(w.String(), "50%") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	b.Stop()
	out := w.String()
	if !strings.Contains(out, "reading t.json [===============               ]  50% 0.5 MiB of 1.0 MiB") {
		t.Fatalf("bar: got %q, want it at 50%%, 0.5 MiB of 1.0 MiB", out)
	}
	if !strings.HasSuffix(out, "\r\033[K") {
		t.Fatalf("got %q, want the line cleared at the end", out)
	}
}

func TestBarSilentForShortReads(t *testing.T) {
	var w syncBuf
	b := &Bar{W: &w, Size: 10, Done: func() int64 { return 10 }, Delay: time.Hour}
	b.Start()
	b.Stop()
	if w.String() != "" {
		t.Fatalf("a short read: got %q drawn, want nothing", w.String())
	}
}

func TestMode(t *testing.T) {
	for _, s := range []string{"never", "auto", "always"} {
		if _, err := ParseMode(s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ParseMode("sometimes"); err == nil {
		t.Fatal("ParseMode(\"sometimes\"): got no error, want one")
	}
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if Auto.Enabled(f) || Auto.Enabled(&bytes.Buffer{}) || Never.Enabled(f) || !Always.Enabled(&bytes.Buffer{}) {
		t.Fatal("Enabled: got a wrong answer, want auto off on a plain file or buffer, never off, always on")
	}
}
