// Package testfile holds helpers tests share: sample files, directory
// listings, the child process of the signal and kill tests, and the bytes
// a call allocates (the memory-bound tests).
package testfile

import (
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Gunzip returns the decompressed content of the gzip file at path,
// failing the test on any error.
func Gunzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Names lists the names in dir, sorted; none when it cannot be read.
func Names(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// The child half of a signal or kill test learns from these variables
// that it is the child, which mode to run and the path it works in.
const (
	childMode = "TALLY_TEST_CHILD"
	childPath = "TALLY_TEST_CHILD_PATH"
)

// ChildMain is the TestMain of a package with signal or kill tests: in
// the child Child starts it calls child with the mode and path Child was
// given (child waits there to be signalled or killed); otherwise it runs
// the tests.
func ChildMain(m *testing.M, child func(mode, path string)) {
	if mode := os.Getenv(childMode); mode != "" {
		child(mode, os.Getenv(childPath))
		os.Exit(3) // never reached: the parent signals or kills the child
	}
	os.Exit(m.Run())
}

// Child runs this test binary again, with no test selected, as the child
// of ChildMain in mode, working in path; it returns once the child prints
// "ready", for the parent to signal it. A child that does not get ready
// is killed and fails the test.
func Child(t testing.TB, mode, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childMode+"="+mode, childPath+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child: got %q (%v), want \"ready\"", line, err)
	}
	return cmd
}

// Write writes data to dir/name, making the directories name holds, and
// returns the path; any failure ends the test.
func Write(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Read returns the content of the file at path, failing the test when it
// cannot be read.
func Read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
