package checkedfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteAtomic(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.txt")
	os.WriteFile(p, []byte("old"), 0o644)
	if err := Write(p, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("%q", b)
	}
	// A failing fill leaves the old file and no temporary behind.
	err := Write(p, func(w io.Writer) error { io.WriteString(w, "half"); return errors.New("boom") })
	if err == nil || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("%v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("old content replaced by a failed write: %q", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

func TestWriteDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	err := Write("/dev/full", func(w io.Writer) error { _, err := w.Write(make([]byte, 100)); return err })
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("/dev/full accepted: %v", err)
	}
}

func TestWriteUnwritableDir(t *testing.T) {
	err := Write(filepath.Join(t.TempDir(), "no", "such", "f"), func(io.Writer) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "cannot create") {
		t.Fatalf("%v", err)
	}
}
