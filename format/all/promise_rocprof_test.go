package all

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// Promise fixtures of the rocprof reader (kernel_trace.csv of both header
// generations, rocpd convert CSV, counter_collection.csv, rocprof v1
// results.csv, rocprofv3 JSON) and of the rocpd reader (SQLite). Their
// records carry a dispatch id (Dispatch_Id, Index, dispatch_info.
// dispatch_id, rocpd's dispatch_id): a repeat is their duplicate_event,
// reported under its older name duplicate_dispatch_id.

// rocprofDispatch is one dispatch row of a fixture: a kind, a dispatch id
// and its times as written (strings, so that a fixture can write what
// does not parse).
type rocprofDispatch struct {
	kind       string
	id         int
	start, end string
}

// rocprofBase is the fixtures' run: three dispatches on CLOCK_BOOTTIME.
func rocprofBase() []rocprofDispatch {
	return []rocprofDispatch{
		{"KERNEL_DISPATCH", 1, "3200098838431081", "3200098838483232"},
		{"KERNEL_DISPATCH", 2, "3200098838589014", "3200098838638794"},
		{"KERNEL_DISPATCH", 3, "3200098838701000", "3200098838725500"},
	}
}

// rocprofCSVLayout writes one CSV layout: its header and the line(s) of a
// dispatch.
type rocprofCSVLayout struct {
	variant string
	header  string
	rows    func(d rocprofDispatch) string
	hasKind bool // a Kind column: an unknown kind is the unreadable record
}

var rocprofCSVLayouts = []rocprofCSVLayout{
	{
		variant: "kernel_trace.csv current",
		header:  `"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"`,
		rows: func(d rocprofDispatch) string {
			return fmt.Sprintf(`"%s","Agent 4",1,0,15606,%d,17,"void addition_kernel<float>(float*, float const*, float const*, int, int)",%d,%s,%s,0,0,8,0,16,64,1,1,1024,1024,1`+"\n", d.kind, d.id, d.id, d.start, d.end)
		},
		hasKind: true,
	},
	{
		variant: "kernel_trace.csv 2024",
		header:  `"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"`,
		rows: func(d rocprofDispatch) string {
			return fmt.Sprintf(`"%s",1,1,69,%d,16,"void addition_kernel<float>(float*, float const*, float const*, int, int)",%d,%s,%s,0,0,64,1,1,1024,1024,1`+"\n", d.kind, d.id, 1450+d.id, d.start, d.end)
		},
		hasKind: true,
	},
	{
		variant: "rocpd convert csv",
		header:  `"Guid","Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","Lds_Block_Size","Scratch_Size","Vgpr_Count","Accum_Vgpr_Count","Sgpr_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"`,
		rows: func(d rocprofDispatch) string {
			return fmt.Sprintf(`"0000ddb5-8903-7903-b269-cd8d3745bb8a","%s","Agent 4",1,0,137,%d,17,"addition_kernel",%d,%s,%s,0,0,8,0,16,64,1,1,1024,1024,1`+"\n", d.kind, d.id, d.id, d.start, d.end)
		},
		hasKind: true,
	},
	{
		// One row per dispatch and counter: a dispatch is its rows.
		variant: "counter_collection.csv",
		header:  `"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Id","Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Counter_Name","Counter_Value","Start_Timestamp","End_Timestamp"`,
		rows: func(d rocprofDispatch) string {
			var b strings.Builder
			for _, counter := range []string{"SQ_WAVES", "GRBM_COUNT"} {
				fmt.Fprintf(&b, `%d,%d,"Agent 1",1,15606,15606,1048576,17,"void addition_kernel<float>(float*, float const*, float const*, int, int)",64,0,0,8,0,16,"%s",16384.000000,%s,%s`+"\n", d.id, d.id, counter, d.start, d.end)
			}
			return b.String()
		},
	},
	{
		variant: "results.csv rocprof v1",
		header:  `"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr","arch_vgpr","accum_vgpr","sgpr","wave_size","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs","DurationNs"`,
		rows: func(d rocprofDispatch) string {
			return fmt.Sprintf(`%d,"laplacian_kernel(double*, double const*) [clone .kd]",8,0,%d,29469,29469,1048576,256,0,0,12,4,24,64,0x0,0x7f3c,%s,%s,%s,%s,100`+"\n", d.id, d.id, d.start, d.start, d.end, d.end)
		},
	},
}

func rocprofWriteCSV(t *testing.T, dir string, lay rocprofCSVLayout, ds []rocprofDispatch) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(lay.header + "\n")
	for _, d := range ds {
		b.WriteString(lay.rows(d))
	}
	return fixture.Write(t, dir, "1_kernel_trace.csv", []byte(b.String()))
}

func (lay rocprofCSVLayout) fixture() promiseFixture {
	with := edited(rocprofBase, func(t *testing.T, dir string, ds []rocprofDispatch) string { return rocprofWriteCSV(t, dir, lay, ds) })
	return promiseFixture{
		variant: lay.variant,
		base:    with(unchanged),
		unreadable: with(func(ds []rocprofDispatch) []rocprofDispatch {
			if lay.hasKind {
				ds[1].kind = "KERNEL_DISPATCH_V2" // a kind this reader does not know
			} else {
				ds[1].start = "3200098838589014.5" // not an integer
			}
			return ds
		}),
		impossible: with(func(ds []rocprofDispatch) []rocprofDispatch { ds[1].start = "-5"; return ds }),
		repeated: with(func(ds []rocprofDispatch) []rocprofDispatch {
			// Counter rows of one dispatch follow each other, so the
			// repeat comes later: written again at the end.
			return append(ds, ds[0])
		}),
		repeatKind: capture.DuplicateDispatchID,
		cut: func(t *testing.T, dir string) string {
			path := rocprofWriteCSV(t, dir, lay, rocprofBase())
			data := fixture.Read(t, path)
			s := strings.TrimSuffix(string(data), "\n")
			return fixture.Write(t, dir, "1_kernel_trace.csv", []byte(s[:strings.LastIndexByte(s, '\n')+1])) // the last line dropped
		},
		endMarker:     false, // a CSV has none: the no_end_marker note says so
		lastFieldNote: "unterminated_last_row",
		records:       picked(rocprofBase, func(t *testing.T, dir string, ds []rocprofDispatch) string { return rocprofWriteCSV(t, dir, lay, ds) }),
	}
}

// rocprofJSON writes a rocprofv3 JSON document (--output-format json) with
// the dispatches given, each record on its own line.
func rocprofJSON(ds []rocprofDispatch) string {
	var recs []string
	for _, d := range ds {
		times := ""
		if d.start != "" {
			times += `"start_timestamp": ` + d.start + `, `
		}
		times += `"end_timestamp": ` + d.end
		recs = append(recs, fmt.Sprintf(`{"size": 136, "kind": 11, "operation": 2, "thread_id": 908, "correlation_id": {"internal": %d, "external": 0}, %s, "dispatch_info": {"size": 104, "agent_id": {"handle": 37946}, "queue_id": {"handle": 139}, "kernel_id": 7, "dispatch_id": %d, "private_segment_size": 0, "group_segment_size": 0, "workgroup_size": {"x": 256, "y": 1, "z": 1}, "grid_size": {"x": 65536, "y": 1, "z": 1}}, "stream_id": {"handle": 0}}`, d.id, times, d.id))
	}
	kinds := make([]string, 12)
	for i := range kinds {
		kinds[i] = `{"kind": "NONE", "operations": []}`
	}
	kinds[11] = `{"kind": "KERNEL_DISPATCH", "operations": ["NONE", "KERNEL_DISPATCH_ENQUEUE", "KERNEL_DISPATCH_COMPLETE"]}`
	return `{"rocprofiler-sdk-tool": [{"metadata": {"pid": 908, "init_time": 3200098838000000, "fini_time": 3200098839000000},
 "agents": [{"id": {"handle": 37946}, "type": 2, "node_id": 2, "logical_node_id": 2, "gpu_index": 0, "name": "gfx950", "product_name": "AMD Instinct MI350X"}],
 "strings": {"buffer_records": [` + strings.Join(kinds, ", ") + `]},
 "kernel_symbols": [{"kernel_id": 0, "kernel_name": "", "formatted_kernel_name": "0"}, {"kernel_id": 7, "kernel_name": "_Z3addPf.kd", "demangled_kernel_name": "add(float*) [clone .kd]", "formatted_kernel_name": "add(float*)", "truncated_kernel_name": "add"}],
 "buffer_records": {"kernel_dispatch": [
  ` + strings.Join(recs, ",\n  ") + `
 ], "hip_api": [], "memory_copy": []}}]}
`
}

func rocprofJSONFixture() promiseFixture {
	with := edited(rocprofBase, func(t *testing.T, dir string, ds []rocprofDispatch) string {
		return fixture.Write(t, dir, "908_results.json", []byte(rocprofJSON(ds)))
	})
	return promiseFixture{
		variant:    "json",
		base:       with(unchanged),
		unreadable: with(func(ds []rocprofDispatch) []rocprofDispatch { ds[1].start = ""; return ds }), // no start_timestamp
		impossible: with(func(ds []rocprofDispatch) []rocprofDispatch { ds[1].end = "9223372036854775807"; return ds }),
		repeated:   with(func(ds []rocprofDispatch) []rocprofDispatch { return append(ds[:2], ds[1], ds[2]) }),
		repeatKind: capture.DuplicateDispatchID,
		cut: func(t *testing.T, dir string) string {
			// The document ends where its last record began: a document
			// shows its cut, for it never closes.
			doc := rocprofJSON(rocprofBase())
			return fixture.Write(t, dir, "908_results.json", []byte(doc[:strings.LastIndex(doc, "\n  {")+1]))
		},
		endMarker: true,
		records: picked(rocprofBase, func(t *testing.T, dir string, ds []rocprofDispatch) string {
			return fixture.Write(t, dir, "908_results.json", []byte(rocprofJSON(ds)))
		}),
	}
}

// rocpdRun is the run uuid rocprofv3 appends to its physical table names.
const rocpdRun = "_0000ddb5_8903_7903_b269_cd8d3745bb8a"

// rocpdWrite writes a rocpd database (schema 3) holding the dispatches
// given: physical tables with the run's suffix, the plain names as views.
// A start or end "" is NULL.
func rocpdWrite(t *testing.T, dir string, ds []rocprofDispatch) string {
	t.Helper()
	s := rocpdRun
	stmts := []string{
		`CREATE TABLE rocpd_metadata` + s + ` (id INTEGER PRIMARY KEY, tag TEXT, value TEXT)`,
		`INSERT INTO rocpd_metadata` + s + ` VALUES (1, 'schema_version', '3'), (2, 'uuid', '` + s + `'), (3, 'guid', 'g1')`,
		`CREATE TABLE rocpd_info_agent` + s + ` (id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, type TEXT, absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, uuid TEXT, name TEXT, model_name TEXT, vendor_name TEXT, product_name TEXT, user_name TEXT)`,
		`INSERT INTO rocpd_info_agent` + s + ` VALUES (2, 'g1', 1, 1, 'GPU', 2, 2, 0, '', 'gfx942', '', 'AMD', 'MI300X', '')`,
		`CREATE TABLE rocpd_info_kernel_symbol` + s + ` (id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, code_object_id INTEGER, kernel_name TEXT, display_name TEXT, kernel_object INTEGER)`,
		`INSERT INTO rocpd_info_kernel_symbol` + s + ` VALUES (10, 'g1', 1, 1, 1, '_Z3addPf.kd', 'add(float*)', 0)`,
		`CREATE TABLE rocpd_kernel_dispatch` + s + ` (id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, tid INTEGER, agent_id INTEGER, kernel_id INTEGER, dispatch_id INTEGER, queue_id INTEGER, stream_id INTEGER, start INTEGER, end INTEGER, private_segment_size INTEGER, group_segment_size INTEGER, workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER, grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER, region_name_id INTEGER, event_id INTEGER, extdata TEXT)`,
	}
	for i, d := range ds {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO rocpd_kernel_dispatch`+s+` VALUES (%d, 'g1', 1, 1, 1, 2, 10, %d, 1, 0, %s, %s, 0, 0, 64, 1, 1, 1024, 1, 1, 0, 0, '{}')`, i+1, d.id, sqlValue(d.start), sqlValue(d.end)))
	}
	for _, l := range []string{"rocpd_metadata", "rocpd_info_agent", "rocpd_info_kernel_symbol", "rocpd_kernel_dispatch"} {
		stmts = append(stmts, `CREATE VIEW `+l+` AS SELECT * FROM `+l+s)
	}
	return fixture.SQLite(t, filepath.Join(dir, "908_results.db"), stmts...)
}

// sqliteCutLastPage drops the last page of a database file: a cut at a
// page boundary, the cleanest cut a database can have.
func sqliteCutLastPage(t *testing.T, path string) string {
	t.Helper()
	data := fixture.Read(t, path)
	page := int(data[16])<<8 | int(data[17])
	if page == 1 {
		page = 65536
	}
	if len(data) < 2*page {
		t.Fatalf("%s: got %d bytes, want at least two pages of %d", path, len(data), page)
	}
	return fixture.Write(t, filepath.Dir(path), filepath.Base(path), data[:len(data)-page])
}

func rocpdFixture() promiseFixture {
	return dbFixture(rocprofBase, rocpdWrite,
		func(d *rocprofDispatch) { d.start = "" }, // a NULL start
		func(d *rocprofDispatch) { d.start = "-5" },
		capture.DuplicateDispatchID)
}

func init() {
	for _, lay := range rocprofCSVLayouts {
		promiseFixtures["rocprof"] = append(promiseFixtures["rocprof"], lay.fixture())
	}
	promiseFixtures["rocprof"] = append(promiseFixtures["rocprof"], rocprofJSONFixture())
	promiseFixtures["rocpd"] = append(promiseFixtures["rocpd"], rocpdFixture())
}
