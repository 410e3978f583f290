// Package hrxserial reads ggml-hrx "hrx debug serial" traces: raw stderr
// (no times) and tally's kept traces (each line stamped on arrival, see
// docs/kept-trace.md). Specification: shared/specs/hrx-serial.md.
//
// A program is a command program identified by its main_commands count;
// each command of kind Kernel is a dispatch whose device time is the span
// from the end of its enqueue to the end of the stream sync that follows it.
package hrxserial

import (
	"bytes"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
	"github.com/tallyprof/tally/format"
)

// Name is the format's registered name.
const Name = "hrx-serial"

func init() {
	format.Register(format.Format{
		Name:        Name,
		Description: "ggml-hrx debug-serial trace: raw stderr, or a kept trace written by 'tally record'",
		Sniff:       Sniff,
		Claims:      func(line []byte) bool { return bytes.HasPrefix(line, tracePrefix) },
		Read:        Read,
	})
}

// Sniff recognises a kept-trace header (certain) or a trace line near the
// start (likely). Any other text is accepted as a fallback so that a file
// with no trace line at all is reported as an empty capture, not as an
// unknown format.
func Sniff(head []byte) format.Confidence {
	hasTrace := bytes.Contains(head, tracePrefix)
	if bytes.HasPrefix(head, headerPrefix) {
		if hasTrace {
			return format.Certain
		}
		// A kept trace of another line reader (npu-prof) shares the header.
		return format.Likely
	}
	if hasTrace {
		return format.Likely
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return format.No
	}
	return format.Fallback
}

// Read reads a raw or kept trace, naming kernels from opts' catalog or
// manifests.
func Read(in *format.Input, opts *format.Options, sink capture.Sink) (*capture.Capture, error) {
	cat := opts.Catalog
	if cat == nil {
		var err error
		if cat, err = catalog.Load(opts.Manifests); err != nil {
			return nil, err
		}
	}
	r, err := in.Reader()
	if err != nil {
		return nil, err
	}
	return ReadStream(r, in.Path, cat, sink)
}
