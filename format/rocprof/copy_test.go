package rocprof

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// copySums is the independent computation: encoding/csv over the copy
// file, End-Start summed per Direction.
func copySums(t *testing.T, path string) (map[string]int64, map[string]int64) {
	t.Helper()
	recs := csvRecords(t, path)
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	ns, n := map[string]int64{}, map[string]int64{}
	for _, r := range recs[1:] {
		s, _ := strconv.ParseInt(r[col["Start_Timestamp"]], 10, 64)
		e, _ := strconv.ParseInt(r[col["End_Timestamp"]], 10, 64)
		ns["memory copy "+r[col["Direction"]]] += e - s
		n["memory copy "+r[col["Direction"]]]++
	}
	return ns, n
}

func TestMemoryCopyCSV(t *testing.T) {
	for _, tc := range []struct {
		kernels, copies, src string
	}{
		{"docs2025_kernel_trace.csv", "memory_copy_trace.docs2025.csv", "Agent 0"},
		{"docs2024_kernel_trace.csv", "memory_copy_trace.docs2024.csv", "agent 0"}, // integer agents, no Stream_Id
	} {
		kt, err := os.ReadFile("testdata/" + tc.kernels)
		if err != nil {
			t.Fatal(err)
		}
		mc, err := os.ReadFile("testdata/" + tc.copies)
		if err != nil {
			t.Fatal(err)
		}
		dir := writeFiles(t, map[string]string{"1_kernel_trace.csv": string(kt), "1_memory_copy_trace.csv": string(mc)})
		r := readPath(t, filepath.Join(dir, "1_kernel_trace.csv"), "")
		wantNS, wantN := copySums(t, filepath.Join(dir, "1_memory_copy_trace.csv"))
		gotNS, gotN := map[string]int64{}, map[string]int64{}
		kernels := 0
		for _, d := range r.disp {
			k := r.c.Kernels[d.Kernel]
			if k.Category != "memcpy" {
				kernels++
				continue
			}
			dur, _ := d.Device.Duration()
			gotNS[k.Name] += dur
			gotN[k.Name]++
			if q := r.c.Queues[d.Queue]; q.Name != "copies from "+tc.src && q.Device != tc.src {
				t.Errorf("%s: queue %+v", tc.copies, q)
			}
		}
		if len(gotNS) != len(wantNS) {
			t.Fatalf("%s: %v, want %v", tc.copies, gotN, wantN)
		}
		for k, v := range wantNS {
			if gotNS[k] != v || gotN[k] != wantN[k] {
				t.Errorf("%s: %d ns in %d, want %d in %d", k, gotNS[k], gotN[k], v, wantN[k])
			}
		}
		// The kernel rows are unchanged, and the copy lines accounted.
		kns, _ := csvSums(t, filepath.Join(dir, "1_kernel_trace.csv"), "Kernel_Name", "Start_Timestamp", "End_Timestamp")
		all, _ := totals(r)
		for k, v := range kns {
			if all[k] != v {
				t.Errorf("kernel %s: %d, want %d", k, all[k], v)
			}
		}
		in := r.c.Accounting.InputFor("copy lines")
		if in.Used != int64(len(csvRecords(t, filepath.Join(dir, "1_memory_copy_trace.csv")))) || in.Read != in.Used {
			t.Errorf("copy lines %+v", in)
		}
		if kernels == 0 || r.c.Accounting.Find(capture.EmptyCapture) != nil {
			t.Errorf("kernels %d\n%s", kernels, gapText(r.c))
		}
	}
	// Negative arms: a copy file whose header lacks Direction is named and
	// not read; a copy with end before start is kept out, never swapped.
	dir := writeFiles(t, map[string]string{"kernel_trace.csv": hdr + krow("1", "a", 1, 2), "memory_copy_trace.csv": "Kind,Start_Timestamp\n"})
	r := readPath(t, filepath.Join(dir, "kernel_trace.csv"), "")
	if len(r.disp) != 1 || !strings.Contains(fmt.Sprint(r.c.Inventory[0].Fields), "no direction column") {
		t.Errorf("bad copy header: %d dispatches, %v", len(r.disp), r.c.Inventory[0].Fields)
	}
	copyHdr := `"Kind","Direction","Stream_Id","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"` + "\n"
	dir = writeFiles(t, map[string]string{"kernel_trace.csv": hdr + krow("1", "a", 1, 2), "memory_copy_trace.csv": copyHdr +
		`"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,"Agent 0","Agent 4",1,500,400` + "\n" +
		`"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,"Agent 0","Agent 4",1,x,400` + "\n"})
	r = readPath(t, filepath.Join(dir, "kernel_trace.csv"), "")
	g := r.c.Accounting.Find(capture.InvalidEvent)
	if len(r.disp) != 1 || g == nil || g.Items[0].Where != "memory_copy_trace.csv line 2" {
		t.Errorf("reversed copy:\n%s", gapText(r.c))
	}
	if in := r.c.Accounting.InputFor("copy lines"); in.Read != 3 || in.Used != 1 || in.SkippedTotal() != 2 {
		t.Errorf("copy lines %+v", in)
	}
}
