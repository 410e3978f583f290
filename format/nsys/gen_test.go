package nsys

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
)

// genOpts shapes a generated nsys-like export. Rows are made inside SQLite
// with recursive CTEs, so millions of rows take seconds, not minutes.
type genOpts struct {
	kernels     int  // kernel rows (one launch each), 2 devices, 2 streams each
	noKernels   bool // leave the kernel table out entirely
	graphs      int  // cudaGraphLaunch calls without kernels
	graphTrace  int  // GRAPH_TRACE rows
	nodeGraph   int  // extra kernels sharing the first launch's id
	extraTable  bool // a table and a kernel column this reader does not know
	window      bool // DERIVED_WINDOW_NS row
	nvtx        bool // one outer range per 100 launches with an inner op range
	reversed    int  // kernel rows with end < start
	nullName    int  // kernel rows whose demangledName is not in StringIds
	outOfOrder  bool // swap the start of two kernels on one stream
	orphans     int  // kernels whose correlation id has no runtime row
	unlaunched  int  // cudaLaunchKernel calls without a kernel
	untimedRows int  // kernels with start = end = 0
	preSession  int  // launched kernels before the session start (1000), half of them negative
	normalized  bool // EXPORT_PARAM_TIME_NORMALIZE true
	diagnostics bool // DIAGNOSTIC_EVENT rows: 1 info, 2 warnings, 1 error
	overhead    bool // CUPTI_ACTIVITY_KIND_OVERHEAD and PROFILER_OVERHEAD rows
}

const gpid = int64(111) << 24

func genDB(t testing.TB, o genOpts) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gen.sqlite")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("got error %v, want none, from\n%s", err, q)
		}
	}
	exec(`PRAGMA journal_mode=OFF`)
	exec(`PRAGMA synchronous=OFF`)
	exec(`CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)`)
	exec(`CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)`)
	exec(`CREATE TABLE META_DATA_CAPTURE (name TEXT, value TEXT)`)
	exec(`CREATE TABLE ANALYSIS_DETAILS (globalVid INTEGER, duration INTEGER, startTime INTEGER, stopTime INTEGER)`)
	exec(`INSERT INTO ANALYSIS_DETAILS VALUES (0, 0, 1000, 0)`)
	exec(`INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.25.0'), ('EXPORT_SCHEMA_VERSION_MAJOR', '3'), ('EXPORT_PARAM_TIME_NORMALIZE', 'false'), ('EXPORT_PARAM_TIMES_TO_EXPORT', '')`)
	exec(`INSERT INTO META_DATA_CAPTURE VALUES ('CAPTURE_EVENT_TYPE', 'Cuda'), ('CUDA_GRAPH_TRACE_OPTIONS:MODE', 'Graph')`)
	if o.normalized {
		exec(`UPDATE META_DATA_EXPORT SET value = 'true' WHERE name = 'EXPORT_PARAM_TIME_NORMALIZE'`)
	}
	if o.diagnostics {
		exec(`CREATE TABLE ENUM_DIAGNOSTIC_SEVERITY_LEVEL (id INTEGER PRIMARY KEY, name TEXT, label TEXT)`)
		exec(`INSERT INTO ENUM_DIAGNOSTIC_SEVERITY_LEVEL VALUES (1, 'Info', 'Info'), (2, 'Warning', 'Warning'), (3, 'Error', 'Error')`)
		exec(`CREATE TABLE DIAGNOSTIC_EVENT (timestamp INTEGER, timestampType INTEGER, source INTEGER, severity INTEGER, text TEXT, globalPid INTEGER)`)
		exec(`INSERT INTO DIAGNOSTIC_EVENT VALUES (100, 1, 1, 1, 'Profiling has started.', NULL), (200, 1, 1, 2, 'CUPTI buffer was full: events dropped', NULL), (300, 1, 2, 2, 'Not all threads were traced', NULL), (400, 1, 2, 3, 'Failed to collect CPU samples', NULL)`)
	}
	if o.overhead {
		exec(`CREATE TABLE ENUM_CUPTI_OVERHEAD_TYPE (id INTEGER PRIMARY KEY, name TEXT, label TEXT)`)
		exec(`INSERT INTO ENUM_CUPTI_OVERHEAD_TYPE VALUES (3, 'OVERHEAD_CUPTI_BUFFER_FLUSH', 'Buffer flush (Profiler)'), (8, 'OVERHEAD_COMMAND_BUFFER_FULL', 'Command buffer full (CUDA)')`)
		exec(`CREATE TABLE CUPTI_ACTIVITY_KIND_OVERHEAD (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER, overheadType INTEGER)`)
		exec(`INSERT INTO CUPTI_ACTIVITY_KIND_OVERHEAD VALUES (2000, 2500, 103, 0, 0, 0, 8), (3000, 3100, 103, 0, 0, 0, 8), (4000, 4010, 103, 0, 0, 0, 3), (5000, 4000, 103, 0, 0, 0, 3)`)
		exec(`CREATE TABLE PROFILER_OVERHEAD (start INTEGER, end INTEGER, globalTid INTEGER, nameId INTEGER, overheadType INTEGER)`)
		exec(`INSERT INTO PROFILER_OVERHEAD VALUES (6000, 6070, 0, 3, 0)`)
	}
	if o.window {
		exec(`INSERT INTO META_DATA_EXPORT VALUES ('DERIVED_WINDOW_NS', '5-6')`)
	}
	// Strings: 1 launch, 2 graph launch, 3 sync, 10.. kernel names.
	exec(`INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cudaGraphLaunch_v10000'), (3, 'cudaStreamSynchronize_v3020')`)
	exec(`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < 49) INSERT INTO StringIds SELECT 10+i, 'kernel_' || i || '<float>(float*)' FROM c`)
	exec(`CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER)`)
	kcols := `start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, graphId INTEGER`
	if o.extraTable {
		kcols += `, futureColumn INTEGER`
		exec(`CREATE TABLE CUPTI_ACTIVITY_KIND_FUTURE (x INTEGER)`)
	}
	n := o.kernels
	// Launch i on thread 1 at 10000+1000*i, kernel i on device i%2,
	// stream 7+(i%4)/2, running [10500+1000*i, 10500+1000*i+100+i%50).
	tid := gpid + 1
	if !o.noKernels {
		exec(`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (` + kcols + `)`)
		if n > 0 {
			exec(fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < %d)
				INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName, shortName)
				SELECT 10500+1000*i, 10500+1000*i+100+i%%50, i%%2, 1, 7+(i%%4)/2, i+1, %d, 10+i%%50, 10+i%%50 FROM c`, n-1, gpid))
		}
	}
	if n > 0 {
		exec(fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < %d)
			INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 10000+1000*i, 10000+1000*i+300, 0, %d, i+1, 1, 0, NULL FROM c`, n-1, tid))
	}
	next := int64(n + 1)
	for i := 0; i < o.graphs; i++ {
		exec(`INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, 2, 0, NULL)`, 5000+i, 5100+i, tid, next)
		next++
	}
	for i := 0; i < o.unlaunched; i++ {
		exec(`INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, 1, 0, NULL)`, 9000+i, 9100+i, tid, next)
		next++
	}
	exec(`INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1, 2, 0, ?, ?, 3, 0, NULL)`, tid, next) // a sync: not a launch
	next++
	if o.graphTrace > 0 {
		exec(`CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, correlationId INTEGER, graphId INTEGER, graphExecId INTEGER)`)
		for i := 0; i < o.graphTrace; i++ {
			exec(`INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (?, ?, 0, 7, 0, 1, 1)`, 100*i, 100*i+50)
		}
	}
	launch := func(corr int64) {
		exec(`INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (9500, 9600, 0, ?, ?, 1, 0, NULL)`, tid, corr)
	}
	ins := func(start, end, corr, name int64) {
		exec(`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName, shortName) VALUES (?, ?, 0, 1, 7, ?, ?, ?, ?)`, start, end, corr, gpid, name, name)
	}
	for i := 0; i < o.nodeGraph; i++ {
		ins(10600+int64(i), 10601+int64(i), 1, 11)
	}
	for i := 0; i < o.reversed; i++ {
		ins(900, 800, next, 10)
		launch(next)
		next++
	}
	for i := 0; i < o.nullName; i++ {
		ins(int64(7_000_000+i), int64(7_000_010+i), next, 999)
		launch(next)
		next++
	}
	for i := 0; i < o.orphans; i++ {
		ins(int64(8_000_000+i), int64(8_000_010+i), next+1_000_000+int64(i), 10)
	}
	for i := 0; i < o.untimedRows; i++ {
		ins(0, 0, next, 10)
		launch(next)
		next++
	}
	for i := 0; i < o.preSession; i++ {
		start := int64(500 - 1000*(i%2)) // 500, -500, …
		ins(start+int64(i), start+int64(i)+10, next, 10)
		launch(next)
		next++
	}
	if o.outOfOrder {
		// Kernel 0 and kernel 4 share device 0 stream 7; the later launch
		// now starts before the earlier one.
		exec(`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 10400, end = 10450 WHERE correlationId = 5`)
	}
	if o.nvtx {
		exec(`CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER)`)
		// Outer "step#k" around launches 100k..100k+99; an inner
		// per-op range around each launch; a mark.
		exec(fmt.Sprintf(`WITH RECURSIVE c(k) AS (SELECT 0 UNION ALL SELECT k+1 FROM c WHERE k < %d)
			INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) SELECT 9999+100000*k, 10000+100000*k+99000+500, 59, 'step#' || k, %d FROM c`, (n-1)/100, tid))
		exec(fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < %d)
			INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) SELECT 10000+1000*i-1, 10000+1000*i+301, 59, 'aten::op, op_id = ' || i, %d FROM c`, n-1, tid))
		exec(`INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (5, NULL, 34, 'mark', ?)`, tid)
	}
	return path
}
