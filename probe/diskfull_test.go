//go:build unix

package probe_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/probe"
)

// fsizeLimit is the file size the "fsize" child may write: past it, a
// write fails (EFBIG), as on a disk that filled mid-run.
const fsizeLimit = 16 << 10

// fsizeRun is what the "fsize" child's Close said, for the parent.
type fsizeRun struct {
	Err        string
	Dispatches int64
	Unwritten  int64
	Launches   int64
}

// fileSizeLimited is the "fsize" child: it records 5000 dispatches into a
// file limited to fsizeLimit bytes, closes the session, and writes what
// Close said beside the file. Go ignores SIGXFSZ, so the write past the
// limit fails with EFBIG instead of killing the process.
func fileSizeLimited(s *probe.Session, path string) {
	q := s.Queue("q0", "cpu")
	k := s.Program("decode").Kernel("k")
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: fsizeLimit, Max: fsizeLimit}); err != nil {
		fmt.Println(err)
		os.Exit(4)
	}
	for i := 0; i < 5000; i++ {
		q.Begin(k).End()
		if i%100 == 99 {
			s.Flush()
		}
	}
	r, err := s.Close()
	run := fsizeRun{Dispatches: r.Dispatches, Unwritten: r.Unwritten, Launches: r.Launches}
	if err != nil {
		run.Err = err.Error()
	}
	b, _ := json.Marshal(run)
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: ^uint64(0), Max: ^uint64(0)})
	if err := os.WriteFile(path+".result", b, 0o644); err != nil {
		fmt.Println(err)
		os.Exit(4)
	}
	fmt.Println("ready")
}

// A disk that fills mid-recording: Close says the write failed and counts
// what it could not write, never calling it recorded; the file, cut where
// the disk filled, reads incomplete, and holds no more than was written.
func TestDiskFillsMidRecording(t *testing.T) {
	cmd, path := startChild(t, "fsize")
	cmd.Process.Kill()
	cmd.Wait()
	var run fsizeRun
	b, err := os.ReadFile(path + ".result")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(run.Err, "file too large") || !strings.Contains(run.Err, path) || !strings.Contains(run.Err, probe.ErrWrite.Error()) {
		t.Errorf("Close: got %q, want the write error naming the file", run.Err)
	}
	if run.Unwritten == 0 || run.Dispatches+run.Unwritten != run.Launches || run.Launches != 5000 {
		t.Errorf("Close: got %+v, want dispatches + unwritten = 5000 launches, some unwritten", run)
	}
	if st, err := os.Stat(path); err != nil || st.Size() > fsizeLimit {
		t.Fatalf("file: got %v, %v, want at most %d bytes", st, err, fsizeLimit)
	}
	c, ds := readBack(t, path)
	if len(ds) == 0 || int64(len(ds)) > run.Launches-run.Unwritten+int64(fsizeLimit/16) {
		t.Errorf("file: got %d dispatches, want some, and none beyond what the writer wrote (Close: %+v)", len(ds), run)
	}
	if c.Accounting.Complete() || c.Accounting.CountOf(capture.UnfinalizedCapture) != 1 {
		t.Errorf("file: got gaps %s, want unfinalized_capture and incomplete", gapList(c))
	}
}

func gapList(c *capture.Capture) string {
	var ks []string
	for _, g := range c.Accounting.Gaps {
		ks = append(ks, fmt.Sprintf("%s(%d)", g.Kind, g.Count))
	}
	return strings.Join(ks, ",")
}
