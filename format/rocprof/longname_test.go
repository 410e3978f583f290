package rocprof

import (
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/internal/testfile"
)

// A 32 MiB kernel name in rocprofv3 JSON reaches encoding/json cut to
// capture.MaxName (format/internal/jsoncap): memory stays bounded, the
// cut is in the long_name note, and every byte is still accounted for.
func TestJSONHugeName(t *testing.T) {
	const n = 32 << 20
	at := strings.Index(miniJSON, `"formatted_kernel_name": "k"`) + len(`"formatted_kernel_name": "`)
	input := func() io.Reader {
		return io.MultiReader(strings.NewReader(miniJSON[:at]), fixture.Repeat('k', n), strings.NewReader(miniJSON[at+1:]))
	}
	readJSON(input(), "warm.json", nil, 0)
	var col capture.Collect
	var c *capture.Capture
	var err error
	got := testfile.Allocated(func() { c, err = readJSON(input(), "huge.json", &col, 0) })
	if err != nil {
		t.Fatal(err)
	}
	if got > 8<<20 {
		t.Errorf("reading a %d-byte name allocated %d bytes, want under 8 MiB", n, got)
	}
	checkModel(t, c, col.Dispatches)
	if len(col.Dispatches) != 2 {
		t.Fatalf("%d dispatches, want 2 (as without the long name)", len(col.Dispatches))
	}
	name := c.Kernels[col.Dispatches[0].Kernel].Name
	if len(name) > capture.MaxName || !strings.HasPrefix(name, "kkkk") || !strings.HasSuffix(name, "…[truncated from "+strconv.Itoa(n)+" bytes]") {
		t.Errorf("kernel name of %d bytes ending %q, want at most %d ending with the marker", len(name), name[max(0, len(name)-40):], capture.MaxName)
	}
	g := c.Accounting.Find(capture.LongName)
	if g == nil || g.Count != 1 || !strings.HasPrefix(g.Items[0].Where, "byte ") {
		t.Fatalf("long_name gap %+v, want one cut with its byte offset", g)
	}
	if in := c.Accounting.InputFor("bytes"); in.Read != int64(len(miniJSON)-1+n) || in.Used != in.Read {
		t.Errorf("bytes %+v, want %d read and all used", in, len(miniJSON)-1+n)
	}
}

const csvHeader = `"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"` + "\n"

func csvRow(id int, name string) string {
	return `"KERNEL_DISPATCH","Agent 4",1,1,834304,` + strconv.Itoa(id) + `,10,"` + name + `",` + strconv.Itoa(id) + `,` + strconv.Itoa(1000+10*id) + `,` + strconv.Itoa(1005+10*id) + ",0,0,8,0,16,64,1,1,1024,1024,1\n"
}

// A name longer than capture.MaxName in a CSV row: the row is read, the
// name cut once per kernel (three rows, one long_name count), and the
// map that interns names holds the cut name, not the full one.
func TestCSVLongName(t *testing.T) {
	long := "void k<" + strings.Repeat("T, ", capture.MaxName) + ">()"
	r := readBytes(t, csvHeader+csvRow(1, long)+csvRow(2, long)+csvRow(3, "short")+csvRow(4, long))
	if len(r.disp) != 4 {
		t.Fatalf("%d dispatches, want 4\n%s", len(r.disp), gapText(r.c))
	}
	if r.disp[0].Kernel != r.disp[1].Kernel || r.disp[0].Kernel != r.disp[3].Kernel || len(r.c.Kernels) != 2 {
		t.Errorf("the long name's rows are %d kernels (of %d), want one", len(r.c.Kernels)-1, len(r.c.Kernels))
	}
	if name := r.c.Kernels[r.disp[0].Kernel].Name; len(name) > capture.MaxName || !strings.HasSuffix(name, "…[truncated from "+strconv.Itoa(len(long))+" bytes]") {
		t.Errorf("kernel name of %d bytes ending %q, want at most %d ending with the marker", len(name), name[max(0, len(name)-40):], capture.MaxName)
	}
	if g := r.c.Accounting.Find(capture.LongName); g == nil || g.Count != 1 {
		t.Errorf("long_name %+v, want one cut (one kernel)", g)
	}
	if !r.c.Accounting.Complete() {
		t.Errorf("incomplete, want complete:\n%s", gapText(r.c))
	}
}

// qLines is lines of 1023 'q's, without end.
type qLines struct{ n int }

func (q *qLines) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'q'
		if q.n++; q.n%1024 == 0 {
			p[i] = '\n'
		}
	}
	return len(p), nil
}

// A row longer than maxRecord (a 32 MiB name), and a quote that never
// closes, are read to their end in bounded memory and skipped, stated.
func TestCSVHugeRowBounded(t *testing.T) {
	const n = 32 << 20
	at := strings.Index(csvRow(1, "X"), "X")
	row := csvRow(1, "X")
	for _, tc := range []struct {
		name string
		in   func() io.Reader
		disp int
	}{
		{"huge name", func() io.Reader {
			return io.MultiReader(strings.NewReader(csvHeader+csvRow(7, "before")+row[:at]), fixture.Repeat('k', n),
				strings.NewReader(row[at+1:]+csvRow(8, "after")))
		}, 2},
		{"open quote", func() io.Reader {
			return io.MultiReader(strings.NewReader(csvHeader+csvRow(7, "before")+row[:at]), io.LimitReader(&qLines{}, n))
		}, 1},
	} {
		readCSV(tc.in(), "warm.csv", nil, 0)
		var col capture.Collect
		var c *capture.Capture
		var err error
		got := testfile.Allocated(func() { c, err = readCSV(tc.in(), "huge.csv", &col, 0) })
		if err != nil {
			t.Fatalf("%s: got error %v, want none", tc.name, err)
		}
		if got > 24<<20 {
			t.Errorf("%s: reading a %d-byte row allocated %d bytes, want under 24 MiB", tc.name, n, got)
		}
		checkModel(t, c, col.Dispatches)
		if len(col.Dispatches) != tc.disp {
			t.Errorf("%s: %d dispatches, want %d\n%s", tc.name, len(col.Dispatches), tc.disp, gapText(c))
		}
		g := c.Accounting.Find(capture.SkippedInput)
		if g == nil || !strings.Contains(g.Items[0].What, "longer than the 4 MiB") {
			t.Errorf("%s: skipped_input %+v, want the long row", tc.name, g)
		}
		if err := c.Accounting.CheckValid(); err != nil {
			t.Errorf("%s: got CheckValid error %v, want none", tc.name, err)
		}
	}
}

// A side file's line longer than maxRecord is read to its end without
// keeping it, counted and skipped; the lines around it are read.
func TestSideFileLongLine(t *testing.T) {
	api := apiHdr + arow("hipLaunchKernel", 1, 1000, 1300) + arow("hipLaunchKernel"+strings.Repeat("x", maxRecord+10), 2, 2000, 2300) + arow("hipLaunchKernel", 3, 3000, 3300)
	kt := hdr + crow(1, 1, 1500, 1600) + crow(2, 3, 3500, 3600)
	dir := writeFiles(t, map[string]string{"5_kernel_trace.csv": kt, "5_hip_api_trace.csv": api})
	r := readPath(t, filepath.Join(dir, "5_kernel_trace.csv"), "")
	in := r.c.Accounting.InputFor("API lines")
	if in.Read != 4 || in.Used != 3 || in.SkippedTotal() != 1 || in.Skipped[0].Reason != "line longer than 4 MiB" {
		t.Errorf("API lines %+v, want 4 read, 3 used, 1 skipped as too long", in)
	}
	for _, d := range r.disp {
		if d.Link != capture.LinkLaunched {
			t.Errorf("dispatch link %v, want launched (the lines around the long one are read)", d.Link)
		}
	}
}
