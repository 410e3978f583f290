package checkedfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tallyprof/tally/internal/cleanup"
	"github.com/tallyprof/tally/internal/testfile"
)

// tracked lists the tracked temporaries under dir.
func tracked(dir string) []string {
	var out []string
	for _, p := range cleanup.Tracked() {
		if strings.HasPrefix(p, dir) {
			out = append(out, filepath.Base(p))
		}
	}
	return out
}

// TestTemporariesTracked: every temporary is tracked for the signal
// cleanup from its creation to its rename or removal, and nothing else is.
func TestTemporariesTracked(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.csv")
	err := Write(out, func(w io.Writer) error {
		if got := tracked(dir); len(got) != 1 || !strings.HasPrefix(got[0], ".out.csv.tmp") {
			t.Errorf("during Write: tracked %v, want the .out.csv.tmp file", got)
		}
		return nil
	})
	if err != nil || len(tracked(dir)) != 0 {
		t.Fatalf("after Write: got %v, tracked %v; want no error, nothing tracked", err, tracked(dir))
	}
	a, _ := Create(out)
	b, _ := Create(out + ".gaps.csv")
	if got := tracked(dir); len(got) != 2 {
		t.Fatalf("two pending files: got tracked %v, want 2", got)
	}
	if err := CommitAll(b, a); err != nil {
		t.Fatal(err)
	}
	c, _ := Create(out)
	c.Abort()
	d, _ := CreateDir(filepath.Join(dir, "ds"), "MARK")
	if got := tracked(dir); len(got) != 1 || !strings.HasPrefix(got[0], ".ds.tmp") {
		t.Fatalf("pending dataset: got tracked %v, want one .ds.tmp", got)
	}
	os.WriteFile(filepath.Join(d.Temp(), "MARK"), nil, 0o644)
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	e, _ := CreateDir(filepath.Join(dir, "ds"), "MARK")
	os.WriteFile(filepath.Join(e.Temp(), "MARK"), []byte("2"), 0o644)
	if err := e.Commit(); err != nil { // replaces the first dataset
		t.Fatal(err)
	}
	if got := tracked(dir); len(got) != 0 {
		t.Errorf("after every commit and abort: got tracked %v, want none", got)
	}
	if got := testfile.Names(dir); !slices.Equal(got, []string{"ds", "out.csv", "out.csv.gaps.csv"}) {
		t.Errorf("got files %v, want ds, out.csv, out.csv.gaps.csv", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ds", "MARK")); string(b) != "2" {
		t.Errorf("got MARK %q, want \"2\": the second dataset should replace the first", b)
	}
}

// TestCommitAllNoneOnFailure: when one file of a pair fails before the
// renames, neither replaces its earlier version and no temporary is left.
func TestCommitAllNoneOnFailure(t *testing.T) {
	dir := t.TempDir()
	out, gaps := filepath.Join(dir, "out.csv"), filepath.Join(dir, "out.csv.gaps.csv")
	os.WriteFile(out, []byte("old"), 0o644)
	os.WriteFile(gaps, []byte("old gaps"), 0o644)
	a, _ := Create(out)
	b, _ := Create(gaps)
	a.Write([]byte("new"))
	b.Write([]byte("new gaps"))
	b.err = io.ErrShortWrite // the gaps file's write failed
	err := CommitAll(a, b)
	if err == nil || !strings.Contains(err.Error(), gaps) {
		t.Fatalf("CommitAll: %v, want an error naming %s", err, gaps)
	}
	for p, want := range map[string]string{out: "old", gaps: "old gaps"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s: %q, want the earlier %q", p, got, want)
		}
	}
	if got := testfile.Names(dir); len(got) != 2 || len(tracked(dir)) != 0 {
		t.Errorf("got %v left, tracked %v; want the 2 earlier files, nothing tracked", got, tracked(dir))
	}
}

// TestPendingDirReplace: an earlier dataset is replaced whether the system
// swaps the two directories in one rename or moves the old one aside, and
// nothing is left beside it.
func TestPendingDirReplace(t *testing.T) {
	for _, swap := range []bool{true, false} {
		if !swap {
			saved := exchange
			exchange = func(a, b string) error { return errors.ErrUnsupported }
			defer func() { exchange = saved }()
		}
		dir := t.TempDir()
		for i := range 2 {
			d, err := CreateDir(filepath.Join(dir, "ds"), "MARK")
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(d.Temp(), "MARK"), []byte{'0' + byte(i)}, 0o644)
			if err := d.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "ds", "MARK")); string(b) != "1" {
			t.Errorf("swap %v: MARK %q, want the second dataset's 1", swap, b)
		}
		if got := testfile.Names(dir); !slices.Equal(got, []string{"ds"}) || len(tracked(dir)) != 0 {
			t.Errorf("swap %v: got %v left, tracked %v; want only ds, nothing tracked", swap, got, tracked(dir))
		}
	}
}
