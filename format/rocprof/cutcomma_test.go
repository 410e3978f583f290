package rocprof

import (
	"testing"

	"github.com/tallyprof/tally/capture"
)

// A last row cut right after its last comma (an empty last column, no line
// ending) is a cut file: truncated_input, the row not used. With its last
// value and no line ending it is the file rocprofv3 writes: the note only.
func TestCutAfterLastComma(t *testing.T) {
	const header = `"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"` + "\n"
	const row = `"KERNEL_DISPATCH",1,1,69,1,16,"k(float*)",1451,3200098838431081,3200098838483232,0,0,64,1,1,1024,1024,`
	r := readBytes(t, header+row)
	if len(r.disp) != 0 || r.c.Accounting.Find(capture.TruncatedInput) == nil || r.c.Accounting.Find(lastRowNoEOL) != nil {
		t.Errorf("cut after the last comma: got %d dispatches, gaps %s; want none, truncated_input", len(r.disp), gapText(r.c))
	}
	r = readBytes(t, header+row+"1")
	if len(r.disp) != 1 || r.c.Accounting.Find(capture.TruncatedInput) != nil || r.c.Accounting.Find(lastRowNoEOL) == nil {
		t.Errorf("whole last row without a newline: got %d dispatches, gaps %s; want 1, the unterminated_last_row note", len(r.disp), gapText(r.c))
	}
	// An empty last column with its line ending is a bad row, not a cut.
	r = readBytes(t, header+row+"\n")
	if r.c.Accounting.Find(capture.TruncatedInput) != nil {
		t.Errorf("empty last column with a newline: got gaps %s, want no truncated_input", gapText(r.c))
	}
}
