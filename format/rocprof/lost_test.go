package rocprof

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// Every unit the readers skip is classified where it is skipped: a unit
// that held device work (or may have) is lost, under the gap that lists
// it; host rows, blank lines and repeated counter rows are not device work.
// These tests name each skip reason and its class, so that turning a Lose
// into an Ignore (or the reverse) fails here.

const lost, host = capture.DeviceWorkLost, capture.NotDeviceWork

type skipWant struct {
	unit, reason string
	n            int64
	class        capture.SkipClass
	gap          capture.Kind
}

func checkSkips(t *testing.T, c *capture.Capture, want []skipWant) {
	t.Helper()
	for _, w := range want {
		var got *capture.Skip
		for _, in := range c.Accounting.Input {
			if in.Unit != w.unit {
				continue
			}
			for _, s := range in.Skipped {
				if s.Reason == w.reason && (got == nil || s.Gap == w.gap) {
					got = s
				}
			}
		}
		switch {
		case got == nil:
			t.Errorf("%s: no skip %q, want %d %s\n%s", w.unit, w.reason, w.n, w.class, gapText(c))
		case got.Count != w.n || got.Class != w.class || got.Gap != w.gap:
			t.Errorf("%s skipped %q: got %d %s under %q, want %d %s under %q", w.unit, w.reason, got.Count, got.Class, got.Gap, w.n, w.class, w.gap)
		}
	}
}

func TestCSVSkipClasses(t *testing.T) {
	data := hdr +
		krow("1", "a", 100, 200) +
		strings.Replace(krow("2", "a", 1, 2), "KERNEL_DISPATCH", "KERNEL_DISPATCH_V2", 1) + // a kind this reader does not know
		krow("3", "b", 300, 250) + // reversed
		krow("4", "b", -5, 250) + // negative
		krow("5", "b", 300, 9223372036854775807) + // past the ceiling
		krow("1", "a", 400, 500) + // repeated dispatch id
		`"KERNEL_DISPATCH","Agent 4",1,1,7,6,3,"c",1,x,9` + "\n" + // does not parse
		"\n" +
		`"KERNEL_DISPATCH","Agent 4",1,1,7,7,3,"two` + "\n" + `lines",1,-10,20` + "\n" + // negative, over two lines
		krow("8", "a", 800, 900) +
		`"KERNEL_DISPATCH","Agent 4",1` // cut inside the last row
	r := readBytes(t, data)
	if len(r.disp) != 2 {
		t.Fatalf("dispatches: got %d, want 2\n%s", len(r.disp), gapText(r.c))
	}
	checkSkips(t, r.c, []skipWant{
		{"lines", `kind "KERNEL_DISPATCH_V2"`, 1, lost, capture.UnknownInput},
		{"lines", "end before start", 1, lost, capture.InvalidEvent},
		{"lines", "negative time", 2, lost, capture.InvalidEvent},
		{"lines", "longer than the ceiling", 1, lost, capture.InvalidEvent},
		{"lines", "duplicate dispatch id", 1, lost, capture.DuplicateDispatchID},
		{"lines", "row does not parse", 1, lost, capture.SkippedInput},
		{"lines", "row does not parse", 1, lost, capture.TruncatedInput}, // the cut last row
		{"lines", "further lines of a lost row", 1, lost, capture.InvalidEvent},
		{"lines", "blank line", 1, host, ""},
	})
	if g := r.c.Accounting.Find(capture.UnknownInput); g == nil || g.Items[0].What != `kind "KERNEL_DISPATCH_V2"` || g.Items[0].Where != "line 3" {
		t.Errorf("unknown kind: want an UnknownInput gap for kind \"KERNEL_DISPATCH_V2\" at line 3, got:\n%s", gapText(r.c))
	}
	// Nothing impossible reached the overlap figures: the row ending at
	// 2^63-1 would overlap every later row on its queue.
	if g := r.c.Accounting.Find(capture.OverlappingEvents); g != nil {
		t.Errorf("overlaps from rows not in the tables: want no OverlappingEvents gap, got:\n%s", gapText(r.c))
	}
}

// Counter rows after a dispatch's first, and the further lines of such a
// row, are not device work: the dispatch is in the tables once.
func TestCounterRowsNotDeviceWork(t *testing.T) {
	h := `"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Id","Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Counter_Name","Counter_Value","Start_Timestamp","End_Timestamp"` + "\n"
	row := func(d, counter string) string {
		return d + `,` + d + `,"Agent 1",1,15606,15606,1048576,17,"k(float*)",64,0,0,8,0,16,"` + counter + `",1.0,` + d + `0,` + d + `5` + "\n"
	}
	r := readBytes(t, h+row("1", "SQ_WAVES")+row("1", "GRBM\nCOUNT")+row("2", "SQ_WAVES"))
	if len(r.disp) != 2 || !r.c.Accounting.Complete() {
		t.Fatalf("got %d dispatches, want 2 and complete\n%s", len(r.disp), gapText(r.c))
	}
	checkSkips(t, r.c, []skipWant{
		{"lines", "another counter row of the same dispatch", 1, host, ""},
		{"lines", "further lines of a skipped row", 1, host, ""},
	})
}

func TestJSONSkipClasses(t *testing.T) {
	doc := `{"rocprofiler-sdk-tool": [{"metadata": {"pid": 7},
 "agents": [{"id": {"handle": 5}, "type": 2, "node_id": 2, "name": "gfx950"}],
 "strings": {"buffer_records": [{"kind": "NONE", "operations": []}, {"kind": "KERNEL_DISPATCH", "operations": ["NONE", "KERNEL_DISPATCH_ENQUEUE", "KERNEL_DISPATCH_COMPLETE"]}, {"kind": "HIP_RUNTIME_API", "operations": ["NONE", "hipLaunchKernel"]}, {"kind": "MEMORY_COPY", "operations": ["NONE", "MEMORY_COPY_HOST_TO_DEVICE"]}]},
 "kernel_symbols": [{"kernel_id": 1, "kernel_name": "k.kd", "formatted_kernel_name": "k"}],
 "buffer_records": {"hip_api": [{"kind": 2, "operation": 1, "start_timestamp": "x"}, {"kind": 2, "operation": 1, "start_timestamp": 1, "end_timestamp": 2}], "kernel_dispatch": [
  {"kind": 1, "operation": 2, "start_timestamp": 10, "end_timestamp": 20, "dispatch_info": {"agent_id": {"handle": 5}, "queue_id": {"handle": 1}, "kernel_id": 1, "dispatch_id": 1}},
  {"kind": 1, "operation": 1, "start_timestamp": 30, "end_timestamp": 40, "dispatch_info": {"agent_id": {"handle": 5}, "queue_id": {"handle": 1}, "kernel_id": 1, "dispatch_id": 2}},
  {"kind": 1, "operation": 2, "end_timestamp": 40, "dispatch_info": {"agent_id": {"handle": 5}, "queue_id": {"handle": 1}, "kernel_id": 1, "dispatch_id": 3}},
  {"kind": 1, "operation": 2, "start_timestamp": [], "end_timestamp": 40, "dispatch_info": {}},
  {"kind": 1, "operation": 2, "start_timestamp": -5, "end_timestamp": 40, "dispatch_info": {"agent_id": {"handle": 5}, "queue_id": {"handle": 1}, "kernel_id": 1, "dispatch_id": 4}}
 ], "memory_copy": [
  {"kind": 3, "operation": 1, "start_timestamp": 50, "end_timestamp": 60, "dst_agent_id": {"handle": 5}, "src_agent_id": {"handle": 5}},
  {"kind": 3, "operation": 1, "start_timestamp": 50, "dst_agent_id": {"handle": 5}, "src_agent_id": {"handle": 5}},
  {"kind": 3, "operation": 1, "start_timestamp": 50, "end_timestamp": 60, "dst_agent_id": 7},
  {"kind": 1, "operation": 2, "start_timestamp": 50, "end_timestamp": 60, "dst_agent_id": {"handle": 5}, "src_agent_id": {"handle": 5}}
 ]}}]}` + "\n\n"
	r := readJSONString(t, doc)
	if len(r.disp) != 2 {
		t.Fatalf("dispatches and copies: got %d, want 2\n%s", len(r.disp), gapText(r.c))
	}
	checkSkips(t, r.c, []skipWant{
		{"records", "kind KERNEL_DISPATCH KERNEL_DISPATCH_ENQUEUE", 1, lost, capture.UnknownInput},
		{"records", "no start or end timestamp", 1, lost, capture.InvalidEvent},
		{"records", "record does not match the schema", 1, lost, capture.SkippedInput},
		{"records", "negative time", 1, lost, capture.InvalidEvent},
		{"records", "memory_copy record without start or end timestamp", 1, lost, capture.InvalidEvent},
		{"records", "memory_copy record does not match the schema", 1, lost, capture.SkippedInput},
		{"records", "kind KERNEL_DISPATCH in memory_copy", 1, lost, capture.UnknownInput},
		{"API records", "record does not match the schema", 1, host, ""},
		{"API records", "correlation id 0 (none)", 1, host, ""},
		{"bytes", "white space after the document", 2, host, ""},
	})

	// Bytes after a malformed point may hold dispatches: lost, under the
	// truncation.
	bad := strings.Replace(doc, `"memory_copy": [`, `"memory_copy": [}`, 1)
	r = readJSONString(t, bad)
	in := r.c.Accounting.InputFor("bytes")
	if len(in.Skipped) != 1 || in.Skipped[0].Reason != "after the point where reading stopped" || in.Skipped[0].Class != lost || in.Skipped[0].Gap != capture.TruncatedInput || in.Skipped[0].Count < 100 {
		for _, s := range in.Skipped {
			t.Errorf("bytes skipped: got %q, %d %s under %q; want one: after the point where reading stopped, 100 or more, lost, under TruncatedInput", s.Reason, s.Count, s.Class, s.Gap)
		}
		t.Errorf("want one skip: the bytes after the malformed point, lost under truncated_input")
	}
}

func TestRocpdSkipClasses(t *testing.T) {
	s := runSuffix
	path := genRocpd(t,
		`UPDATE rocpd_kernel_dispatch`+s+` SET start = NULL WHERE id = 5`,
		`UPDATE rocpd_kernel_dispatch`+s+` SET start = -5 WHERE id = 6`,
		`UPDATE rocpd_kernel_dispatch`+s+` SET dispatch_id = 7 WHERE id = 8`,
		`CREATE TABLE rocpd_memory_copy`+s+` (id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, start INTEGER, end INTEGER, name_id INTEGER, dst_agent_id INTEGER, src_agent_id INTEGER, size INTEGER, queue_id INTEGER, stream_id INTEGER, region_name_id INTEGER, event_id INTEGER, extdata TEXT)`,
		`INSERT INTO rocpd_memory_copy`+s+` VALUES (1, 'g1', 1, 1, 500000, 500100, 0, 2, 2, 64, 0, 0, 0, 0, '{}'), (2, 'g1', 1, 1, 600000, NULL, 0, 2, 2, 64, 0, 0, 0, 0, '{}'), (3, 'g1', 1, 1, 700000, 600000, 0, 2, 2, 64, 0, 0, 0, 0, '{}')`,
	)
	r := readPath(t, path, "")
	if len(r.disp) != 90-3+1 {
		t.Fatalf("dispatches and copies: got %d, want %d\n%s", len(r.disp), 90-3+1, gapText(r.c))
	}
	checkSkips(t, r.c, []skipWant{
		{"dispatch rows", "no start or end", 1, lost, capture.InvalidEvent},
		{"dispatch rows", "negative time", 1, lost, capture.InvalidEvent},
		{"dispatch rows", "duplicate dispatch id", 1, lost, capture.DuplicateDispatchID},
		{"copy rows", "no start or end", 1, lost, capture.InvalidEvent},
		{"copy rows", "end before start", 1, lost, capture.InvalidEvent},
		{"API regions", "no correlation id or times", 1, host, ""},
	})
}

// Side files: a copy row kept out of the tables is lost device work; marker
// and API rows are host events, not device work, even where a gap lists
// them (a lost marker range moves dispatches to another program).
func TestSideFileSkipClasses(t *testing.T) {
	copyHdr := `"Kind","Direction","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"` + "\n"
	markHdr := `"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"` + "\n"
	dir := writeFiles(t, map[string]string{
		"1_kernel_trace.csv": hdr + krow("1", "a", 150, 160),
		"1_memory_copy_trace.csv": copyHdr +
			`"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,1,0,5,9` + "\n" +
			`"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,1,0,5x,9` + "\n" +
			`"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0` + "\n" +
			`"MEMORY_COPY_V2","MEMORY_COPY_HOST_TO_DEVICE",0,1,0,5,9` + "\n" +
			`"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,1,0,9,5` + "\n" +
			"\n",
		"1_marker_api_trace.csv": markHdr +
			`"MARKER_CORE_API","step",1,7,1,100,200` + "\n" +
			`"MARKER_CORE_API","mark",1,7,1,120,120` + "\n" +
			`"MARKER_CORE_API","step",1,7,1,300,250` + "\n" +
			`"MARKER_CORE_API","step",1,7,1,3x0,400` + "\n" +
			`"HIP_RUNTIME_API","hipLaunchKernel",1,7,1,100,200` + "\n",
		"1_hip_api_trace.csv": apiHdr + arow("hipLaunchKernel", 1, 140, 145) +
			`"HIP_RUNTIME_API_EXT","hipLaunchKernel",9,9,x,1,2` + "\n" +
			`"MARKER_CORE_API","step",9,9,3,1,2` + "\n",
	})
	r := readPath(t, filepath.Join(dir, "1_kernel_trace.csv"), "")
	checkSkips(t, r.c, []skipWant{
		{"copy lines", "start or end is not an integer", 1, lost, capture.SkippedInput},
		{"copy lines", "row does not parse", 1, lost, capture.SkippedInput},
		{"copy lines", "kind MEMORY_COPY_V2", 1, lost, capture.UnknownInput},
		{"copy lines", "end before start", 1, lost, capture.InvalidEvent},
		{"copy lines", "blank line", 1, host, ""},
		{"marker lines", "a mark, not a range (start = end)", 1, host, ""},
		{"marker lines", "range ends before it starts", 1, host, ""},
		{"marker lines", "thread id or time is not an integer", 1, host, ""},
		{"marker lines", "not a ROCTx range", 1, host, ""},
		{"API lines", "correlation id or time is not an integer", 1, host, ""},
		{"API lines", "not a HIP API row", 1, host, ""},
	})
	// The lost ranges are listed all the same: the capture is incomplete.
	if g := r.c.Accounting.Find(capture.SkippedInput); g == nil || g.Count != 4 {
		t.Errorf("skipped_input: got %s, want 4 items (2 copies, 2 ranges)", gapText(r.c))
	}

	// A side file without a needed column: its header line held no data,
	// and the file's loss is the failed_input gap.
	dir = writeFiles(t, map[string]string{"1_kernel_trace.csv": hdr + krow("1", "a", 150, 160), "1_memory_copy_trace.csv": `"Nothing","Useful"` + "\n" + `1,2` + "\n"})
	r = readPath(t, filepath.Join(dir, "1_kernel_trace.csv"), "")
	checkSkips(t, r.c, []skipWant{{"copy lines", "the header lacks a needed column", 1, host, ""}})
	if r.c.Accounting.CountOf(capture.FailedInput) != 1 {
		t.Errorf("want one failed_input gap, got:\n%s", gapText(r.c))
	}
}

// The ceiling is --max-duration's when given: a two-hour kernel is lost
// under the default hour and in the tables under a three-hour ceiling.
func TestCeilingFromOptions(t *testing.T) {
	const twoHours = 2 * 3600 * 1000000000
	data := hdr + krow("1", "a", 100, 200) + krow("2", "a", 1000, 1000+twoHours)
	for _, tc := range []struct {
		max  time.Duration
		want int
	}{{0, 1}, {3 * time.Hour, 2}, {time.Hour, 1}} {
		var col capture.Collect
		c, err := format.ReadInput(format.BytesInput("mem.csv", []byte(data)), Name, &format.Options{MaxDuration: tc.max}, &col)
		if err != nil {
			t.Fatal(err)
		}
		if len(col.Dispatches) != tc.want || (tc.want == 1) != (c.Accounting.CountOf(capture.InvalidEvent) == 1) {
			t.Errorf("--max-duration %v: got %d dispatches, want %d\n%s", tc.max, len(col.Dispatches), tc.want, gapText(c))
		}
	}
}
