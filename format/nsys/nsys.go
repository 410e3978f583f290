// Package nsys reads NVIDIA Nsight Systems SQLite exports
// (`nsys export --type sqlite`; spec: shared/specs/nsys.md; notes:
// docs/formats/nsys.md).
//
// Dispatches are the rows of CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY and
// _MEMSET (categories kernel, memcpy, memset). A dispatch's queue is its
// (process, device, stream); its launch is the CUPTI_ACTIVITY_KIND_RUNTIME
// row with the same correlation id in the same process; its program is the
// outermost NVTX range around that launch on the launching thread, else the
// whole capture. Kernel names are StringIds[demangledName]: the full
// demangled name, so template instances stay apart (shortName would merge
// them).
package nsys

import (
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/sqlitein"
)

// Name is the format's registered name.
const Name = "nsys"

func init() {
	format.Register(format.Format{
		Name:        Name,
		Description: "NVIDIA Nsight Systems SQLite export (nsys export --type sqlite)",
		Sniff:       Sniff,
		Read:        Read,
		Engine:      sqlitein.Engine,
		Uses:        []format.Option{format.OptOps}, // NVTX ranges, read for --by op
	})
}

// Sniff recognises an SQLite database whose schema (stored in plain text
// on its first pages) names nsys tables. Any other SQLite database is No:
// it is evidence of SQLite, not of nsys (a browser's history is not an
// empty Nsight export); --format nsys reads it all the same, and says what
// it lacks.
func Sniff(head []byte) format.Confidence {
	if exportSchema(head) {
		return format.Certain
	}
	return format.No
}

// exportSchema tells an export by its schema: a table (or an index or
// view on one) an Nsight Systems export has, named in SQL.
var exportSchema = sqlitein.SchemaNames(`CUPTI_ACTIVITY_KIND_|META_DATA_EXPORT\b|StringIds\b|NVTX_EVENTS\b|TARGET_INFO_SESSION_START_TIME\b`)

// Read reads an nsys SQLite export.
func Read(in *format.Input, opts *format.Options, sink capture.Sink) (*capture.Capture, error) {
	db, err := sqlitein.Open(in)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if sink == nil {
		sink = capture.Discard
	}
	if isRocpd(db) {
		// Given as --format nsys.
		return nil, format.FileError(in.Path, nil, "read it with --format rocpd", "this is a rocprofv3 rocpd database, not an Nsight Systems export")
	}
	r := &reader{db: db, sink: sink, c: &capture.Capture{}, ceiling: capture.MaxDuration}
	if opts != nil && opts.Ops {
		r.ops = newNvtxOps()
	}
	if opts != nil && opts.MaxDuration > 0 {
		r.ceiling = int64(opts.MaxDuration) // --max-duration, as capture.Checked holds it
	}
	return r.read()
}

// isRocpd reports a database with rocpd tables and none of nsys's.
func isRocpd(db *sqlitein.DB) bool {
	if db.Has("StringIds") || db.Has("META_DATA_EXPORT") || db.Has(kernelTable) {
		return false
	}
	for t := range db.Tables {
		if strings.HasPrefix(t, "rocpd_") {
			return true
		}
	}
	return false
}
