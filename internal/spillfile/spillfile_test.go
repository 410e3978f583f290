package spillfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The file is gone from its directory at once, yet reads back what was
// written to it.
func TestCreateUnlinked(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(dir, "tally-test-*.spill")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if filepath.Dir(f.Name()) != dir {
		t.Errorf("got a file in %s, want one in %s", filepath.Dir(f.Name()), dir)
	}
	if runtime.GOOS != "windows" {
		if _, err := os.Stat(f.Name()); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("got Stat error %v for %s, want not exist: the spill file must be unlinked", err, f.Name())
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("got %d entries left in the directory, want 0", len(left))
		}
	}
	if _, err := f.WriteString("records"); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 7)
	if _, err := f.ReadAt(got, 0); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if string(got) != "records" {
		t.Errorf("got %q back, want %q", got, "records")
	}
}

// A directory that cannot hold it is an error, and no file.
func TestCreateFails(t *testing.T) {
	f, err := Create(filepath.Join(t.TempDir(), "missing"), "x-*")
	if err == nil {
		f.Close()
		t.Fatal("got a file in a missing directory, want an error")
	}
	if f != nil {
		t.Errorf("got file %v with error %v, want nil", f, err)
	}
}
