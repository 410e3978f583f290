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
// is used, else why it is skipped.
type sideRow func(f [][]byte, col map[string]int, line int64) (skip string)

// readSideFile opens path and reads it with readSide.
func readSideFile(path string, rows *capture.InputCount, need []string, fn sideRow) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return readSide(f, rows, need, fn)
}

// readSide reads a side CSV: a header holding the need columns, then rows
// of the header's width, each passed to fn; every line is counted in rows.
func readSide(r io.Reader, rows *capture.InputCount, need []string, fn sideRow) error {
	br := bufio.NewReader(r)
	var fields [][]byte
	var scratch []byte
	col := map[string]int{}
	nfields := 0 // the header's field count (names may repeat)
	line := int64(0)
	for {
		raw, err := br.ReadBytes('\n')
		if len(raw) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		line++
		rows.Read++
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
			for _, n := range need {
				if _, has := col[n]; !has {
					rows.Skip("the header lacks a needed column", 1, "line 1")
					return errors.New("no " + n + " column")
				}
			}
			rows.Used++
			continue
		}
		where := "line " + itoa(line)
		switch {
		case len(rec) == 0:
			rows.Skip("blank line", 1, where)
		case !ok || len(fields) != nfields:
			rows.Skip("row does not parse", 1, where)
		default:
			if why := fn(fields, col, line); why != "" {
				rows.Skip(why, 1, where)
			} else {
				rows.Used++
			}
		}
	}
}
