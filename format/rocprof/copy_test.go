package rocprof

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
)

func TestMemoryCopyCSV(t *testing.T) {
	for _, tc := range []struct {
		kernels, copies, src string
	}{
		{"docs2025_kernel_trace.csv", "memory_copy_trace.docs2025.csv", "Agent 0"},
		{"docs2024_kernel_trace.csv", "memory_copy_trace.docs2024.csv", "agent 0"}, // integer agents, no Stream_Id
	} {
		kt := fixture.Read(t, "testdata/"+tc.kernels)
		mc := fixture.Read(t, "testdata/"+tc.copies)
		dir := writeFiles(t, map[string]string{"1_kernel_trace.csv": string(kt), "1_memory_copy_trace.csv": string(mc)})
		r := readPath(t, filepath.Join(dir, "1_kernel_trace.csv"), "")
		// Independent: encoding/csv sums per Direction.
		wantNS, wantN := csvSums(t, filepath.Join(dir, "1_memory_copy_trace.csv"), "Direction", "Start_Timestamp", "End_Timestamp")
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
			// Copies are on the GPU agent's queue, both ways: the host
			// (tc.src, the first copy's source) is no device.
			if q := r.c.Queues[d.Queue]; q.Device == tc.src || (q.Name != "copies from "+tc.src && q.Name != "copies to "+tc.src) {
				t.Errorf("%s: got queue %+v, want the GPU agent's, copying from or to %s", tc.copies, q, tc.src)
			}
		}
		if len(gotNS) != len(wantNS) {
			t.Fatalf("%s: %v, want %v", tc.copies, gotN, wantN)
		}
		for dir, v := range wantNS {
			k := "memory copy " + dir
			if gotNS[k] != v || gotN[k] != wantN[dir] {
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
			t.Errorf("got copy lines %+v, want every line of 1_memory_copy_trace.csv read and used", in)
		}
		if kernels == 0 || r.c.Accounting.Find(capture.EmptyCapture) != nil {
			t.Errorf("got %d kernels, want some and no EmptyCapture gap:\n%s", kernels, gapText(r.c))
		}
	}
	// Negative arms: a copy file whose header lacks Direction is named and
	// not read; a copy with end before start is kept out, never swapped.
	dir := writeFiles(t, map[string]string{"kernel_trace.csv": hdr + krow("1", "a", 1, 2), "memory_copy_trace.csv": "Kind,Start_Timestamp\n"})
	r := readPath(t, filepath.Join(dir, "kernel_trace.csv"), "")
	if len(r.disp) != 1 || !strings.Contains(fmt.Sprint(r.c.Inventory[0].Fields), "no direction column") {
		t.Errorf("bad copy header: got %d dispatches, %v; want 1 and a note of no direction column", len(r.disp), r.c.Inventory[0].Fields)
	}
	copyHdr := `"Kind","Direction","Stream_Id","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"` + "\n"
	dir = writeFiles(t, map[string]string{"kernel_trace.csv": hdr + krow("1", "a", 1, 2), "memory_copy_trace.csv": copyHdr +
		`"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,"Agent 0","Agent 4",1,500,400` + "\n" +
		`"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,"Agent 0","Agent 4",1,x,400` + "\n"})
	r = readPath(t, filepath.Join(dir, "kernel_trace.csv"), "")
	g := r.c.Accounting.Find(capture.InvalidEvent)
	if len(r.disp) != 1 || g == nil || g.Items[0].Where != "memory_copy_trace.csv line 2" {
		t.Errorf("reversed copy: got %d dispatches, want 1 and an InvalidEvent at memory_copy_trace.csv line 2:\n%s", len(r.disp), gapText(r.c))
	}
	if in := r.c.Accounting.InputFor("copy lines"); in.Read != 3 || in.Used != 1 || in.SkippedTotal() != 2 {
		t.Errorf("got copy lines %+v, want 3 read, 1 used, 2 skipped", in)
	}
}

func TestRocpdMemoryCopies(t *testing.T) {
	s := runSuffix
	path := genRocpd(t,
		`INSERT INTO rocpd_string`+s+` VALUES (8, 'g1', 'MEMORY_COPY_HOST_TO_DEVICE'), (9, 'g1', 'MEMORY_COPY_DEVICE_TO_HOST'), (10, 'g1', 'hipMemcpyAsync')`,
		`INSERT INTO rocpd_info_agent`+s+` VALUES (1, 'g1', 1, 1, 'CPU', 0, 0, 0, '', 'cpu', '', 'AMD', 'EPYC', '')`,
		`CREATE TABLE rocpd_memory_copy`+s+` (id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, start INTEGER, end INTEGER, name_id INTEGER, dst_agent_id INTEGER, src_agent_id INTEGER, size INTEGER, queue_id INTEGER, stream_id INTEGER, region_name_id INTEGER, event_id INTEGER, extdata TEXT)`,
		// Copies 1..6 alternate direction; copy 6 has no end; copy 1's
		// event (stack_id 500) is a hipMemcpyAsync call.
		`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 6) INSERT INTO rocpd_memory_copy`+s+
			` SELECT i, 'g1', 1, 1, 500000+1000*i, CASE WHEN i = 6 THEN NULL ELSE 500000+1000*i+10*i END, 8 + i%2, CASE WHEN i%2 = 0 THEN 2 ELSE 1 END, CASE WHEN i%2 = 0 THEN 1 ELSE 2 END, 4096, 0, 0, 0, 2000+i, '{}' FROM c`,
		`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 6) INSERT INTO rocpd_event`+s+` SELECT 2000+i, 'g1', 1, 499+i, 0, 0, '', '', '{}' FROM c`,
		`INSERT INTO rocpd_event`+s+` VALUES (3000, 'g1', 6, 500, 0, 0, '', '', '{}')`,
		`INSERT INTO rocpd_region`+s+` VALUES (50, 'g1', 1, 1, 1, 499000, 499500, 10, 3000, '{}')`,
	)
	r := readPath(t, path, "")
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := map[string][2]int64{}
	rows, err := db.Query(`SELECT 'memory copy ' || s.string, sum(m."end" - m.start), count(*) FROM rocpd_memory_copy` + s + ` m JOIN rocpd_string` + s + ` s ON s.id = m.name_id WHERE m."end" IS NOT NULL GROUP BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		var ns, c int64
		if err := rows.Scan(&n, &ns, &c); err != nil {
			t.Fatal(err)
		}
		want[n] = [2]int64{ns, c}
	}
	rows.Close()
	got := map[string][2]int64{}
	for _, d := range r.disp {
		k := r.c.Kernels[d.Kernel]
		if k.Category != "memcpy" {
			continue
		}
		dur, _ := d.Device.Duration()
		v := got[k.Name]
		got[k.Name] = [2]int64{v[0] + dur, v[1] + 1}
		q := r.c.Queues[d.Queue]
		// A copy to the host is on the GPU it copies from: the host is no
		// device (--program-by).
		if k.Name == "memory copy MEMORY_COPY_DEVICE_TO_HOST" && (q.Device != "agent 2 (gfx942)" || q.Name != "copies to agent 0 (cpu)") {
			t.Errorf("got queue %+v, want agent 2 (gfx942)'s copies to agent 0 (cpu)", q)
		}
		if d.Device.Begin == 501000 && (!d.Launch.Valid || d.Launch.Begin != 499000) {
			t.Errorf("copy 1: got launch %+v, want one at 499000", d.Launch)
		}
	}
	if len(want) != 2 || len(got) != len(want) {
		t.Fatalf("got copies %v, want the SQL's %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %v, want the SQL's %v", k, got[k], v)
		}
	}
	if in := r.c.Accounting.InputFor("copy rows"); in.Read != 6 || in.Used != 5 || in.SkippedTotal() != 1 {
		t.Errorf("got copy rows %+v, want 6 read, 5 used, 1 skipped", in)
	}
	// Kernel dispatches unchanged (90). With an API trace present (the one
	// hipMemcpyAsync region), the 90 kernels have no call: counted; the
	// four copies without a call are not (the gaps concern kernels).
	if n := len(r.disp) - 5; n != 90 || r.c.Accounting.CountOf(capture.GPUEventWithoutLaunch) != 90 {
		t.Errorf("got %d kernel dispatches, want 90, all GPU events without launch:\n%s", n, gapText(r.c))
	}
}

// A side-file row that does not parse held a copy, a launch or a marker
// range that is lost (a lost range moves its dispatches to another
// program): each is listed in skipped_input, so the capture is not complete.
func TestBadSideRowsAreGaps(t *testing.T) {
	copyHdr := `"Kind","Direction","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"` + "\n"
	markHdr := `"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"` + "\n"
	for name, side := range map[string][2]string{
		"copy not an integer": {"1_memory_copy_trace.csv", copyHdr + `"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,1,0,5x,9` + "\n"},
		"copy short row":      {"1_memory_copy_trace.csv", copyHdr + `"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0` + "\n"},
		"range reversed":      {"1_marker_api_trace.csv", markHdr + `"MARKER_CORE_API","step",1,7,1,200,100` + "\n"},
		"range not integer":   {"1_marker_api_trace.csv", markHdr + `"MARKER_CORE_API","step",1,7,1,1x0,200` + "\n"},
	} {
		dir := writeFiles(t, map[string]string{"1_kernel_trace.csv": hdr + krow("1", "a", 150, 160), side[0]: side[1]})
		r := readPath(t, filepath.Join(dir, "1_kernel_trace.csv"), "")
		g := r.c.Accounting.Find(capture.SkippedInput)
		if g == nil || r.c.Accounting.Complete() || !strings.HasPrefix(g.Items[0].Where, side[0]+" line 2") {
			t.Errorf("%s: want an incomplete capture with a SkippedInput gap at %s line 2, got:\n%s", name, side[0], gapText(r.c))
		}
	}
}

// A copy or marker file beside kernel_trace.csv that cannot be read (here:
// a header without a needed column) loses its copies or ranges: a
// failed_input gap names it, so the capture is not complete.
func TestUnreadSideFileIsGap(t *testing.T) {
	for _, name := range []string{"1_memory_copy_trace.csv", "1_marker_api_trace.csv"} {
		dir := writeFiles(t, map[string]string{"1_kernel_trace.csv": hdr + krow("1", "a", 150, 160), name: `"Nothing","Useful"` + "\n" + `1,2` + "\n"})
		r := readPath(t, filepath.Join(dir, "1_kernel_trace.csv"), "")
		g := r.c.Accounting.Find(capture.FailedInput)
		if g == nil || r.c.Accounting.Complete() || filepath.Base(g.Items[0].Where) != name {
			t.Errorf("%s: want an incomplete capture with a FailedInput gap naming it, got:\n%s", name, gapText(r.c))
		}
	}
}
