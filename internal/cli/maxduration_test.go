package cli

import (
	"strings"
	"testing"
)

// --max-duration reaches every reader's ceiling for one dispatch: a
// two-hour kernel is an invalid_event under the default hour and in the
// tables under a three-hour ceiling; a ceiling that is not a positive
// duration is refused, naming the flag, by every command that reads.
// The gap summaries of several readers tell users to give it.
func TestMaxDurationFlag(t *testing.T) {
	const hdr = `"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"` + "\n"
	csv := writeFile(t, t.TempDir(), "kernel_trace.csv", hdr+
		`"KERNEL_DISPATCH","Agent 4",1,1,7,1,3,"a",1,100,200`+"\n"+
		`"KERNEL_DISPATCH","Agent 4",1,1,7,2,3,"a",2,1000,7200000001000`+"\n")
	var def, raised struct {
		Complete bool `json:"complete"`
		Programs []struct {
			Dispatches int64 `json:"dispatches"`
		} `json:"programs"`
	}
	decodeJSON(t, tallyOK(t, "report", "--json", csv), &def)
	decodeJSON(t, tallyOK(t, "report", "--json", "--max-duration", "3h", csv), &raised)
	if def.Complete || len(def.Programs) != 1 || def.Programs[0].Dispatches != 1 {
		t.Errorf("default ceiling: got complete %v, programs %+v; want incomplete and the 2-hour kernel out of the tables", def.Complete, def.Programs)
	}
	if len(raised.Programs) != 1 || raised.Programs[0].Dispatches != 2 {
		t.Errorf("--max-duration 3h: got programs %+v, want the 2-hour kernel in the tables (2 dispatches)", raised.Programs)
	}
	// The raised ceiling is stated where it let a dispatch in.
	if out := tallyOK(t, "report", "--max-duration", "3h", csv); !strings.Contains(out, "note raised_ceiling (1)") {
		t.Errorf("--max-duration 3h: got\n%s\nwant the 2-hour kernel in a raised_ceiling note", out)
	}
	if out := tallyOK(t, "report", csv); strings.Contains(out, "raised_ceiling") {
		t.Errorf("default ceiling: got a raised_ceiling note, want none:\n%s", out)
	}
	if code, out, _ := tally("report", "--max-duration", "90m", csv); code != 0 || !strings.Contains(out, "longer than the 5400000000000 ns ceiling") {
		t.Errorf("--max-duration 90m: exit %d; want 0 and the 90-minute ceiling named in the gap:\n%s", code, out)
	}
	for _, cmd := range []string{"report", "inspect", "timeline", "diff"} {
		for _, bad := range []string{"0", "-1h", "long"} {
			if code, _, stderr := tally(cmd, "--max-duration", bad, csv, csv); code != 2 || !strings.Contains(stderr, "max-duration") || strings.Contains(stderr, "not defined") {
				t.Errorf("tally %s --max-duration %s: exit %d, %q; want 2 and the flag named (a flag the command has)", cmd, bad, code, stderr)
			}
		}
	}
}
