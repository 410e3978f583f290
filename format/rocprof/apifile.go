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

// apiFiles are the HIP API trace names rocprofv3 has written beside
// kernel_trace.csv (same <pid>_ prefix), in the order they are looked for:
// hip_api_trace.csv (current), hip_runtime_trace.csv and hip_trace.csv
// (earlier releases and the docs data).
var apiFiles = []string{"hip_api_trace.csv", "hip_runtime_trace.csv", "hip_trace.csv"}

// apiPath is the HIP API trace beside a kernel_trace.csv, or "".
func apiPath(kernelPath string) string {
	dir, base := filepath.Split(kernelPath)
	prefix, ok := strings.CutSuffix(base, "kernel_trace.csv")
	if !ok {
		return ""
	}
	for _, name := range apiFiles {
		p := filepath.Join(dir, prefix+name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// loadAPI reads a HIP API trace into l; its lines are accounted as their
// own unit. A file without the needed columns is an error the caller
// reports as a note (the kernel file is still read, unlinked).
func loadAPI(path string, l *linker, c *capture.Capture) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return readAPI(f, l, c.Accounting.InputFor("API lines"))
}

func readAPI(r io.Reader, l *linker, rows *capture.InputCount) error {
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
			for _, need := range []string{"domain", "function", "correlation_id", "start_timestamp", "end_timestamp"} {
				if _, has := col[need]; !has {
					rows.Skip("not a HIP API trace header", 1, "line 1")
					return errors.New("no " + need + " column")
				}
			}
			rows.Used++
			continue
		}
		if len(rec) == 0 {
			rows.Skip("blank line", 1, "line "+itoa(line))
			continue
		}
		if !ok || len(fields) != nfields {
			rows.Skip("row does not parse", 1, "line "+itoa(line))
			continue
		}
		if !bytes.HasPrefix(fields[col["domain"]], []byte("HIP_")) {
			rows.Skip("not a HIP API row", 1, "line "+itoa(line))
			continue
		}
		corr, ok1 := parseUint(fields[col["correlation_id"]])
		start, ok2 := parseInt(fields[col["start_timestamp"]])
		end, ok3 := parseInt(fields[col["end_timestamp"]])
		if !ok1 || !ok2 || !ok3 {
			rows.Skip("correlation id or time is not an integer", 1, "line "+itoa(line))
			continue
		}
		if !l.addAPI(corr, string(fields[col["function"]]), start, end) {
			rows.Skip("correlation id 0 (none)", 1, "line "+itoa(line))
			continue
		}
		rows.Used++
	}
}
