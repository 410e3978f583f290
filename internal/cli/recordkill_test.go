//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tally record killed (SIGKILL, with its command) before the command's
// first trace line (it printed only a line no reader claims, which is not
// kept): the kept trace holds its header alone, and reads as cut and empty — truncated_input for the missing end
// record, and no dispatch recorded — never a complete empty report.
func TestRecordKilledBeforeFirstLine(t *testing.T) {
	kept := filepath.Join(t.TempDir(), "run.kept")
	cmd := tallyCommand("record", "-o", kept, "--", "/bin/sh", "-c", "echo loading weights; exec sleep 5")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the kill takes the command too
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(cmd, func() bool { b, err := os.ReadFile(kept); return err == nil && strings.HasSuffix(string(b), "\n") }) {
		t.Fatal("got no header in the kept trace, want it written before the kill")
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	code, out, errOut := tally("report", kept)
	if code == 0 || !strings.Contains(out, "GAP truncated_input (1): the kept trace has no end record") || !strings.Contains(out, "NO DISPATCH RECORDED") {
		t.Fatalf("killed before the first trace line: got exit %d\n%s%s\nwant non-zero, truncated_input and no dispatch recorded", code, out, errOut)
	}
	if strings.HasPrefix(out, "COMPLETE") || strings.Contains(out, "\nCOMPLETE") {
		t.Fatalf("a cut, empty kept trace: got COMPLETE, want no complete verdict:\n%s", out)
	}
}

// tally record killed between creating the kept trace and writing its
// header (the narrowed moment; SIGKILL cannot be caught) leaves an empty
// file. Read later, it is a loud empty capture — exit 2 from report, an
// incomplete JSON report, inspect --strict failing — never a clean run
// that recorded nothing.
func TestRecordEmptyKeptReadsAsNothingRecorded(t *testing.T) {
	kept := filepath.Join(t.TempDir(), "run.kept")
	if err := os.WriteFile(kept, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := tally("report", kept)
	if code != 2 || !strings.Contains(out, "NO DISPATCH RECORDED: the file is empty (0 bytes)") || !strings.Contains(out, "GAP empty_capture") || strings.HasPrefix(out, "COMPLETE") || strings.Contains(out, "\nCOMPLETE") {
		t.Fatalf("empty kept trace: got exit %d\n%s%s\nwant 2, NO DISPATCH RECORDED, empty_capture, no COMPLETE", code, out, errOut)
	}
	code, out, _ = tally("report", "--json", kept)
	if code != 2 || !strings.Contains(out, `"complete": false`) || !strings.Contains(out, `"kind": "empty_capture"`) {
		t.Fatalf("empty kept trace as JSON: got exit %d\n%s\nwant 2, complete false and an empty_capture gap", code, out)
	}
	if code, out, _ := tally("inspect", "--strict", kept); code != 1 || !strings.Contains(out, "GAP empty_capture") {
		t.Fatalf("inspect --strict of an empty kept trace: got exit %d\n%s\nwant 1 and empty_capture", code, out)
	}
}
