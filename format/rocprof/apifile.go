package rocprof

import (
	"bytes"
	"io"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/decimal"
)

// apiFiles are the HIP API trace names rocprofv3 has written beside
// kernel_trace.csv, in the order they are looked for: hip_api_trace.csv
// (current), hip_runtime_trace.csv and hip_trace.csv (earlier releases and
// the docs data).
var apiFiles = []string{"hip_api_trace.csv", "hip_runtime_trace.csv", "hip_trace.csv"}

// apiPath is the HIP API trace beside a kernel_trace.csv, or "".
func apiPath(kernelPath string) string { return sideFile(kernelPath, apiFiles...) }

// loadAPI reads a HIP API trace into l; its lines are the unit "API
// lines". A file without the needed columns is an error the caller
// reports as a note (the kernel file is still read, unlinked); a row that
// does not parse is counted and, as it only loses a link, listed in no gap
// (its dispatch shows as gpu_event_without_launch).
func loadAPI(path string, l *linker, c *capture.Capture) error {
	return readSideFile(path, nil, c.Accounting.InputFor("API lines"), false, apiColumns, l.apiRow)
}

func readAPI(r io.Reader, l *linker, rows *capture.InputCount) error {
	return readSide(r, "hip_api_trace.csv", nil, rows, false, apiColumns, l.apiRow)
}

var apiColumns = []string{"domain", "function", "correlation_id", "start_timestamp", "end_timestamp"}

func (l *linker) apiRow(f [][]byte, col map[string]int, _ int64) (string, *capture.Gap) {
	if !bytes.HasPrefix(f[col["domain"]], []byte("HIP_")) {
		return "not a HIP API row", nil
	}
	corr, ok1 := decimal.Uint(f[col["correlation_id"]])
	start, ok2 := decimal.Int(f[col["start_timestamp"]])
	end, ok3 := decimal.Int(f[col["end_timestamp"]])
	if !ok1 || !ok2 || !ok3 {
		return "correlation id or time is not an integer", nil
	}
	if !l.addAPI(corr, string(f[col["function"]]), start, end) {
		return "correlation id 0 (none)", nil
	}
	return "", nil
}
