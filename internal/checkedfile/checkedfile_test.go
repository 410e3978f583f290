package checkedfile

import (
	"errors"
	"fmt"
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
		t.Fatalf("got %q, want \"new\"", b)
	}
	// A failing fill leaves the old file and no temporary behind.
	err := Write(p, func(w io.Writer) error { io.WriteString(w, "half"); return errors.New("boom") })
	if err == nil || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("failing fill: got error %v, want one saying \"nothing was written\"", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("after a failed write: got %q, want the old \"new\"", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("got %v in the dir, want only the file (no temporaries)", entries)
	}
}

func TestWriteDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	err := Write("/dev/full", func(w io.Writer) error { _, err := w.Write(make([]byte, 100)); return err })
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("/dev/full: got error %v, want \"no space left\"", err)
	}
}

func TestWriteUnwritableDir(t *testing.T) {
	err := Write(filepath.Join(t.TempDir(), "no", "such", "f"), func(io.Writer) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "cannot create") {
		t.Fatalf("unwritable dir: got error %v, want \"cannot create\"", err)
	}
}

// An output path that is a symbolic link — /dev/stdout with standard output
// redirected to a file is one, to /proc/self/fd/1 — must reach the file the
// link names and leave the link a link. It used to be replaced by a new
// file beside it (in /dev for /dev/stdout), and the output went nowhere.
func TestWriteThroughLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.txt")
	os.WriteFile(real, []byte("old"), 0o644)
	fdFile, err := os.Create(filepath.Join(dir, "redirected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer fdFile.Close()
	links := map[string]string{"link.txt": real}
	named := map[string]string{"link.txt": real}
	if _, err := os.Stat("/proc/self/fd"); err == nil {
		links["stdout"] = fmt.Sprintf("/proc/self/fd/%d", fdFile.Fd()) // as /dev/stdout
		named["stdout"] = fdFile.Name()
	}
	for name, target := range links {
		link := filepath.Join(dir, name)
		if err := os.Symlink(target, link); err != nil {
			t.Skip("no symlinks:", err)
		}
		for _, how := range []string{"Write", "Create"} {
			content := how + " via " + name
			if how == "Write" {
				err = Write(link, func(w io.Writer) error { _, err := io.WriteString(w, content); return err })
			} else {
				var p *Pending
				if p, err = Create(link); err == nil {
					io.WriteString(p, content)
					err = p.Commit()
				}
			}
			if err != nil {
				t.Fatalf("%s %s: got error %v, want none", how, name, err)
			}
			if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("%s %s: got the link replaced by a file, want it still a link", how, name)
			}
			// Through an fd link the output is appended to the open file.
			if b, _ := os.ReadFile(named[name]); !strings.HasSuffix(string(b), content) || (name == "link.txt" && string(b) != content) {
				t.Errorf("%s %s: the file the link names holds %q, want it to end with %q", how, name, b, content)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(links)+2 {
		t.Errorf("got files %v, want %d (no temporaries)", entries, len(links)+2)
	}
}
