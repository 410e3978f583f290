package rocprof

import (
	"bytes"
	"io"
	"path/filepath"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/decimal"
)

// memory_copy_trace.csv beside kernel_trace.csv (same <pid>_ prefix) holds
// the copies: each becomes a dispatch of category "memcpy", named by its
// Direction, on a queue per (source, destination) agent pair (the file has
// no queue), in the program of the process-wide marker range around it
// (the file has no thread), else the whole capture.

// copyPath is the memory_copy_trace.csv beside a kernel_trace.csv, or "".
func copyPath(kernelPath string) string { return sideFile(kernelPath, "memory_copy_trace.csv") }

var copyColumns = []string{"direction", "source_agent_id", "destination_agent_id", "start_timestamp", "end_timestamp"}

// readCopies emits the copies of a memory_copy_trace.csv, its lines the
// unit "copy lines". A file without the needed columns is an error the
// caller reports as a note.
func (cr *csvReader) readCopies(path string) error {
	return readSideFile(path, cr.b.c, cr.b.c.Accounting.InputFor("copy lines"), true, copyColumns, cr.copyRow(filepath.Base(path)))
}

func (cr *csvReader) copies(r io.Reader, name string) error {
	return readSide(r, name, cr.b.c, cr.b.c.Accounting.InputFor("copy lines"), true, copyColumns, cr.copyRow(name))
}

func (cr *csvReader) copyRow(name string) sideRow {
	b := cr.b
	return func(f [][]byte, col map[string]int, line int64) (string, *capture.Gap) {
		at := pos{name + " line", line}
		if k, has := col["kind"]; has && !bytes.EqualFold(f[k], []byte("MEMORY_COPY")) {
			// The file holds MEMORY_COPY rows only: another kind may be a
			// copy under a new name.
			return "kind " + string(f[k]), b.unknownKind(string(f[k])+" in "+name, at.String())
		}
		start, ok1 := decimal.Int(f[col["start_timestamp"]])
		end, ok2 := decimal.Int(f[col["end_timestamp"]])
		if !ok1 || !ok2 {
			const why = "start or end is not an integer"
			return why, badSideRow(b.c, name, line, why)
		}
		r := row{queue: capture.NoQueue, start: start, end: end, copy: true}
		if c, has := col["correlation_id"]; has {
			r.corr, _ = decimal.Uint(f[c])
		}
		if cr.marks != nil {
			r.prog, r.instance = cr.marks.program(b, 0, start)
		} else {
			r.prog = b.program(wholeCapture)
		}
		r.queue = b.copyQueue(agentLabel(f[col["source_agent_id"]]), agentLabel(f[col["destination_agent_id"]]), string(f[col["direction"]]))
		r.kernel = b.kernel(r.prog, append([]byte("memory copy "), f[col["direction"]]...), 0, false, "memcpy")
		// emit counts a row it keeps out of the tables as skipped in
		// b.unit; readSide accounts the copy lines, so emit counts into a
		// probe and its verdict and gap are returned.
		unit := b.unit
		var probe capture.InputCount
		b.unit = &probe
		g := b.emit(&r, at)
		b.unit = unit
		if g != nil {
			return probe.Skipped[0].Reason, g
		}
		return "", nil
	}
}

// agentLabel is an Agent_Id as the queues show it: a bare node id (2024
// files) reads "agent N".
func agentLabel(a []byte) string {
	if isDigits(a) {
		return "agent " + string(a)
	}
	return string(a)
}
