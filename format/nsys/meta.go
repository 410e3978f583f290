package nsys

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/sqlitein"
)

// knownTables are the tables this reader reads or knowingly leaves out;
// anything else is listed in the inventory as not read (a newer exporter).
var knownTables = []string{
	"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
	"CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "NVTX_EVENTS", "StringIds",
	"META_DATA_EXPORT", "META_DATA_CAPTURE", "ANALYSIS_DETAILS", "TARGET_INFO_SESSION_START_TIME",
	"PROCESSES", "ThreadNames", "ENUM_*", "TARGET_INFO_*", "DIAGNOSTIC_EVENT",
	"CUPTI_ACTIVITY_KIND_OVERHEAD", "PROFILER_OVERHEAD", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
	"CUPTI_ACTIVITY_KIND_CUDA_EVENT", "NVTX_PAYLOAD_*", "ProcessStreams", "ANALYSIS_FILE",
}

// knownKernelColumns are the kernel table columns of schema 3.25–3.28;
// others are named in the inventory.
var knownKernelColumns = []string{
	"start", "end", "deviceId", "contextId", "greenContextId", "streamId", "correlationId", "globalPid",
	"demangledName", "shortName", "mangledName", "launchType", "cacheConfig", "registersPerThread",
	"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "staticSharedMemory", "dynamicSharedMemory",
	"localMemoryPerThread", "localMemoryTotal", "gridId", "sharedMemoryExecuted", "graphNodeId",
	"sharedMemoryLimitConfig", "qmdBulkReleaseDone", "qmdPreexitDone", "qmdLastCtaDone", "graphId",
	"clusterX", "clusterY", "clusterZ", "clusterSchedulingPolicy", "maxPotentialClusterSize",
	"maxActiveClusters", "sharedMemoryRequestedPercentage", "tensorSizeMinusOneElements",
}

// kv reads a (name, value) table into ordered pairs.
func kv(db *sqlitein.DB, table string) ([][2]string, error) {
	if !db.HasColumn(table, "name") || !db.HasColumn(table, "value") {
		return nil, nil
	}
	rows, err := db.Query(`SELECT name, value FROM ` + sqlitein.Quote(table))
	if err != nil {
		return nil, db.QueryError(table, err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var n, v sql.NullString
		if err := rows.Scan(&n, &v); err != nil {
			return nil, db.QueryError(table, err)
		}
		out = append(out, [2]string{n.String, v.String})
	}
	return out, db.RowsErr(table, rows)
}

func lookup(pairs [][2]string, name string) (string, bool) {
	for _, p := range pairs {
		if p[0] == name {
			return p[1], true
		}
	}
	return "", false
}

// meta reads what the export says about itself: version, clock, window.
func (r *reader) meta() error {
	exp, err := kv(r.db, "META_DATA_EXPORT")
	if err != nil {
		return err
	}
	capt, err := kv(r.db, "META_DATA_CAPTURE")
	if err != nil {
		return err
	}
	r.capture = capt
	inv := capture.Section{Title: "Nsight Systems export"}
	for _, k := range []string{"EXPORT_PRODUCT_VERSION", "EXPORT_SCHEMA_VERSION", "EXPORT_PARAM_TIME_NORMALIZE", "EXPORT_PARAM_TIME_SHIFT", "EXPORT_PARAM_TABLES_TO_EXPORT", "EXPORT_PARAM_TIMES_TO_EXPORT", "DERIVED_FROM", "DERIVED_WINDOW_NS", "DERIVED_BY"} {
		if v, ok := lookup(exp, k); ok {
			inv.Add(k, v)
		}
	}
	if v, ok := lookup(capt, "CUDA_GRAPH_TRACE_OPTIONS:MODE"); ok {
		inv.Add("CUDA graph trace mode", v)
		r.graphMode = v
	}
	if major, ok := lookup(exp, "EXPORT_SCHEMA_VERSION_MAJOR"); ok && major != "3" {
		inv.Add("note", "export schema major version "+major+" is newer than this reader knows (3): tables and columns are looked up by name and the rest is listed as not read")
	}
	r.c.Inventory = append(r.c.Inventory, inv)

	// Clock.
	norm, _ := lookup(exp, "EXPORT_PARAM_TIME_NORMALIZE")
	shift, _ := lookup(exp, "EXPORT_PARAM_TIME_SHIFT")
	r.sessionStart, r.hasSession = r.int(`SELECT startTime FROM ANALYSIS_DETAILS`, "ANALYSIS_DETAILS", "startTime")
	r.sessionCmp = r.hasSession && norm != "true"
	clk := capture.Clock{Domain: "nsys-host", Unit: "ns", Timed: true}
	if norm == "true" {
		clk.Domain = "unix-epoch"
		clk.Description = "ns since the Unix epoch (UTC): the export was normalised (nsys export --ts-normalize)"
	} else {
		clk.Description = "ns on the target's host timeline as Nsight Systems recorded it (not normalised to UTC)"
		if r.hasSession {
			clk.Description += fmt.Sprintf("; the session started at %d ns on it", r.sessionStart)
		}
	}
	if shift != "" && shift != "0" {
		clk.Description += "; the exporter shifted every time by " + shift + " ns (--ts-shift)"
	}
	clk.Description += "; GPU times are mapped onto it from the GPU clock (about 32 ns granularity)"
	r.c.Clock = clk

	// A cut export: nsys --times/--tables, or a third-party window.
	var window []string
	for _, k := range []string{"EXPORT_PARAM_TIMES_TO_EXPORT", "EXPORT_PARAM_TABLES_TO_EXPORT", "DERIVED_WINDOW_NS", "DERIVED_FROM", "DERIVED_BY"} {
		if v, ok := lookup(exp, k); ok && strings.TrimSpace(v) != "" {
			window = append(window, k+" = "+v)
		}
	}
	if len(window) > 0 {
		g := r.c.Accounting.Gap(capture.WindowedExport, "")
		w, _ := lookup(exp, "DERIVED_WINDOW_NS")
		if w == "" {
			w, _ = lookup(exp, "EXPORT_PARAM_TIMES_TO_EXPORT")
		}
		g.Summary = "this export holds only part of the capture"
		if w != "" {
			g.Summary += " (window " + w + " ns)"
		}
		g.Summary += ": work outside it is not in the tables, and launches and kernels near its edges have lost their partner (see gpu_event_without_launch and launch_without_gpu_event)"
		g.Add(capture.Item{What: strings.Join(window, "; "), Where: "META_DATA_EXPORT"})
	}
	return nil
}

// int runs a one-value query when the table and column exist.
func (r *reader) int(q, table, col string) (int64, bool) {
	if !r.db.HasColumn(table, col) {
		return 0, false
	}
	var v sql.NullInt64
	if err := r.db.QueryRow(q).Scan(&v); err != nil || !v.Valid {
		return 0, false
	}
	return v.Int64, true
}

// inventory lists tables and columns the reader does not read.
func (r *reader) inventory() {
	s := capture.Section{Title: "tables"}
	for _, t := range []string{"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "NVTX_EVENTS", "StringIds", "DIAGNOSTIC_EVENT", "CUPTI_ACTIVITY_KIND_OVERHEAD", "PROFILER_OVERHEAD"} {
		if r.db.Has(t) {
			s.Add(t, "read")
		} else {
			s.Add(t, "absent")
		}
	}
	if u := r.db.Unknown(knownTables); len(u) > 0 {
		s.Add("not read (unknown to this reader)", strings.Join(u, ", "))
	}
	if u := r.db.UnknownColumns("CUPTI_ACTIVITY_KIND_KERNEL", knownKernelColumns); len(u) > 0 {
		s.Add("kernel columns not read (unknown to this reader)", strings.Join(u, ", "))
	}
	r.c.Inventory = append(r.c.Inventory, s)
	d := capture.Section{Title: "dispatches"}
	for i, n := range r.byCat {
		d.Add(categories[i], n)
	}
	d.Add("NVTX ranges", r.nvtx.all)
	d.Add("NVTX ranges that can be outermost", int64(len(r.nvtx.ranges)))
	d.Add("programs", int64(len(r.c.Programs)))
	r.c.Inventory = append(r.c.Inventory, d)
}

func pidOf(global int64) int64 { return (global >> 24) & 0xFFFFFF }

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
