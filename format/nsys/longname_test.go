package nsys

import (
	"database/sql"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// A StringIds kernel name and an NVTX range name longer than
// capture.MaxName are cut once each (long_name), and the capture stays
// valid: the program the range names is found by its cut name.
func TestLongNames(t *testing.T) {
	path := genDB(t, genOpts{kernels: 200, nvtx: true})
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	long := "kernel_0<" + strings.Repeat("float, ", capture.MaxName/7+10) + ">(float*)"
	step := "step" + strings.Repeat("s", 2*capture.MaxName) + "#0"
	for _, q := range []struct {
		q    string
		args []any
	}{{`UPDATE StringIds SET value = ? WHERE id = 10`, []any{long}}, {`UPDATE NVTX_EVENTS SET text = ? WHERE text = 'step#0'`, []any{step}}} {
		if _, err := db.Exec(q.q, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	r := readPath(t, path)
	var got []string
	for _, k := range r.c.Kernels {
		if strings.HasPrefix(k.Name, "kernel_0<float, ") {
			got = append(got, k.Name)
		}
	}
	marker := "…[truncated from " + strconv.Itoa(len(long)) + " bytes]"
	if len(got) == 0 || len(got[0]) > capture.MaxName || !strings.HasSuffix(got[0], marker) {
		t.Fatalf("long kernel names %d, want cut to at most %d bytes and marked %q", len(got), capture.MaxName, marker)
	}
	var prog string
	for _, p := range r.c.Programs {
		if strings.HasPrefix(p.Name, "stepsss") {
			prog = p.Name
		}
	}
	if len(prog) > capture.MaxName || !strings.HasSuffix(prog, " bytes]") {
		t.Errorf("NVTX program name of %d bytes, want cut to at most %d", len(prog), capture.MaxName)
	}
	if g := r.c.Accounting.Find(capture.LongName); g == nil || g.Count != 2 {
		t.Errorf("long_name %+v, want 2 cuts (the kernel name, the range name)", g)
	}
}
