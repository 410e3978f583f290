package rocprof

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// rocprofv3 writes one CSV per domain beside kernel_trace.csv, all with
// the same <pid>_ prefix: marker_api_trace.csv (programs),
// hip_api_trace.csv (launches) and memory_copy_trace.csv (copies). They
// are read with the same rules: columns by header name, lines accounted
// as their own unit, a file without the needed columns named in the
// inventory and otherwise ignored.

// sideFile is the first of names that exists as a regular file beside a
// kernel_trace.csv, or "" (also when kernelPath is not a kernel_trace.csv).
func sideFile(kernelPath string, names ...string) string {
	dir, base := filepath.Split(kernelPath)
	prefix, ok := strings.CutSuffix(base, "kernel_trace.csv")
	if !ok {
		return ""
	}
	for _, name := range names {
		p := filepath.Join(dir, prefix+name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// sideRow handles one data row of a side file (its fields, the header's
// columns by lower-case name, its line number) and returns "" when the row
// is used, else why it is skipped and the gap that lists the row when what
// it held (a copy, a marker range) is lost; nil for a row of another kind.
type sideRow func(f [][]byte, col map[string]int, line int64) (skip string, listed *capture.Gap)

// readSideFile opens path and reads it with readSide.
func readSideFile(path string, c *capture.Capture, rows *capture.InputCount, device bool, need []string, fn sideRow) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return readSide(f, filepath.Base(path), c, rows, device, need, fn)
}

// badSideRow lists a side-file row that does not parse in a gap, as the
// kernel file's own bad rows are: what it held is not in the tables (or,
// for a marker range, its dispatches are under another program), so the
// capture cannot read as complete. c is nil for a file whose rows add
// nothing to the tables (the HIP API trace): then nothing is listed and
// the result is nil.
func badSideRow(c *capture.Capture, name string, line int64, why string) *capture.Gap {
	if c == nil {
		return nil
	}
	g := c.Accounting.Gap(capture.SkippedInput, "")
	if g.Summary == "" {
		g.Summary = "rows that do not parse: not in the tables"
	}
	g.Add(capture.Item{What: why, Where: name + " line " + itoa(line)})
	return g
}

// readLine appends the next line to buf, up to maxRecord bytes, and
// returns it with the count of bytes past that, read and not kept.
func readLine(br *bufio.Reader, buf []byte) ([]byte, int64, error) {
	var dropped int64
	for {
		chunk, err := br.ReadSlice('\n')
		if room := maxRecord - len(buf); room >= len(chunk) {
			buf = append(buf, chunk...)
		} else {
			buf = append(buf, chunk[:max(room, 0)]...)
			dropped += int64(len(chunk) - max(room, 0))
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, dropped, err
		}
	}
}

// readSide reads a side CSV (name: its file name, for positions): a header
// holding the need columns, then rows of the header's width, each passed to
// fn; every line is counted in rows, and every malformed row listed.
// device says the rows are device work (copies): a row kept out of the
// tables is lost, under the gap that lists it. Marker and API rows are
// host events: skipped rows are not device work, even when a gap lists
// them (a lost marker range moves dispatches to another program).
func readSide(r io.Reader, name string, c *capture.Capture, rows *capture.InputCount, device bool, need []string, fn sideRow) error {
	br := bufio.NewReader(r)
	var fields [][]byte
	var scratch []byte
	col := map[string]int{}
	nfields := 0 // the header's field count (names may repeat)
	line := int64(0)
	skip := func(why, where string, listed *capture.Gap) {
		if device && listed != nil {
			rows.Lose(listed, why, 1, where)
		} else {
			rows.Ignore(why, 1, where)
		}
	}
	var raw []byte
	for {
		var dropped int64
		var err error
		raw, dropped, err = readLine(br, raw[:0])
		if len(raw) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		line++
		rows.Read++
		if dropped > 0 && line > 1 {
			why := fmt.Sprintf("a line of %d bytes, longer than the %d MiB tally holds: skipped", int64(len(raw))+dropped, maxRecord>>20)
			skip("line longer than 4 MiB", "line "+itoa(line), badSideRow(c, name, line, why))
			continue
		}
		rec := trimEOL(raw)
		var ok bool
		fields, scratch, ok = splitFields(rec, fields[:0], scratch)
		if line == 1 {
			nfields = len(fields)
			for i, h := range fields {
				k := strings.ToLower(strings.TrimSpace(string(format.TrimBOM(h))))
				if _, dup := col[k]; !dup {
					col[k] = i
				}
			}
			for _, n := range need {
				if _, has := col[n]; !has {
					// The header line itself held no data; the file's
					// rows, never read, are the caller's failed_input gap.
					rows.Ignore("the header lacks a needed column", 1, "line 1")
					return errors.New("no " + n + " column")
				}
			}
			rows.Used++
			continue
		}
		where := "line " + itoa(line)
		switch {
		case len(rec) == 0:
			rows.Ignore("blank line", 1, where)
		case !ok || len(fields) != nfields:
			skip("row does not parse", where, badSideRow(c, name, line, "row does not parse"))
		default:
			if why, listed := fn(fields, col, line); why != "" {
				skip(why, where, listed)
			} else {
				rows.Used++
			}
		}
	}
}
