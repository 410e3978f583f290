package nsys

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/internal/gen/nsysgen"
)

// readPaths reads path once by the direct scans (where they apply) and once
// through SQL only, and says which tables the direct path read.
func readPaths(t *testing.T, path string) (direct, viaSQL result, merge, nvtx bool) {
	t.Helper()
	testHookDirect = func(m, n bool) { merge, nvtx = m, n }
	defer func() { testHookDirect = nil }()
	direct, viaSQL = readErr(t, path), result{}
	sqlOnly = true
	defer func() { sqlOnly = false }()
	m, n := merge, nvtx
	merge, nvtx = false, false
	viaSQL = readErr(t, path)
	if merge || nvtx {
		t.Fatalf("sqlOnly: got the direct path read (merge %v, NVTX %v), want neither", merge, nvtx)
	}
	return direct, viaSQL, m, n
}

// readErr reads path; an error is kept as the result's capture being nil
// and its text in disp's place (see sameResult).
func readErr(t *testing.T, path string) result {
	t.Helper()
	var col capture.Collect
	c, err := format.ReadFile(path, Name, nil, &col)
	if err != nil {
		return result{c: nil, disp: []capture.Dispatch{{Index: -7}}, err: err.Error()}
	}
	return result{c: c, disp: col.Dispatches}
}

// sameResult requires the two reads to agree in every dispatch, in order,
// and in the whole capture (accounting, gaps, inventory), or to fail alike.
func sameResult(t *testing.T, name string, a, b result) {
	t.Helper()
	if a.err != b.err {
		t.Fatalf("%s: got direct error %q, want the SQL path's %q", name, a.err, b.err)
	}
	if len(a.disp) != len(b.disp) {
		t.Fatalf("%s: got direct %d dispatches, want the SQL path's %d", name, len(a.disp), len(b.disp))
	}
	for i := range a.disp {
		if a.disp[i] != b.disp[i] {
			t.Fatalf("%s: dispatch %d: got direct %+v, want the SQL path's %+v", name, i, a.disp[i], b.disp[i])
		}
	}
	if !reflect.DeepEqual(a.c, b.c) {
		ja, _ := json.MarshalIndent(a.c, "", " ")
		jb, _ := json.MarshalIndent(b.c, "", " ")
		la, lb := strings.Split(string(ja), "\n"), strings.Split(string(jb), "\n")
		for i := 0; i < min(len(la), len(lb)); i++ {
			if la[i] != lb[i] {
				t.Fatalf("%s: captures differ at JSON line %d: got direct %s, want the SQL path's %s", name, i, la[i], lb[i])
			}
		}
		t.Fatalf("%s: captures differ: got %d JSON lines direct, want the SQL path's %d", name, len(la), len(lb))
	}
}

// TestDirectMatchesSQL: the direct scans and the SQL path give the same
// capture and the same dispatches in the same order, on the real sample
// and on generated exports with every gap the reader knows.
func TestDirectMatchesSQL(t *testing.T) {
	type tc struct {
		name        string
		path        string
		merge, nvtx bool // the direct path must have read these
	}
	cases := []tc{{"sample", sample, true, true}}
	for i, o := range []genOpts{
		{kernels: 250, nvtx: true},
		{kernels: 20, reversed: 1, nullName: 2, orphans: 3, unlaunched: 4, untimedRows: 1, outOfOrder: true, nodeGraph: 2, window: true},
		{kernels: 5, noKernels: true, graphs: 3, graphTrace: 2},
		{kernels: 3, extraTable: true},
		{kernels: 10, preSession: 4, untimedRows: 2, diagnostics: true, overhead: true},
		{kernels: 12, normalized: true, nvtx: true, graphs: 2},
	} {
		// genDB writes the inner NVTX ranges after all the outer ones: a
		// small table, sorted by the window all the same.
		cases = append(cases, tc{fmt.Sprintf("gen%d", i), genDB(t, o), true, o.nvtx})
	}
	gen := filepath.Join(t.TempDir(), "nsysgen.sqlite")
	if err := nsysgen.Write(gen, 3000); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, tc{"nsysgen", gen, true, true})
	// Repeats, NULL processes and ids, several processes interleaved and
	// rows out of order within a process.
	mixed := genDB(t, genOpts{kernels: 400, nodeGraph: 3, orphans: 2, nvtx: true})
	fixture.SQLite(t, mixed, nullableKernels...)
	fixture.SQLite(t, mixed, shuffled...)
	fixture.SQLite(t, mixed,
		`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET globalPid = globalPid + (1 << 24) WHERE correlationId % 3 = 0`,
		`UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = globalTid + (1 << 24) WHERE correlationId % 3 = 0`,
		`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET globalPid = NULL WHERE correlationId % 37 = 1`,
		`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET correlationId = NULL WHERE correlationId % 41 = 2`,
		`UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = NULL WHERE correlationId % 43 = 3`,
		`UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId = NULL WHERE correlationId % 47 = 4`,
		`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = NULL WHERE correlationId % 53 = 5`,
		`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId % 59 = 6`,
		`INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId % 61 = 7`,
		`INSERT INTO NVTX_EVENTS (start, end, eventType, textId, globalTid) VALUES (10000, 50000, 60, 2, `+itoa(gpid+1)+`), (10000, 50000, 59, NULL, `+itoa(gpid+2)+`), (60000, 50000, 59, NULL, `+itoa(gpid+3)+`), (70000, 80000, 34, NULL, `+itoa(gpid+3)+`), (70000, NULL, 59, NULL, `+itoa(gpid+3)+`)`,
	)
	cases = append(cases, tc{"mixed", mixed, true, true})
	for _, c := range cases {
		d, s, merge, nvtx := readPaths(t, c.path)
		if merge != c.merge || nvtx != c.nvtx {
			t.Errorf("%s: the direct path read merge %v NVTX %v, want %v %v", c.name, merge, nvtx, c.merge, c.nvtx)
		}
		sameResult(t, c.name, d, s)
	}

	// Rows at most 16 places out of order, two processes: a window
	// smaller than that fails the first pass, SQL sorts, and the result
	// is the same; a window large enough sorts them.
	near := filepath.Join(t.TempDir(), "near.sqlite")
	if err := nsysgen.Write(near, 2000); err != nil {
		t.Fatal(err)
	}
	fixture.SQLite(t, near, shuffled...)
	fixture.SQLite(t, near,
		`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET globalPid = globalPid + (1 << 24) WHERE correlationId % 3 = 0`,
		`UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = globalTid + (1 << 24) WHERE correlationId % 3 = 0`)
	defer func(w int) { sortWindow = w }(sortWindow)
	for _, w := range []int{4, 64} {
		sortWindow = w
		d, s, merge, _ := readPaths(t, near)
		if merge != (w == 64) {
			t.Errorf("rows 16 places out of order, window %d: direct path %v, want %v", w, merge, w == 64)
		}
		sameResult(t, fmt.Sprintf("near, window %d", w), d, s)
	}
}

// shuffled rewrites the kernel and runtime tables in another row order:
// rows permuted within blocks of 16 (as kernels of several streams come
// out of launch order), the table still the same set of rows.
var shuffled = []string{
	`CREATE TABLE k_tmp AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE 0`,
	`INSERT INTO k_tmp SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid / 16, (rowid * 7) % 16`,
	`DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL`,
	`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM k_tmp ORDER BY rowid`,
	`DROP TABLE k_tmp`,
	`CREATE TABLE r_tmp AS SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE 0`,
	`INSERT INTO r_tmp SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY rowid / 16, (rowid * 5) % 16`,
	`DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME`,
	`INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT * FROM r_tmp ORDER BY rowid`,
	`DROP TABLE r_tmp`,
}

// TestMutatedDirectMatchesSQL: on randomly damaged exports the two paths
// end alike — the same capture and dispatches, or the same error: the
// direct scans never read a page SQLite refuses (they leave it to SQL).
// TALLY_NSYS_MUTATIONS sets the count (200).
func TestMutatedDirectMatchesSQL(t *testing.T) {
	data := fixture.Read(t, genDB(t, genOpts{kernels: 40, nvtx: true, graphs: 1, orphans: 2}))
	mutations := 200
	if n, err := strconv.Atoi(os.Getenv("TALLY_NSYS_MUTATIONS")); err == nil {
		mutations = n
	}
	rng := rand.New(rand.NewSource(3))
	p := filepath.Join(t.TempDir(), "m.sqlite")
	both := 0
	for i := 0; i < mutations; i++ {
		d := append([]byte(nil), data...)
		for range 1 + rng.Intn(8) {
			d[4096+rng.Intn(len(d)-4096)] = byte(rng.Intn(256)) // past page 1, the schema
		}
		if err := os.WriteFile(p, d, 0o644); err != nil {
			t.Fatal(err)
		}
		a, b, _, _ := readPaths(t, p)
		sameResult(t, fmt.Sprintf("mutation %d", i), a, b)
		if a.err == "" {
			both++
		}
	}
	if both < mutations/4 {
		t.Errorf("got %d of %d mutated files read, want at least %d: the test compares too little", both, mutations, mutations/4)
	}
}

// TestTrimVersion: the written-out suffix rule is the regexp `_v\d+$`.
func TestTrimVersion(t *testing.T) {
	re := regexp.MustCompile(`_v\d+$`)
	for _, s := range []string{"cudaLaunchKernel_v7000", "cuLaunchKernel", "cudaMemcpyAsync_v3020", "x_v", "_v1", "a_v12b", "a_vv1", "v12", "", "a__v0", "cudaGraphLaunch_v10000_v2"} {
		if got, want := trimVersion(s), re.ReplaceAllString(s, ""); got != want {
			t.Errorf("trimVersion(%q): got %q, want %q", s, got, want)
		}
	}
}
