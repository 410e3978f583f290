package rocprof

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
	_ "github.com/tallyprof/tally/format/nsys"
)

const runSuffix = "_0000ddb5_8903_7903_b269_cd8d3745bb8a"

// genRocpd writes a small rocpd database shaped like rocprofv3's schema 3:
// physical tables with the run's uuid suffix, plain-name views over them,
// and the INNER JOIN convenience view "kernels" of data_views.sql. No
// public rocpd sample exists (shared/data/rocprof/PROVENANCE.md).
func genRocpd(t testing.TB, extra ...string) string {
	t.Helper()
	s := runSuffix
	stmts := []string{
		`CREATE TABLE rocpd_metadata` + s + ` (id INTEGER PRIMARY KEY, tag TEXT, value TEXT)`,
		`INSERT INTO rocpd_metadata` + s + ` VALUES (1, 'schema_version', '3'), (2, 'uuid', '` + s + `'), (3, 'guid', 'g1')`,
		`CREATE TABLE rocpd_string` + s + ` (id INTEGER, guid TEXT, string TEXT)`,
		`INSERT INTO rocpd_string` + s + ` VALUES (1, 'g1', 'KERNEL_DISPATCH'), (2, 'g1', 'MARKER_CORE_API'), (3, 'g1', 'step#1'), (4, 'g1', 'step#2'), (5, 'g1', 'inner'), (6, 'g1', 'HIP_RUNTIME_API'), (7, 'g1', 'hipLaunchKernel')`,
		`CREATE TABLE rocpd_info_agent` + s + ` (id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, type TEXT, absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, uuid TEXT, name TEXT, model_name TEXT, vendor_name TEXT, product_name TEXT, user_name TEXT)`,
		`INSERT INTO rocpd_info_agent` + s + ` VALUES (2, 'g1', 1, 1, 'GPU', 2, 2, 0, '', 'gfx942', '', 'AMD', 'MI300X', '')`,
		`CREATE TABLE rocpd_info_queue` + s + ` (id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, name TEXT, extdata TEXT)`,
		`INSERT INTO rocpd_info_queue` + s + ` VALUES (1, 'g1', 1, 1, 'q1', '{}'), (2, 'g1', 1, 1, 'q2', '{}')`,
		`CREATE TABLE rocpd_info_thread` + s + ` (id INTEGER, guid TEXT, nid INTEGER, ppid INTEGER, pid INTEGER, tid INTEGER, name TEXT, start INTEGER, end INTEGER)`,
		`INSERT INTO rocpd_info_thread` + s + ` VALUES (1, 'g1', 1, 0, 1, 4242, 'main', 0, 0)`,
		`CREATE TABLE rocpd_info_kernel_symbol` + s + ` (id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, code_object_id INTEGER, kernel_name TEXT, display_name TEXT, kernel_object INTEGER)`,
		`INSERT INTO rocpd_info_kernel_symbol` + s + ` VALUES (10, 'g1', 1, 1, 1, '_Z3addPf.kd', 'add(float*)', 0), (11, 'g1', 1, 1, 1, '_Z3mulPf.kd', 'mul(float*)', 0)`,
		`CREATE TABLE rocpd_event` + s + ` (id INTEGER, guid TEXT, category_id INTEGER, stack_id INTEGER, parent_stack_id INTEGER, correlation_id INTEGER, call_stack TEXT, line_info TEXT, extdata TEXT)`,
		`CREATE TABLE rocpd_region` + s + ` (id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, tid INTEGER, start INTEGER, end INTEGER, name_id INTEGER, event_id INTEGER, extdata TEXT)`,
		`CREATE TABLE rocpd_kernel_dispatch` + s + ` (id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, tid INTEGER, agent_id INTEGER, kernel_id INTEGER, dispatch_id INTEGER, queue_id INTEGER, stream_id INTEGER, start INTEGER, end INTEGER, private_segment_size INTEGER, group_segment_size INTEGER, workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER, grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER, region_name_id INTEGER, event_id INTEGER, extdata TEXT)`,
		// Events 1..100 for dispatches, 200.. for regions.
		`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 100) INSERT INTO rocpd_event` + s + ` SELECT i, 'g1', 1, i, 0, 0, '', '', '{}' FROM c`,
		`INSERT INTO rocpd_event` + s + ` VALUES (200, 'g1', 2, 0, 0, 0, '', '', '{}'), (201, 'g1', 2, 0, 0, 0, '', '', '{}'), (202, 'g1', 2, 0, 0, 0, '', '', '{}'), (203, 'g1', 6, 0, 0, 0, '', '', '{}')`,
		// Two step ranges (one with an inner range), and a HIP call that is
		// not a marker, all on thread row 1.
		`INSERT INTO rocpd_region` + s + ` VALUES (1, 'g1', 1, 1, 1, 1000, 30000, 3, 200, '{}'), (2, 'g1', 1, 1, 1, 2000, 3000, 5, 201, '{}'), (3, 'g1', 1, 1, 1, 40000, 70000, 4, 202, '{}'), (4, 'g1', 1, 1, 1, 0, 200000, 7, 203, '{}')`,
		// Dispatch i: start 1000*i, duration 100+i; kernel 10 or 11, queue 1 or 2.
		`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 90) INSERT INTO rocpd_kernel_dispatch` + s +
			` SELECT i, 'g1', 1, 1, 1, 2, 10 + i%2, i, 1 + i%2, 0, 1000*i, 1000*i+100+i, 0, 0, 64, 1, 1, 64, 1, 1, 1, i, '{}' FROM c`,
	}
	for _, l := range rocpdTables {
		stmts = append(stmts, `CREATE VIEW `+l+` AS SELECT * FROM `+l+s)
	}
	stmts = append(stmts, `CREATE VIEW kernels AS SELECT K.id, S.display_name AS name, K.start, K.end, K.end - K.start AS duration, K.queue_id AS queue
		FROM rocpd_kernel_dispatch K
		INNER JOIN rocpd_info_agent A ON A.id = K.agent_id AND A.guid = K.guid
		INNER JOIN rocpd_event E ON E.id = K.event_id AND E.guid = K.guid
		INNER JOIN rocpd_string R ON R.id = K.region_name_id AND R.guid = K.guid
		INNER JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid
		INNER JOIN rocpd_info_queue Q ON Q.id = K.queue_id AND Q.guid = K.guid
		INNER JOIN rocpd_info_thread T ON T.id = K.tid AND T.guid = K.guid`)
	stmts = append(stmts, extra...)
	for i, q := range stmts {
		stmts[i] = strings.ReplaceAll(q, "$S", s)
	}
	return fixture.SQLite(t, filepath.Join(t.TempDir(), "results.db"), stmts...)
}

// rocpdSums is the independent computation: SQL over the base table,
// names through the symbol table, every dispatch row whatever its joins.
func rocpdSums(t *testing.T, path string) map[string]int64 {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT coalesce(s.display_name, ''), sum(k.end - k.start) FROM rocpd_kernel_dispatch` + runSuffix + ` k
		LEFT JOIN rocpd_info_kernel_symbol` + runSuffix + ` s ON s.id = k.kernel_id AND s.guid = k.guid WHERE k.end >= k.start GROUP BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var n string
		var v int64
		if err := rows.Scan(&n, &v); err != nil {
			t.Fatal(err)
		}
		out[n] = v
	}
	return out
}

func viewCount(t *testing.T, path string) int {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM kernels`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRocpd(t *testing.T) {
	path := genRocpd(t)
	r := readPath(t, path, "")
	if r.c.Source.Format != RocpdName || len(r.disp) != 90 {
		t.Fatalf("got %s with %d dispatches, want %s with 90:\n%s", r.c.Source.Format, len(r.disp), RocpdName, gapText(r.c))
	}
	if !r.c.Accounting.Complete() {
		t.Fatalf("want complete, got:\n%s", gapText(r.c))
	}
	// Programs: the outermost marker range around each dispatch's start,
	// "step" twice (instance suffix dropped), the HIP region is no marker.
	progs := map[string]int{}
	for _, d := range r.disp {
		progs[r.c.Programs[d.Program].Name]++
	}
	if progs["step"] != 30+31 || progs["(no marker range)"] != 29 || len(progs) != 2 {
		t.Fatalf("got programs %v, want step 61, (no marker range) 29", progs)
	}
	for _, d := range r.disp {
		// step#1 holds dispatches 1..30, step#2 40..70.
		if r.c.Programs[d.Program].Name == "step" && d.Instance != map[bool]int64{true: 0, false: 1}[d.Device.Begin <= 30000] {
			t.Fatalf("dispatch at %d: got instance %d, want 0 up to 30000 and 1 after", d.Device.Begin, d.Instance)
		}
	}
	for _, p := range r.c.Programs {
		if want := map[string]int64{"step": 2, noMarker: 1}[p.Name]; p.Instances != want {
			t.Errorf("%s: %d instances, want %d", p.Name, p.Instances, want)
		}
	}
	ns := map[string]int64{}
	for _, d := range r.disp {
		dur, _ := d.Device.Duration()
		ns[r.c.Kernels[d.Kernel].Name] += dur
	}
	for k, v := range rocpdSums(t, path) {
		if ns[k] != v {
			t.Errorf("%s: got %d ns, want the SQL's %d", k, ns[k], v)
		}
	}
	if len(r.c.Queues) != 2 || r.c.Queues[0].Device != "agent 2 (gfx942)" {
		t.Errorf("got queues %+v, want 2, agent 2 (gfx942) first", r.c.Queues)
	}
}

// TestRocpdViewDrops removes rows the kernels view joins to: that view
// loses the dispatches, tally keeps them and says how many a view drops.
func TestRocpdViewDrops(t *testing.T) {
	path := genRocpd(t,
		`DELETE FROM rocpd_info_queue$S WHERE id = 2`,          // 45 dispatches on queue 2
		`DELETE FROM rocpd_event$S WHERE id = 1`,               // dispatch 1 (on queue 2)
		`DELETE FROM rocpd_info_kernel_symbol$S WHERE id = 10`, // 45 dispatches of add
		`UPDATE rocpd_kernel_dispatch$S SET end = start - 5 WHERE id = 4`,
		`UPDATE rocpd_kernel_dispatch$S SET dispatch_id = 2 WHERE id = 6`,
	)
	r := readPath(t, path, RocpdName)
	if len(r.disp) != 88 {
		t.Fatalf("got %d dispatches, want 88:\n%s", len(r.disp), gapText(r.c))
	}
	view := viewCount(t, path)
	g := r.c.Accounting.Find(capture.ViewDroppedRows)
	if g == nil || int(g.Count) != 90-view || !g.Note {
		t.Fatalf("view keeps %d of 90: want a ViewDroppedRows note of %d, got:\n%s", view, 90-view, gapText(r.c))
	}
	if q, _ := g.Figure("missing queue"); q != 45 {
		t.Errorf("got missing queue %d, want 45", q)
	}
	a := &r.c.Accounting
	if a.CountOf(capture.InvalidEvent) != 1 || a.CountOf(capture.DuplicateDispatchID) != 1 || a.CountOf(capture.UnresolvedName) == 0 {
		t.Fatalf("want one InvalidEvent, one DuplicateDispatchID and an UnresolvedName gap, got:\n%s", gapText(r.c))
	}
	if !strings.HasPrefix(a.Find(capture.InvalidEvent).Items[0].Where, "rocpd_kernel_dispatch"+runSuffix+" row 4") {
		t.Errorf("got invalid event at %s, want rocpd_kernel_dispatch%s row 4", a.Find(capture.InvalidEvent).Items[0].Where, runSuffix)
	}
	ns := map[string]int64{}
	for _, d := range r.disp {
		dur, _ := d.Device.Duration()
		if r.c.Kernels[d.Kernel].Resolved {
			ns[r.c.Kernels[d.Kernel].Name] += dur
		} else {
			ns[""] += dur
		}
	}
	sums := rocpdSums(t, path)
	// The repeated dispatch id's row (row 6, a dispatch of the deleted
	// symbol) is counted by SQL but not by tally.
	sums[""] -= 100 + 6
	for k, v := range sums {
		if ns[k] != v {
			t.Errorf("%q: got %d ns, want the SQL's %d", k, ns[k], v)
		}
	}
}

func TestRocpdEmptyAndForeign(t *testing.T) {
	r := readPath(t, genRocpd(t, `DELETE FROM rocpd_kernel_dispatch$S`), RocpdName)
	if g := r.c.Accounting.Find(capture.EmptyCapture); g == nil || r.c.Accounting.Complete() {
		t.Fatalf("want incomplete with an EmptyCapture gap, got:\n%s", gapText(r.c))
	}
	// An RPD (rocmProfileData) database: refused with a reason.
	dir := t.TempDir()
	p := fixture.SQLite(t, filepath.Join(dir, "rpd.db"), `CREATE TABLE rocpd_op (id INTEGER, start INTEGER, end INTEGER)`)
	if _, err := format.ReadFile(p, "", nil, nil); err == nil || !strings.Contains(err.Error(), "RPD") {
		t.Fatalf("got %v, want an error naming RPD", err)
	}
	// Each SQLite reader names the other when given its database.
	if _, err := format.ReadFile(genRocpd(t), "nsys", nil, nil); err == nil || !strings.Contains(err.Error(), "--format rocpd") {
		t.Errorf("rocpd read as nsys: got %v, want an error suggesting --format rocpd", err)
	}
	nsysDB := fixture.SQLite(t, filepath.Join(t.TempDir(), "report.sqlite"), `CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)`)
	if _, err := format.ReadFile(nsysDB, RocpdName, nil, nil); err == nil || !strings.Contains(err.Error(), "--format nsys") {
		t.Errorf("nsys read as rocpd: got %v, want an error suggesting --format nsys", err)
	}
	// Not SQLite at all, given as rocpd.
	q := fixture.Write(t, dir, "x.db", []byte("not sqlite"))
	if _, err := format.ReadFile(q, RocpdName, nil, nil); err == nil || !strings.Contains(err.Error(), "not an SQLite database") {
		t.Fatalf("got %v, want an error saying not an SQLite database", err)
	}
}

// A database is written whole: one cut cleanly between pages is refused at
// the byte it ends (from its header's page count), never read as a
// smaller, complete run.
func TestRocpdCutAtPageBoundary(t *testing.T) {
	path := genRocpd(t)
	data := fixture.Read(t, path)
	page := int(data[16])<<8 | int(data[17])
	cut := fixture.Write(t, t.TempDir(), "cut.db", data[:len(data)-page])
	_, err := format.ReadFile(cut, "", nil, nil)
	var fe *format.Error
	if !errorsAs(err, &fe) || fe.Offset != int64(len(data)-page) || !strings.Contains(err.Error(), "the database is cut") {
		t.Fatalf("got %v, want a format.Error at byte %d saying the database is cut", err, len(data)-page)
	}
	// Negative arm: the whole database is read.
	if r := readPath(t, path, ""); len(r.disp) != 90 {
		t.Fatalf("whole database: got %d dispatches, want 90", len(r.disp))
	}
}
