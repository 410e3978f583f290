package rocprof

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tallyprof/tally/capture"
)

// memory_copy_trace.csv beside kernel_trace.csv (same <pid>_ prefix) holds
// the copies: each becomes a dispatch of category "memcpy", named by its
// Direction, on a queue per (source, destination) agent pair (the file has
// no queue), in the program of the process-wide marker range around it
// (the file has no thread), else the whole capture.

// copyPath is the memory_copy_trace.csv beside a kernel_trace.csv, or "".
func copyPath(kernelPath string) string {
	dir, base := filepath.Split(kernelPath)
	prefix, ok := strings.CutSuffix(base, "kernel_trace.csv")
	if !ok {
		return ""
	}
	p := filepath.Join(dir, prefix+"memory_copy_trace.csv")
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return p
}

// readCopies emits the copies of a memory_copy_trace.csv. A file without
// the needed columns is an error the caller reports as a note.
func (cr *csvReader) readCopies(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return cr.copies(f, filepath.Base(path))
}

func (cr *csvReader) copies(r io.Reader, name string) error {
	b := cr.b
	lines := b.c.Accounting.InputFor("copy lines")
	br := bufio.NewReader(r)
	var fields [][]byte
	var scratch []byte
	col := map[string]int{}
	nfields := 0 // the header's field count (names may repeat)
	line := int64(0)
	where := func() string { return name + " line " + itoa(line) }
	for {
		raw, err := br.ReadBytes('\n')
		if len(raw) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		line++
		lines.Read++
		rec := trimEOL(raw)
		var ok bool
		fields, scratch, ok = splitFields(rec, fields[:0], scratch)
		if line == 1 {
			nfields = len(fields)
			for i, h := range fields {
				k := strings.ToLower(strings.TrimSpace(string(bytes.TrimPrefix(h, []byte{0xEF, 0xBB, 0xBF}))))
				if _, dup := col[k]; !dup {
					col[k] = i
				}
			}
			for _, need := range []string{"direction", "source_agent_id", "destination_agent_id", "start_timestamp", "end_timestamp"} {
				if _, has := col[need]; !has {
					lines.Skip("not a memory copy header", 1, where())
					return errors.New("no " + need + " column")
				}
			}
			lines.Used++
			continue
		}
		if len(rec) == 0 {
			lines.Skip("blank line", 1, where())
			continue
		}
		if !ok || len(fields) != nfields {
			lines.Skip("row does not parse", 1, where())
			continue
		}
		if k, has := col["kind"]; has && !bytes.EqualFold(fields[k], []byte("MEMORY_COPY")) {
			lines.Skip("kind "+string(fields[k]), 1, where())
			continue
		}
		start, ok1 := parseInt(fields[col["start_timestamp"]])
		end, ok2 := parseInt(fields[col["end_timestamp"]])
		if !ok1 || !ok2 {
			lines.Skip("start or end is not an integer", 1, where())
			continue
		}
		row := row{queue: capture.NoQueue, start: start, end: end, copy: true}
		if c, has := col["correlation_id"]; has {
			row.corr, _ = parseUint(fields[c])
		}
		switch {
		case cr.marks != nil:
			row.prog, row.instance = cr.marks.program(b, 0, start)
		default:
			row.prog = b.program(wholeCapture)
		}
		row.queue = b.copyQueue(agentLabel(fields[col["source_agent_id"]]), agentLabel(fields[col["destination_agent_id"]]))
		row.kernel = b.kernel(row.prog, append([]byte("memory copy "), fields[col["direction"]]...), 0, false, "memcpy")
		// The builder accounts the kernel file's lines; copy lines are
		// their own unit.
		unit := b.unit
		b.unit = lines
		b.emit(&row, pos{name + " line", line})
		b.unit = unit
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
