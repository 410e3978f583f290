package export

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readOnlyDir returns a directory no file can be created in: a 0555 temp
// directory, or /sys when the tests run as root (root ignores modes).
func readOnlyDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(d, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(d, 0o755) })
	if f, err := os.CreateTemp(d, "probe"); err == nil {
		f.Close()
		os.Remove(f.Name())
		d = "/sys"
		if f, err := os.CreateTemp(d, "probe"); err == nil {
			f.Close()
			os.Remove(f.Name())
			t.Skip("no read-only directory available")
		}
	}
	return d
}

// TestWriteFailures: every format, written to /dev/full or into a
// read-only directory, ends in an error naming the output, and leaves
// nothing under the final name.
func TestWriteFailures(t *testing.T) {
	ro := readOnlyDir(t)
	for _, to := range Names {
		t.Run(to, func(t *testing.T) {
			out := filepath.Join(ro, "out."+to)
			if to == Kineto {
				out = filepath.Join(ro, "out.json")
			}
			_, err := Run([]string{example}, exampleOpts(to, out))
			if err == nil || !strings.Contains(err.Error(), out) {
				t.Errorf("read-only directory: got %v, want an error naming %s", err, out)
			}
			if _, serr := os.Stat(out); serr == nil {
				t.Errorf("got %s after a failed write, want no file", out)
			}
			if _, err := os.Stat("/dev/full"); err != nil {
				return
			}
			_, err = Run([]string{example}, exampleOpts(to, "/dev/full"))
			if err == nil || !strings.Contains(err.Error(), "/dev/full") {
				t.Errorf("/dev/full: got %v, want an error naming /dev/full", err)
			}
			if to == PProf || to == Kineto {
				if !strings.Contains(err.Error(), "no space left") {
					t.Errorf("/dev/full: %v, want the ENOSPC of the write", err)
				}
			}
		})
	}
}

// TestFailedInputLeavesNothing: when the second input cannot be read, no
// output (file, gaps file or dataset) appears and no temporary is left.
func TestFailedInputLeavesNothing(t *testing.T) {
	for _, to := range Names {
		t.Run(to, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			paths := []string{example, filepath.Join(dir, "missing.kept")}
			_, err := Run(paths, exampleOpts(to, out))
			if err == nil || !strings.Contains(err.Error(), "missing.kept") {
				t.Fatalf("got %v, want an error naming missing.kept", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("got %v left behind, want an empty directory", names)
			}
		})
	}
}

// TestOldOutputKept: a failed export leaves an earlier output untouched.
func TestOldOutputKept(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.csv")
	os.WriteFile(out, []byte("old"), 0o644)
	if _, err := Run([]string{example, filepath.Join(dir, "missing")}, exampleOpts(CSV, out)); err == nil {
		t.Fatal("got no error for a missing input, want one")
	}
	if b := read(t, out); string(b) != "old" {
		t.Errorf("got %q after a failed export, want the old output \"old\"", b)
	}
	assertNoTemp(t, dir)
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{To: "svg", Out: filepath.Join(dir, "x")}, "unknown --to"},
		{Options{To: CSV}, "-o"},
		{Options{To: CSV, Out: "-"}, "pprof and kineto only"},
		{Options{To: Parquet, Out: filepath.Join(dir, "x"), PerKernel: true}, "--per-kernel"},
	} {
		if _, err := Run([]string{example}, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.want)
		}
	}
}

// A redirected standard output stats as a regular file, but it is a file
// descriptor: nothing can be written beside it, so csv/jsonl refuse it
// rather than write their gaps file as /dev/stdout.gaps.csv.
func TestDescriptorOutputRefused(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	if err := needRegularFile(fd, "csv"); err == nil {
		t.Fatalf("%s (a descriptor of a regular file) as a csv output: got no error, want it refused", fd)
	}
	if err := needRegularFile(f.Name(), "csv"); err != nil {
		t.Fatalf("a regular file: got %v, want it accepted", err)
	}
}
