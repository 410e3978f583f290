package rocprof

import (
	"bytes"
	"path/filepath"
	"sort"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/outerrange"
	"github.com/tallyprof/tally/internal/decimal"
)

// kernel_trace.csv holds no marker ranges: rocprofv3 writes ROCTx ranges
// to marker_api_trace.csv beside it (same <pid>_ prefix). When that file
// exists, a dispatch's program is the outermost ROCTx range open on the
// dispatch's Thread_Id when the dispatch started (the kernel file has no
// launch time), or a process-wide range (roctxRangeStart, Thread_Id 0);
// otherwise the whole capture.

type markerSet struct {
	path  string
	set   outerrange.Set
	names []string
	rows  *capture.InputCount
}

type markerRow struct {
	outerrange.Range // Key: the thread id
	name             string
}

// markerPath is the marker_api_trace.csv beside a kernel_trace.csv, or "".
func markerPath(kernelPath string) string { return sideFile(kernelPath, "marker_api_trace.csv") }

// loadMarkers reads the ranges of a marker_api_trace.csv. A file that
// cannot be read or has no usable header is reported by the caller as a
// note; the kernel file is still read.
func loadMarkers(path string, c *capture.Capture) (*markerSet, error) {
	m := &markerSet{path: path, rows: c.Accounting.InputFor("marker lines")}
	var rows []markerRow
	name := filepath.Base(path)
	err := readSideFile(path, c, m.rows, false, []string{"domain", "function", "thread_id", "start_timestamp", "end_timestamp"}, func(f [][]byte, col map[string]int, line int64) (string, *capture.Gap) {
		if !bytes.Equal(f[col["domain"]], []byte("MARKER_CORE_API")) {
			return "not a ROCTx range", nil
		}
		tid, ok1 := decimal.Int(f[col["thread_id"]])
		start, ok2 := decimal.Int(f[col["start_timestamp"]])
		end, ok3 := decimal.Int(f[col["end_timestamp"]])
		switch {
		case !ok1 || !ok2 || !ok3:
			// A range lost: its dispatches fall under another program.
			const why = "thread id or time is not an integer"
			return why, badSideRow(c, name, line, why)
		case end < start:
			const why = "range ends before it starts"
			return why, badSideRow(c, name, line, why)
		case end == start:
			return "a mark, not a range (start = end)", nil
		}
		rows = append(rows, markerRow{outerrange.Range{Key: tid, Start: start, End: end}, markerName(string(f[col["function"]]))})
		return "", nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Before(rows[j].Range) })
	for _, r := range rows {
		if _, kept := m.set.Add(r.Key, r.Start, r.End); kept {
			m.names = append(m.names, r.name)
		}
	}
	return m, nil
}

// program returns the program of the outermost range around ts on thread
// tid, or on the process-wide thread 0, else "(no marker range)".
func (m *markerSet) program(b *builder, tid, ts int64) (capture.ProgramID, int64) {
	g := m.set.Outermost(tid, ts)
	if g < 0 && tid != 0 {
		g = m.set.Outermost(0, ts)
	}
	if g < 0 {
		return b.program(noMarker), 0
	}
	return b.rangeProgram(m.names[g], int64(g))
}

// noMarker is the program of dispatches outside every marker range.
const noMarker = "(no marker range)"
