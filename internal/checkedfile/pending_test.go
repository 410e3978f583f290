package checkedfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPendingCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.csv")
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("x"))
	if _, err := os.Stat(p); err == nil {
		t.Fatal("before Commit: got the file under its final name, want none")
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: must not remove the committed file
	if b, _ := os.ReadFile(p); string(b) != "x" {
		t.Fatalf("after Commit and Abort: got %q, want \"x\"", b)
	}
	g, _ := Create(p)
	g.Write([]byte("y"))
	g.Abort()
	if b, _ := os.ReadFile(p); string(b) != "x" {
		t.Fatalf("aborted write: got %q, want the committed \"x\"", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("got temporaries left: %v, want only the file", entries)
	}
}

func TestPendingDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	f, err := Create("/dev/full")
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, 1<<16))
	if err := f.Commit(); err == nil || !strings.Contains(err.Error(), "/dev/full") {
		t.Fatalf("Commit to /dev/full: got error %v, want one naming /dev/full", err)
	}
}

func TestPendingDir(t *testing.T) {
	parent := t.TempDir()
	p := filepath.Join(parent, "ds")
	d, err := CreateDir(p, "MARK")
	if err != nil {
		t.Fatal(err)
	}
	// Without its marker a dataset is not committed.
	if err := d.Commit(); err == nil {
		t.Fatal("Commit without the marker: got no error, want one")
	}
	if _, err := os.Stat(p); err == nil {
		t.Fatal("got the dataset under its final name after a failed Commit, want none")
	}
	for i := 0; i < 2; i++ { // the second replaces the first
		d, err := CreateDir(p, "MARK")
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d.Temp(), "MARK"), nil, 0o644)
		os.WriteFile(filepath.Join(d.Temp(), "n"), []byte{byte('0' + i)}, 0o644)
		if got := d.Final(filepath.Join(d.Temp(), "n")); got != filepath.Join(p, "n") {
			t.Errorf("Final: got %s, want %s", got, filepath.Join(p, "n"))
		}
		if err := d.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(p, "n")); string(b) != "1" {
		t.Fatalf("got %q, want the second dataset's \"1\"", b)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Fatalf("got %v left behind, want only the dataset", entries)
	}
	os.Remove(filepath.Join(p, "MARK"))
	if _, err := CreateDir(p, "MARK"); err == nil {
		t.Fatal("CreateDir over a directory without the marker: got no error, want one")
	}
}

// A dataset directory is readable by others once in place (MkdirTemp alone
// would leave it 0700).
func TestPendingDirMode(t *testing.T) {
	d, err := CreateDir(filepath.Join(t.TempDir(), "ds"), "MARK")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Abort()
	st, err := os.Stat(d.tmp)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o755 {
		t.Fatalf("dataset directory mode %v, want 0755", st.Mode().Perm())
	}
}

func TestIsDescriptor(t *testing.T) {
	if !IsDescriptor("/dev/stdout") || !IsDescriptor("/proc/self/fd/1") || IsDescriptor(filepath.Join(t.TempDir(), "x")) {
		t.Fatal("IsDescriptor: got a wrong answer, want true for /dev/stdout and /proc/self/fd/1, false for a plain path")
	}
}

// TestPendingDirMkdirAll: directories are made inside Temp, and never Temp
// itself once a signal's cleanup removed it.
func TestPendingDirMkdirAll(t *testing.T) {
	d, err := CreateDir(filepath.Join(t.TempDir(), "ds"), "_m")
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(d.Temp(), "dispatches", "rank=0")
	if err := d.MkdirAll(sub); err != nil {
		t.Fatalf("MkdirAll inside Temp: got %v, want nil", err)
	}
	if err := d.MkdirAll(sub); err != nil {
		t.Fatalf("MkdirAll again: got %v, want nil", err)
	}
	if st, err := os.Stat(sub); err != nil || !st.IsDir() {
		t.Fatalf("after MkdirAll: got %v, want the directory", err)
	}
	if err := d.MkdirAll(filepath.Dir(d.Temp())); err == nil {
		t.Error("MkdirAll outside Temp: got nil, want an error")
	}
	removeTemp(d.Temp()) // what the signal handler does
	if err := d.MkdirAll(sub); err == nil {
		t.Error("MkdirAll after Temp was removed: got nil, want an error")
	}
	if _, err := os.Stat(d.Temp()); err == nil {
		t.Errorf("after MkdirAll: got %s back, want it gone", d.Temp())
	}
}
