package rocprof

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/ranges"
)

// kernel_trace.csv holds no marker ranges: rocprofv3 writes ROCTx ranges
// to marker_api_trace.csv beside it (same <pid>_ prefix). When that file
// exists, a dispatch's program is the outermost ROCTx range open on the
// dispatch's Thread_Id when the dispatch started (the kernel file has no
// launch time), or a process-wide range (roctxRangeStart, Thread_Id 0);
// otherwise the whole capture.

type markerSet struct {
	path  string
	set   ranges.Set
	names []string
	rows  *capture.InputCount
}

type markerRow struct {
	tid, start, end int64
	name            string
}

// markerPath is the marker_api_trace.csv beside a kernel_trace.csv, or "".
func markerPath(kernelPath string) string {
	dir, base := filepath.Split(kernelPath)
	prefix, ok := strings.CutSuffix(base, "kernel_trace.csv")
	if !ok {
		return ""
	}
	p := filepath.Join(dir, prefix+"marker_api_trace.csv")
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return p
}

// loadMarkers reads the ranges of a marker_api_trace.csv. A file that
// cannot be read or has no usable header is reported by the caller as a
// note; the kernel file is still read.
func loadMarkers(path string, c *capture.Capture) (*markerSet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := &markerSet{path: path, rows: c.Accounting.InputFor("marker lines")}
	br := bufio.NewReader(f)
	var fields [][]byte
	var scratch []byte
	col := map[string]int{}
	nfields := 0 // the header's field count (names may repeat)
	var rows []markerRow
	line := int64(0)
	for {
		raw, err := br.ReadBytes('\n')
		if len(raw) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
		line++
		m.rows.Read++
		rec := trimEOL(raw)
		var ok bool
		fields, scratch, ok = splitFields(rec, fields[:0], scratch)
		if line == 1 {
			nfields = len(fields)
			for i, h := range fields {
				col[strings.ToLower(string(h))] = i
			}
			for _, need := range []string{"domain", "function", "thread_id", "start_timestamp", "end_timestamp"} {
				if _, has := col[need]; !has {
					return nil, errors.New("no " + need + " column")
				}
			}
			m.rows.Used++
			continue
		}
		if !ok || len(fields) != nfields {
			m.rows.Skip("row does not parse", 1, "line "+itoa(line))
			continue
		}
		if !bytes.Equal(fields[col["domain"]], []byte("MARKER_CORE_API")) {
			m.rows.Skip("not a ROCTx range", 1, "line "+itoa(line))
			continue
		}
		tid, ok1 := parseInt(fields[col["thread_id"]])
		start, ok2 := parseInt(fields[col["start_timestamp"]])
		end, ok3 := parseInt(fields[col["end_timestamp"]])
		if !ok1 || !ok2 || !ok3 || end <= start {
			m.rows.Skip("a mark, not a range (start = end) or no times", 1, "line "+itoa(line))
			continue
		}
		m.rows.Used++
		rows = append(rows, markerRow{tid, start, end, markerName(string(fields[col["function"]]))})
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.tid != b.tid {
			return a.tid < b.tid
		}
		if a.start != b.start {
			return a.start < b.start
		}
		return a.end > b.end
	})
	for _, r := range rows {
		if _, kept := m.set.Add(r.tid, r.start, r.end); kept {
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
