package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTB records what Check reports instead of failing the test.
type fakeTB struct {
	testing.TB
	failed string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
}
func (f *fakeTB) Logf(format string, args ...any) {}

func TestCheckMismatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	if err := os.WriteFile(path, []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var f fakeTB
	Check(&f, path, []byte("a\nB\nc\n"))
	if want := "-b\n+B\n"; !strings.Contains(f.failed, want) || !strings.Contains(f.failed, "--- "+path+"\n+++ "+path+".got\n") {
		t.Errorf("mismatch: got message\n%s\nwant a unified diff from %s to %s.got holding %q", f.failed, path, path, want)
	}
	if got, err := os.ReadFile(path + ".got"); err != nil || string(got) != "a\nB\nc\n" {
		t.Errorf("%s.got: got %q (%v), want the output", path, got, err)
	}
	// A match passes and removes the .got file.
	f.failed = ""
	Check(&f, path, []byte("a\nb\nc\n"))
	if _, err := os.Stat(path + ".got"); f.failed != "" || !os.IsNotExist(err) {
		t.Errorf("match: got failure %q and .got stat %v, want none and no .got file", f.failed, err)
	}
}
