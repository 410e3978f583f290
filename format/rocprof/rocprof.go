// Package rocprof reads AMD ROCm profiler output (spec:
// shared/specs/rocprof.md; notes: docs/formats/rocprof.md):
//
//   - rocprofv3 kernel_trace.csv, both header generations (2024 and
//     current) and `rocpd convert` CSV, columns found by header name;
//   - legacy rocprof v1 results.csv;
//   - rocprofv3 native JSON (`--output-format json`), plain or gzip;
//   - the rocpd SQLite database (registered separately as "rocpd").
//
// A dispatch's queue is its (agent, queue); its program is the ROCTx
// marker range around it where the input has one (rocpd), else the whole
// capture. Rows kept out of the tables are lost input, counted and listed
// in a gap: missing or impossible times (never swapped or clamped),
// repeated dispatch ids, rows of an unknown kind, rows that do not parse.
package rocprof

import (
	"bytes"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// Name is the registered name of the CSV and JSON reader.
const Name = "rocprof"

// lastRowNoEOL notes a file whose last row has no line ending.
const lastRowNoEOL capture.Kind = "unterminated_last_row"

func init() {
	capture.RegisterNote(lastRowNoEOL, capture.ViewDroppedRows)
	format.Register(format.Format{
		Name:        Name,
		Description: "AMD rocprofv3 kernel_trace.csv (2024 and current headers, rocpd convert), rocprof v1 results.csv, rocprofv3 JSON",
		Sniff:       Sniff,
		Read:        Read,
		Uses:        []format.Option{},
	})
}

var boottimeClock = capture.Clock{
	Domain: "boottime", Unit: "ns", Timed: true,
	Description: "ns on CLOCK_BOOTTIME as written by ROCprofiler-SDK, which corrects times before writing them (it swaps a reversed start/end and shifts intervals for host/device clock skew), so positions may have moved while durations survive",
}

var v1Clock = capture.Clock{
	Domain: "hsa-system", Unit: "ns", Timed: true,
	Description: "ns on the HSA system clock, as legacy rocprof (v1) wrote BeginNs/EndNs",
}

// Sniff recognises a rocprof CSV header or the rocprofv3 JSON top-level key.
func Sniff(head []byte) format.Confidence {
	h := bytes.TrimLeft(format.TrimBOM(head), " \t\r\n")
	if len(h) > 0 && h[0] == '{' {
		if bytes.Contains(h[:min(len(h), 256)], []byte(`"rocprofiler-sdk-tool"`)) {
			return format.Certain
		}
		return format.No
	}
	line := h
	if i := bytes.IndexByte(h, '\n'); i >= 0 {
		line = h[:i]
	}
	l := bytes.ToLower(line)
	switch {
	case bytes.Contains(l, []byte("kernel_name")) && bytes.Contains(l, []byte("start_timestamp")):
		return format.Certain
	case bytes.HasPrefix(l, []byte(`"index","kernelname"`)) || bytes.HasPrefix(l, []byte(`index,kernelname`)):
		return format.Certain
	case bytes.Contains(l, []byte("correlation_id")) && bytes.Contains(l, []byte("start_timestamp")),
		bytes.Contains(l, []byte("totaldurationns")) && bytes.Contains(l, []byte("calls")):
		// Another rocprof CSV (API, copy, marker trace; a stats file):
		// claimed so that Read says which file to give, rather than
		// another reader reading it as text without a trace line.
		return format.Companion
	}
	return format.No
}

// Read reads a rocprofv3 or rocprof v1 CSV, or a rocprofv3 JSON.
func Read(in *format.Input, opts *format.Options, sink capture.Sink) (*capture.Capture, error) {
	r, err := in.Reader()
	if err != nil {
		return nil, format.FileError(in.Path, err, "is it a complete .gz file?", "cannot decompress: %v", err)
	}
	head, err := in.Head()
	if err != nil {
		return nil, format.FileError(in.Path, err, "", "reading: %v", err)
	}
	h := bytes.TrimLeft(format.TrimBOM(head), " \t\r\n")
	if len(h) > 0 && h[0] == '{' {
		return readJSON(r, in.Path, sink, ceilingOf(opts))
	}
	return readCSV(r, in.Path, sink, ceilingOf(opts))
}

// ceilingOf is the longest interval accepted as measured (ns; 0 for the
// default, capture.MaxDuration): the same ceiling capture.Checked holds
// every reader to.
func ceilingOf(opts *format.Options) int64 {
	if opts == nil {
		return 0
	}
	return int64(opts.MaxDuration)
}
