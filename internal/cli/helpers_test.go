package cli

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tallyprof/tally/internal/testfile"
)

// containsAll fails the test for each of wants that out (what names it)
// lacks, and then shows the start of out.
func containsAll(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	missing := false
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks %q", what, want)
			missing = true
		}
	}
	if missing {
		t.Logf("%s:\n%.4000s", what, out)
	}
}

// decodeJSON decodes the JSON document s into v.
func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatal(err)
	}
}

// readFile is the content of path, which must be readable.
func readFile(t *testing.T, path string) string {
	t.Helper()
	return string(testfile.Read(t, path))
}

// tallyOK runs tally with args, which must exit 0, and returns its
// standard output.
func tallyOK(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := tally(args...)
	if code != 0 {
		t.Fatalf("tally %s: got exit %d: %s, want 0", strings.Join(args, " "), code, errOut)
	}
	return out
}

// writeFile writes content to dir/name, making name's directories, and
// returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	return testfile.Write(t, dir, name, []byte(content))
}

// waitFor polls ready every 5 ms for up to 30 s, while cmd (started) runs;
// a command that does not get there in time is killed, and waitFor
// returns false.
func waitFor(cmd *exec.Cmd, ready func() bool) bool {
	for deadline := time.Now().Add(30 * time.Second); !ready(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			return false
		}
	}
	return true
}
