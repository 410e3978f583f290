package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestMain lets a test run this binary as tally-full (TALLY_TEST_MAIN=1,
// tally's arguments after the program name), for the signal tests: the
// test binary links every engine (full_test.go).
func TestMain(m *testing.M) {
	if os.Getenv("TALLY_TEST_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	if fake.dir != "" {
		os.RemoveAll(fake.dir)
	}
	if programs.dir != "" {
		os.RemoveAll(programs.dir)
	}
	os.Exit(code)
}

// TestInterruptRemovesTemporaries: tally interrupted while it writes an
// output (reading standard input that never comes, so the signal always
// arrives mid-write) removes its hidden .OUT.tmpNNN files and directories,
// leaves the previous output untouched and ends by the signal.
func TestInterruptRemovesTemporaries(t *testing.T) {
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		out  string
		args []string
		old  map[string]string // earlier output: path under the directory → content
	}{
		{"export csv", syscall.SIGINT, "t.csv", []string{"export", "--to", "csv", "-"},
			map[string]string{"t.csv": "old table\n", "t.csv.gaps.csv": "old gaps\n"}},
		{"export parquet", syscall.SIGINT, "ds", []string{"export", "--to", "parquet", "-"},
			map[string]string{"ds/_tally_export.json": "{}\n"}},
		{"timeline", syscall.SIGINT, "t.perfetto-trace", []string{"timeline", "-"},
			map[string]string{"t.perfetto-trace": "old timeline"}},
		{"timeline SIGTERM", syscall.SIGTERM, "t.json", []string{"timeline", "-"}, nil},
		{"export jsonl SIGHUP", syscall.SIGHUP, "t.jsonl", []string{"export", "--to", "jsonl", "-"},
			map[string]string{"t.jsonl": "old table\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for p, content := range c.old {
				writeFile(t, dir, p, content)
			}
			cmd := tallyCommand(append(c.args, "-o", filepath.Join(dir, c.out))...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			startWaiting(t, cmd)
			tmp := "." + c.out + ".tmp"
			if !waitFor(cmd, func() bool { return len(hidden(dir, tmp)) > 0 }) {
				t.Fatalf("got no %s* file, want one; stderr:\n%s", tmp, stderr.String())
			}
			// Seen again here, so that the signal provably comes mid-write
			// whatever waitFor does.
			if len(hidden(dir, tmp)) == 0 {
				t.Fatalf("got no %s* file before the signal, want one", tmp)
			}
			cmd.Process.Signal(c.sig)
			cmd.Wait()
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != c.sig {
				t.Errorf("tally ended with %v, want killed by %v; stderr:\n%s", cmd.ProcessState, c.sig, stderr.String())
			}
			if left := hidden(dir, "."); len(left) > 0 {
				t.Errorf("got temporaries left: %v, want none", left)
			}
			for p, content := range c.old {
				if b, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(b) != content {
					t.Errorf("%s: got %q, %v; want the earlier output %q", p, b, err, content)
				}
			}
			if c.old == nil {
				if _, err := os.Stat(filepath.Join(dir, c.out)); err == nil {
					t.Errorf("got %s after the interrupt, want none", c.out)
				}
			}
		})
	}
}

// startWaiting starts cmd with a standard input that is never written
// (closed when the test ends): a command reading "-" stays in the middle
// of writing its output, for the test to interrupt it there.
func startWaiting(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close() })
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
}

// hidden lists the names in dir that start with prefix.
func hidden(dir, prefix string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestKillLeavesNoKinetoSpool: the Kineto export's spool beside OUT is
// unlinked as soon as it is made, so even SIGKILL leaves nothing there.
func TestKillLeavesNoKinetoSpool(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd to see the open spool")
	}
	dir := t.TempDir()
	cmd := tallyCommand("export", "--to", "kineto", "-", "-o", filepath.Join(dir, "t.json"))
	startWaiting(t, cmd)
	// Wait until the spool is open and unlinked (seen through the
	// process's descriptors): the kill comes while it is being written.
	fds := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "fd")
	if !waitFor(cmd, func() bool { return openSpool(fds, dir) }) {
		t.Fatal("got no open, unlinked spool, want one")
	}
	if !openSpool(fds, dir) {
		t.Fatal("got no open, unlinked spool before the kill, want one")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if left := hidden(dir, ""); len(left) > 0 {
		t.Errorf("got %v left beside OUT after SIGKILL, want nothing", left)
	}
}

// openSpool reports whether a descriptor in fds names a kineto spool in
// dir that is already unlinked (Linux says "(deleted)").
func openSpool(fds, dir string) bool {
	entries, _ := os.ReadDir(fds)
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && strings.HasPrefix(target, filepath.Join(dir, ".tally-kineto-spool")) && strings.HasSuffix(target, "(deleted)") {
			return true
		}
	}
	return false
}
