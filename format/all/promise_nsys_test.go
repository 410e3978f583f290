package all

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// Promise fixtures of the nsys reader (Nsight Systems SQLite export). A
// device row's identity is the row itself: correlation ids are shared by
// the kernels of a graph launch, so a repeat is a row identical in every
// column the reader reads (grid id included), found next to its first
// copy in the reader's sorted scan, and reported as duplicate_event.

// nsysKernel is one kernel row of a fixture; a start or end "" is NULL.
type nsysKernel struct {
	start, end string
	corr       int
}

// nsysBase is the fixtures' run: three kernels, each with its launch,
// after the session start (ANALYSIS_DETAILS.startTime 1,000,000,000 ns).
func nsysBase() []nsysKernel {
	return []nsysKernel{
		{"155360295935", "155360301311", 1},
		{"155360310000", "155360318000", 2},
		{"155360320500", "155360322500", 3},
	}
}

const nsysGlobalPid = int64(111) << 24

// nsysWrite writes an nsys-shaped export (schema 3) holding the kernels
// given and a cudaLaunchKernel call for each correlation id.
func nsysWrite(t *testing.T, dir string, ks []nsysKernel) string {
	t.Helper()
	stmts := []string{
		`CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)`,
		`INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (10, 'void gemm<float>(float*, float const*, int)')`,
		`CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)`,
		`INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.25.0'), ('EXPORT_SCHEMA_VERSION_MAJOR', '3'), ('EXPORT_PARAM_TIME_NORMALIZE', 'false')`,
		`CREATE TABLE ANALYSIS_DETAILS (globalVid INTEGER, duration INTEGER, startTime INTEGER, stopTime INTEGER)`,
		`INSERT INTO ANALYSIS_DETAILS VALUES (0, 200000000000, 1000000000, 201000000000)`,
		// start and end without NOT NULL, as a damaged or hand-made
		// export may have them.
		`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, gridId INTEGER)`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER)`,
	}
	launched := map[int]bool{}
	for _, k := range ks {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (%s, %s, 0, 1, 7, %d, %d, 10, 10, %d)`, sqlValue(k.start), sqlValue(k.end), k.corr, nsysGlobalPid, 75428+k.corr))
		if !launched[k.corr] {
			launched[k.corr] = true
			at := int64(155360290000) + int64(k.corr)*1000
			stmts = append(stmts, fmt.Sprintf(`INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (%d, %d, 0, %d, %d, 1, 0, NULL)`, at, at+300, nsysGlobalPid+1, k.corr))
		}
	}
	return fixture.SQLite(t, filepath.Join(dir, "report.sqlite"), stmts...)
}

func nsysFixture() promiseFixture {
	return dbFixture(nsysBase, nsysWrite,
		func(k *nsysKernel) { k.start = "" }, // a NULL start
		func(k *nsysKernel) { k.end = "9223372036854775807" },
		capture.DuplicateEvent)
}

func init() { promiseFixtures["nsys"] = append(promiseFixtures["nsys"], nsysFixture()) }
