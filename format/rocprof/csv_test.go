package rocprof

import (
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// csvSums is the independent computation: encoding/csv, columns looked up
// by header name, End-Start summed per Kernel_Name.
func csvSums(t *testing.T, path, nameCol, startCol, endCol string) (map[string]int64, map[string]int64) {
	t.Helper()
	recs := csvRecords(t, path)
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	ns, n := map[string]int64{}, map[string]int64{}
	for _, r := range recs[1:] {
		s, _ := strconv.ParseInt(r[col[startCol]], 10, 64)
		e, _ := strconv.ParseInt(r[col[endCol]], 10, 64)
		ns[r[col[nameCol]]] += e - s
		n[r[col[nameCol]]]++
	}
	return ns, n
}

func TestSamplesMatchCSVSums(t *testing.T) {
	for _, tc := range []struct {
		file       string
		rows       int
		generation string
	}{
		{"docs2025_kernel_trace.csv", 9, "current"},
		{"docs2025_kernel_trace_truncated.csv", 4, "current"},
		{"docs2024_kernel_trace.csv", 7, "2024"}, // and a blank last line
		{"prefill_kernel_trace.csv", 1128, "current"},
		{"decode_kernel_trace.csv", 144, "current"},
		{"v1_results.csv", 1004, "rocprof-v1"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := "testdata/" + tc.file
			r := readPath(t, path, "")
			if r.c.Source.Format != Name {
				t.Fatalf("got detected as %s, want %s", r.c.Source.Format, Name)
			}
			if len(r.disp) != tc.rows {
				t.Fatalf("%d dispatches, want %d:\n%s", len(r.disp), tc.rows, gapText(r.c))
			}
			if g := r.c.Inventory[0].Fields[0].Value; g != tc.generation {
				t.Errorf("generation %v, want %s", g, tc.generation)
			}
			nameCol, startCol, endCol := "Kernel_Name", "Start_Timestamp", "End_Timestamp"
			if tc.generation == "rocprof-v1" {
				nameCol, startCol, endCol = "KernelName", "BeginNs", "EndNs"
			}
			wantNS, wantN := csvSums(t, path, nameCol, startCol, endCol)
			gotNS, gotN := totals(r)
			if len(gotNS) != len(wantNS) {
				t.Fatalf("%d kernels, want %d", len(gotNS), len(wantNS))
			}
			for k, v := range wantNS {
				if gotNS[k] != v || gotN[k] != wantN[k] {
					t.Errorf("%s: %d ns in %d, want %d ns in %d", k, gotNS[k], gotN[k], v, wantN[k])
				}
			}
			in := r.c.Accounting.InputFor("lines")
			if in.Used != int64(tc.rows)+1 || in.Read-in.Used != in.SkippedTotal() {
				t.Errorf("got lines read %d used %d, want %d used and the rest skipped", in.Read, in.Used, tc.rows+1)
			}
		})
	}
}

// The legacy sample ships rocprof's own results.stats.csv. Its
// TotalDurationNs is the sum of DurationNs (= EndNs-BeginNs on every row of
// this file) per KernelName, so tally's totals agree exactly, and so do the
// call counts. Its AverageNs is that total divided by Calls, truncated to
// an integer (2608618986/1001 = 2606012.97 is printed 2606012): tally's
// mean keeps the fraction, a difference of under 1 ns.
func TestV1MatchesStatsFile(t *testing.T) {
	r := readPath(t, "testdata/v1_results.csv", "")
	gotNS, gotN := totals(r)
	for _, rec := range csvRecords(t, "testdata/v1_results.stats.csv")[1:] {
		calls, _ := strconv.ParseInt(rec[1], 10, 64)
		total, _ := strconv.ParseInt(rec[2], 10, 64)
		avg, _ := strconv.ParseInt(rec[3], 10, 64)
		if gotN[rec[0]] != calls || gotNS[rec[0]] != total {
			t.Errorf("%s: got %d calls %d ns, want the stats file's %d calls %d ns", rec[0], gotN[rec[0]], gotNS[rec[0]], calls, total)
		}
		if mean := float64(gotNS[rec[0]]) / float64(gotN[rec[0]]); mean-float64(avg) < 0 || mean-float64(avg) >= 1 {
			t.Errorf("%s: got mean %f, want within 1 ns above AverageNs %d", rec[0], mean, avg)
		}
	}
	if !r.c.Accounting.Complete() {
		t.Fatalf("complete sample: want complete, got:\n%s", gapText(r.c))
	}
	if r.c.Clock.Domain != "hsa-system" {
		t.Errorf("got clock %v, want hsa-system (v1)", r.c.Clock.Domain)
	}
}

func TestQueuesAndNames(t *testing.T) {
	r := readPath(t, "testdata/docs2024_kernel_trace.csv", "")
	// Two queues on agent 1 in the 2024 docs file; integer agent ids are
	// labelled, not parsed into something else.
	if len(r.c.Queues) < 2 || r.c.Queues[0].Device != "agent 1" || r.c.Queues[0].Name != "queue 1" {
		t.Fatalf("got queues %+v, want at least 2, agent 1 · queue 1 first", r.c.Queues)
	}
	r = readPath(t, "testdata/docs2025_kernel_trace.csv", "")
	if r.c.Queues[0].Device != "Agent 4" {
		t.Fatalf("got label agent %+v, want Agent 4", r.c.Queues[0])
	}
	// Truncated names (-T) stay as written: tally never merges by a
	// shortened name nor expands it.
	r = readPath(t, "testdata/docs2025_kernel_trace_truncated.csv", "")
	if r.c.Kernels[0].Name != "addition_kernel" {
		t.Fatalf("got kernel %q, want addition_kernel", r.c.Kernels[0].Name)
	}
	if len(r.c.Programs) != 1 || r.c.Programs[0].Name != wholeCapture {
		t.Fatalf("got programs %+v, want only %s", r.c.Programs, wholeCapture)
	}
}

const hdr = `"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"` + "\n"

func krow(dispatch, name string, start, end int) string {
	return `"KERNEL_DISPATCH","Agent 4",1,1,7,` + dispatch + `,3,"` + name + `",1,` + strconv.Itoa(start) + "," + strconv.Itoa(end) + "\n"
}

func TestColumnsByName(t *testing.T) {
	// The same data with the columns in another order.
	swapped := `"End_Timestamp","Kernel_Name","Start_Timestamp","Dispatch_Id","Queue_Id","Agent_Id","Kind"` + "\n" +
		`200,"a",100,1,1,"Agent 4","KERNEL_DISPATCH"` + "\n"
	r := readBytes(t, swapped)
	if len(r.disp) != 1 {
		t.Fatalf("got %d dispatches, want 1:\n%s", len(r.disp), gapText(r.c))
	}
	if d, _ := r.disp[0].Device.Duration(); d != 100 || r.c.Kernels[0].Name != "a" {
		t.Fatalf("got duration %d name %s, want 100 and a", d, r.c.Kernels[0].Name)
	}
	// Lower-case header names as rocpd convert has written.
	r = readBytes(t, strings.ToLower(swapped))
	if len(r.disp) != 1 {
		t.Fatalf("got %d dispatches, want 1:\n%s", len(r.disp), gapText(r.c))
	}
}

func TestGapRows(t *testing.T) {
	data := hdr +
		krow("1", "a", 100, 200) +
		krow("2", "b", 300, 250) + // end before start
		krow("1", "a", 400, 500) + // repeated dispatch id
		`"KERNEL_DISPATCH","Agent 4",1,1,7,3,3,"c",1,x,9` + "\n" + // does not parse
		`"KERNEL_DISPATCH","Agent 4",1` + "\n" + // too few fields
		"\n" +
		krow("4", "", 600, 700) + // no name
		krow("5", "a", 800, 900)
	r := readBytes(t, data)
	if len(r.disp) != 3 {
		t.Fatalf("got %d dispatches, want 3:\n%s", len(r.disp), gapText(r.c))
	}
	a := &r.c.Accounting
	inv := a.Find(capture.InvalidEvent)
	if inv == nil || inv.Count != 1 || inv.Items[0].Where != "line 3" || !strings.Contains(inv.Items[0].What, "end 250 before start 300") {
		t.Fatalf("reversed row: want one InvalidEvent at line 3 saying end 250 before start 300, got:\n%s", gapText(r.c))
	}
	dup := a.Find(capture.DuplicateDispatchID)
	if dup == nil || dup.Count != 1 || dup.Items[0].Where != "line 4" {
		t.Fatalf("duplicate: want one DuplicateDispatchID at line 4, got:\n%s", gapText(r.c))
	}
	bad := a.Find(capture.SkippedInput)
	if bad == nil || bad.Count != 2 || bad.Items[0].Where != "line 5" || bad.Items[1].Where != "line 6" {
		t.Fatalf("bad rows: want 2 SkippedInput items at lines 5 and 6, got:\n%s", gapText(r.c))
	}
	if un := a.Find(capture.UnresolvedName); un == nil || un.Items[0].Kernel != wholeCapture+":#3" {
		t.Fatalf("unnamed: want an UnresolvedName gap for %s:#3, got:\n%s", wholeCapture, gapText(r.c))
	}
	in := a.InputFor("lines")
	if in.Read != 9 || in.Used != 4 || in.SkippedTotal() != 5 {
		t.Fatalf("got lines %+v, want 9 read, 4 used, 5 skipped", in)
	}
	if a.Complete() {
		t.Fatal("got complete, want incomplete")
	}
	// Nothing swapped: the tables hold a's two rows and the unnamed one.
	ns, _ := totals(r)
	if ns["a"] != 200 {
		t.Fatalf("got %d ns for a, want 200", ns["a"])
	}
}

func TestEmptyAndOtherCSV(t *testing.T) {
	r := readBytes(t, hdr)
	g := r.c.Accounting.Find(capture.EmptyCapture)
	if g == nil || r.c.Accounting.Complete() || !strings.Contains(g.Summary, "only a header") {
		t.Fatalf("header only: want an incomplete capture with an EmptyCapture gap saying only a header, got:\n%s", gapText(r.c))
	}
	// Another domain's CSV: refused with what to give instead.
	_, err := readCSV(strings.NewReader(`"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"`+"\n"), "hip.csv", nil, 0)
	if err == nil || !strings.Contains(err.Error(), "hip.csv:1:") || !strings.Contains(err.Error(), "Kernel_Name") {
		t.Fatalf("got %v, want an error at hip.csv:1: naming Kernel_Name", err)
	}
	// Rows of another kind are skipped by reason, and lost: kernel_trace.csv
	// holds dispatches only, so such a row may be one under a new name.
	r = readBytes(t, hdr+strings.Replace(krow("1", "a", 1, 2), "KERNEL_DISPATCH", "MEMORY_COPY", 1)+krow("2", "a", 1, 2))
	if len(r.disp) != 1 || r.c.Accounting.InputFor("lines").Skipped[0].Reason != `kind "MEMORY_COPY"` || r.c.Accounting.CountOf(capture.UnknownInput) != 1 || r.c.Accounting.Complete() {
		t.Fatalf("got %d dispatches, want 1, a skipped MEMORY_COPY line, an UnknownInput gap and incomplete:\n%s", len(r.disp), gapText(r.c))
	}
}

func TestMultilineQuotedAndCRLF(t *testing.T) {
	data := strings.ReplaceAll(hdr+krow("1", "a", 1, 5)+krow("2", `x""y`, 2, 9), "\n", "\r\n") +
		`"KERNEL_DISPATCH","Agent 4",1,1,7,3,3,"two` + "\n" + `lines",1,10,20` + "\n"
	r := readBytes(t, data)
	if len(r.disp) != 3 {
		t.Fatalf("got %d dispatches, want 3:\n%s", len(r.disp), gapText(r.c))
	}
	if r.c.Kernels[1].Name != `x"y` || r.c.Kernels[2].Name != "two\nlines" {
		t.Fatalf("got names %q %q, want %q %q", r.c.Kernels[1].Name, r.c.Kernels[2].Name, `x"y`, "two\nlines")
	}
	if in := r.c.Accounting.InputFor("lines"); in.Read != 5 || in.Used != 5 {
		t.Fatalf("a record over two lines counts both: got %+v, want 5 read, 5 used", in)
	}
}

// Positions are physical lines, and an unterminated quote, which runs to
// the end of the file, counts every line it swallowed.
func TestLinesAfterMultilineRecord(t *testing.T) {
	data := hdr + `"KERNEL_DISPATCH","Agent 4",1,1,7,1,3,"two` + "\n" + `lines",1,10,20` + "\n" +
		krow("2", "a", 30, 20) + // reversed: reported at its physical line
		`"KERNEL_DISPATCH","Agent 4",1,1,7,3,3,"open,1,40,50` + "\n" +
		krow("4", "a", 60, 70) + krow("5", "a", 80, 90)
	r := readBytes(t, data)
	if len(r.disp) != 1 {
		t.Fatalf("got %d dispatches, want 1:\n%s", len(r.disp), gapText(r.c))
	}
	a := &r.c.Accounting
	if inv := a.Find(capture.InvalidEvent); inv == nil || inv.Items[0].Where != "line 4" {
		t.Fatalf("reversed row: want an InvalidEvent at line 4, got:\n%s", gapText(r.c))
	}
	if g := a.Find(capture.TruncatedInput); g == nil || g.Items[0].Where != "lines 5–7" {
		t.Fatalf("unterminated quote: want a TruncatedInput gap at lines 5–7, got:\n%s", gapText(r.c))
	}
	if in := a.InputFor("lines"); in.Read != 7 || in.Used != 3 || in.SkippedTotal() != 4 {
		t.Fatalf("got lines %+v, want 7 read, 3 used, 4 skipped", in)
	}
}

func TestCutCSV(t *testing.T) {
	data := fixture.Read(t, "testdata/decode_kernel_trace.csv")
	full := readBytes(t, string(data))
	if !full.c.Accounting.Complete() {
		t.Fatalf("whole file: want complete, got:\n%s", gapText(full.c))
	}
	// Cuts right after a row (the first, the last but one), then anywhere.
	header := strings.IndexByte(string(data), '\n') + 1
	offsets := []int{header + strings.IndexByte(string(data[header:]), '\n') + 1, strings.LastIndexByte(string(data[:len(data)-1]), '\n') + 1}
	for o := len(data) / 2; o < len(data)-1; o += 97 {
		offsets = append(offsets, o)
	}
	for _, o := range offsets {
		cut := data[:o]
		r := readBytes(t, string(cut))
		last := cut[strings.LastIndexByte(string(cut), '\n')+1:]
		if len(last) == 0 {
			// A cut at a row boundary is a shorter, valid file: complete,
			// but only up to its last row, and the report says so.
			if g := r.c.Accounting.Find(capture.NoEndMarker); !r.c.Accounting.Complete() || g == nil || !g.Note || r.c.Accounting.CutUnit != "row" {
				t.Fatalf("cut at a row boundary (%d): got %s, want complete with the no_end_marker note", o, gapText(r.c))
			}
			continue
		}
		if len(r.disp) >= len(full.disp) {
			t.Fatalf("cut at %d: got %d dispatches, want fewer than the whole file's %d", o, len(r.disp), len(full.disp))
		}
		// Inside the last column the row still parses: the note says so.
		if rec, err := csv.NewReader(strings.NewReader(string(last))).Read(); err == nil && len(rec) == 22 {
			if r.c.Accounting.Find(lastRowNoEOL) == nil {
				t.Fatalf("cut at %d in the last column: got no note, want the last-row-without-EOL note", o)
			}
			continue
		}
		if r.c.Accounting.Complete() || r.c.Accounting.Find(capture.TruncatedInput) == nil {
			t.Fatalf("cut at %d: got complete, want a TruncatedInput gap:\n%s", o, gapText(r.c))
		}
	}
}

// counter_collection.csv has one row per dispatch and counter: the first
// row of a dispatch is the dispatch, the other counters are skipped by
// reason, never reported as repeated dispatch ids.
func TestCounterCollection(t *testing.T) {
	h := `"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Id","Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Counter_Name","Counter_Value","Start_Timestamp","End_Timestamp"` + "\n"
	row := func(d, counter string, s, e int) string {
		return `1,` + d + `,"Agent 1",1,15606,15606,1048576,17,"k(float*)",64,0,0,8,0,16,"` + counter + `",1.0,` + strconv.Itoa(s) + "," + strconv.Itoa(e) + "\n"
	}
	r := readBytes(t, h+row("1", "SQ_WAVES", 10, 20)+row("1", "GRBM_COUNT", 10, 20)+row("2", "SQ_WAVES", 30, 45)+row("2", "GRBM_COUNT", 30, 45))
	if len(r.disp) != 2 || !r.c.Accounting.Complete() {
		t.Fatalf("got %d dispatches, want 2 and complete:\n%s", len(r.disp), gapText(r.c))
	}
	if ns, _ := totals(r); ns["k(float*)"] != 25 {
		t.Fatalf("got ns %v, want 25 for k(float*)", ns)
	}
	if in := r.c.Accounting.InputFor("lines"); in.Skipped[0].Reason != "another counter row of the same dispatch" || in.Skipped[0].Count != 2 {
		t.Fatalf("got skipped %+v, want 2 as another counter row of the same dispatch", in.Skipped[0])
	}
}

// A gzip file cut in the middle: the rows before are read, the cut is a
// truncation, not an error.
func TestCutGzipCSV(t *testing.T) {
	data := fixture.Read(t, "testdata/prefill_kernel_trace.csv")
	gz := fixture.Gzip(t, data)
	p := fixture.Write(t, t.TempDir(), "cut.csv.gz", gz[:len(gz)/2])
	r := readPath(t, p, "")
	if r.c.Accounting.Complete() || r.c.Accounting.Find(capture.TruncatedInput) == nil || len(r.disp) == 0 || len(r.disp) >= 1128 {
		t.Fatalf("got %d dispatches, want some but fewer than 1128, incomplete with a TruncatedInput gap:\n%s", len(r.disp), gapText(r.c))
	}
}

// With marker_api_trace.csv beside kernel_trace.csv, a dispatch's program
// is the outermost ROCTx range open on its thread (or a process-wide
// range, thread 0) when it started; marks (start = end) are not ranges.
func TestMarkerRanges(t *testing.T) {
	kernels := hdr +
		krow("1", "a", 150, 160) + // in step#1 and its inner range
		krow("2", "b", 250, 260) + // in step#2
		krow("3", "a", 450, 460) + // outside every thread-7 range, inside the process-wide one
		krow("4", "a", 950, 960) // outside all
	markers := apiHdr +
		`"MARKER_CORE_API","step#1",1,7,1,100,200` + "\n" +
		`"MARKER_CORE_API","inner",1,7,2,140,170` + "\n" +
		`"MARKER_CORE_API","step#2",1,7,3,240,300` + "\n" +
		`"MARKER_CORE_API","a mark",1,7,4,250,250` + "\n" +
		`"MARKER_CORE_API","phase",1,0,5,400,500` + "\n" +
		`"HIP_RUNTIME_API","hipLaunchKernel",1,7,6,0,1000` + "\n"
	dir := writeFiles(t, map[string]string{"9_kernel_trace.csv": kernels, "9_marker_api_trace.csv": markers})
	r := readPath(t, filepath.Join(dir, "9_kernel_trace.csv"), "")
	got := map[string]int{}
	for _, d := range r.disp {
		got[r.c.Programs[d.Program].Name]++
	}
	if got["step"] != 2 || got["phase"] != 1 || got[noMarker] != 1 || len(got) != 3 {
		t.Fatalf("got programs %v, want step 2, phase 1, %s 1", got, noMarker)
	}
	for _, p := range r.c.Programs {
		if p.Name == "step" && p.Instances != 2 {
			t.Errorf("step: got %d instances, want 2", p.Instances)
		}
	}
	if m := r.c.Accounting.InputFor("marker lines"); m.Read != 7 || m.Used != 5 || m.SkippedTotal() != 2 {
		t.Errorf("got marker lines %+v, want 7 read, 5 used, 2 skipped", m)
	}
	// Without the marker file: one program.
	os.Remove(filepath.Join(dir, "9_marker_api_trace.csv"))
	if r := readPath(t, filepath.Join(dir, "9_kernel_trace.csv"), ""); len(r.c.Programs) != 1 || r.c.Programs[0].Name != wholeCapture {
		t.Fatalf("without the marker file: got programs %+v, want only %s", r.c.Programs, wholeCapture)
	}
}

// The line buffer is the whole file where that is smaller than 1 MiB (4 KiB
// at least), and 1 MiB for a larger file or a stream of unknown size.
func TestCSVBuffer(t *testing.T) {
	for _, tc := range []struct {
		r    io.Reader
		want int
	}{
		{strings.NewReader("a,b\n"), 4096},
		{bytes.NewReader(make([]byte, 100_000)), 100_001},
		{bytes.NewReader(make([]byte, 3<<20)), 1 << 20},
		{io.MultiReader(strings.NewReader("a,b\n")), 1 << 20},
	} {
		if got := csvBuffer(tc.r); got != tc.want {
			t.Errorf("csvBuffer(%T) = %d, want %d", tc.r, got, tc.want)
		}
	}
}
