// Package nsysgen writes an Nsight-Systems-shaped SQLite export of any
// size for benchmarks: kernels with one runtime launch each and NVTX
// ranges around them, the shape of format/nsys's BenchmarkRead and of
// scripts/bench-all.sh. Rows are made inside SQLite with recursive CTEs, so
// millions of rows take seconds, not minutes.
package nsysgen

import (
	"database/sql"
	"fmt"
	"os"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// GlobalPid is the generated process's globalPid (pid 111); its one
// launching thread is GlobalPid+1.
const GlobalPid = int64(111) << 24

// Names is how many distinct kernel names the export holds.
const Names = 50

// Write creates path (which must not exist) holding kernels kernel rows on
// 2 devices × 2 streams, one cudaLaunchKernel row each (plus one
// cudaStreamSynchronize), one outer NVTX range "step#k" per 100 launches
// with an inner "aten::op, op_id = i" range around each launch, and one
// NVTX mark. Launch i is at 10000+1000i; its kernel runs
// [10500+1000i, 10600+1000i+i%50). Every table is in time order, as nsys
// writes them (NVTX ranges by start, so a step comes before its first op).
func Write(path string, kernels int) (err error) {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s exists: nsysgen writes a new file", path)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := db.Close(); err == nil {
			err = cerr
		}
	}()
	db.SetMaxOpenConns(1)
	n := kernels
	tid := GlobalPid + 1
	stmts := []string{
		`PRAGMA journal_mode=OFF`,
		`PRAGMA synchronous=OFF`,
		`CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)`,
		`CREATE TABLE META_DATA_CAPTURE (name TEXT, value TEXT)`,
		`CREATE TABLE ANALYSIS_DETAILS (globalVid INTEGER, duration INTEGER, startTime INTEGER, stopTime INTEGER)`,
		`INSERT INTO ANALYSIS_DETAILS VALUES (0, 0, 1000, 0)`,
		`INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.25.0'), ('EXPORT_SCHEMA_VERSION_MAJOR', '3'), ('EXPORT_PARAM_TIME_NORMALIZE', 'false'), ('EXPORT_PARAM_TIMES_TO_EXPORT', '')`,
		`INSERT INTO META_DATA_CAPTURE VALUES ('CAPTURE_EVENT_TYPE', 'Cuda'), ('CUDA_GRAPH_TRACE_OPTIONS:MODE', 'Graph')`,
		// 1 launch, 3 sync, 10.. kernel names.
		`INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cudaGraphLaunch_v10000'), (3, 'cudaStreamSynchronize_v3020')`,
		fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < %d) INSERT INTO StringIds SELECT 10+i, 'kernel_' || i || '<float>(float*)' FROM c`, Names-1),
		`CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER)`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, graphId INTEGER)`,
		`CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER)`,
	}
	if n > 0 {
		stmts = append(stmts,
			fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < %d)
				INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName, shortName)
				SELECT 10500+1000*i, 10500+1000*i+100+i%%%d, i%%2, 1, 7+(i%%4)/2, i+1, %d, 10+i%%%d, 10+i%%%d FROM c`, n-1, Names, GlobalPid, Names, Names),
			fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < %d)
				INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 10000+1000*i, 10000+1000*i+300, 0, %d, i+1, 1, 0, NULL FROM c`, n-1, tid),
			// In start order, as nsys writes the table: step k's row
			// just before op 100k's (w = 0 is a step, 1 an op).
			fmt.Sprintf(`WITH RECURSIVE c(i, w) AS (SELECT 0, 0 UNION ALL
				SELECT CASE WHEN w = 0 THEN i ELSE i+1 END, CASE WHEN w = 0 OR (i+1)%%100 != 0 THEN 1 ELSE 0 END FROM c WHERE i < %d AND NOT (w = 1 AND i = %d))
				INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid)
				SELECT CASE WHEN w = 0 THEN 9999+1000*i ELSE 10000+1000*i-1 END,
					CASE WHEN w = 0 THEN 10000+1000*i+99500 ELSE 10000+1000*i+301 END, 59,
					CASE WHEN w = 0 THEN 'step#' || (i/100) ELSE 'aten::op, op_id = ' || i END, %d FROM c`, n-1, n-1, tid))
	}
	stmts = append(stmts,
		fmt.Sprintf(`INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1, 2, 0, %d, %d, 3, 0, NULL)`, tid, n+1), // a sync: not a launch
		fmt.Sprintf(`INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (5, NULL, 34, 'mark', %d)`, tid))
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			return fmt.Errorf("%v\n%s", err, q)
		}
	}
	return nil
}
