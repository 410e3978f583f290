// Package npuprof reads an NPU inference engine's standard error: the
// NPU_PROFILE cumulative GEMM means (`[prof] npu_gemm …`), the per-family
// profiler rows (`[prof] pre|dec ROLE M launches pack launch wait readback
// total`) and the layer-statistics lines (`[L]`, `[mla]`, `[G]`, `[debug]`),
// raw or kept by `tally record` (each line stamped on arrival,
// docs/kept-trace.md). Specification: shared/specs/npu-prof.md; user
// documentation: docs/formats/npuprof.md.
//
// The profiler prints sums and means, never single launches, so every
// dispatch this reader emits is an aggregated record (capture.Aggregate):
// counts and totals, with per-launch times, minima and maxima unknown.
package npuprof

import (
	"bytes"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// Name is the format's registered name.
const Name = "npu-prof"

// OpenWindow counts a profiler window that was open when the log ended:
// the log shows engine activity after the last per-family row, so launches
// ran that no row reports.
const OpenWindow capture.Kind = "open_window"

func init() {
	format.Register(format.Format{
		Name:        Name,
		Description: "NPU engine stderr: [prof] npu_gemm means, [prof] pre|dec rows, [L] layer lines; raw or kept by 'tally record'",
		Sniff:       Sniff,
		Claims:      Claims,
		Read:        Read,
	})
}

var (
	keptHeader = []byte("# tally kept trace v")
	markers    = [][]byte{gemmPrefix, []byte("[prof] pre "), []byte("[prof] dec "), []byte("  [L] "), []byte("  [mla] "), []byte("  [G] l=")}
)

// Sniff is Likely when an engine line appears in the head, and Certain when
// the head is also a kept trace (whose header alone is hrx-serial's).
func Sniff(head []byte) format.Confidence {
	found := false
	for _, m := range markers {
		if bytes.Contains(head, m) {
			found = true
			break
		}
	}
	switch {
	case !found:
		return format.No
	case bytes.HasPrefix(head, keptHeader):
		return format.Certain
	}
	return format.Likely
}

// Claims reports whether an unstamped output line is one this reader uses,
// so that `tally record` keeps it from whichever stream it came.
func Claims(line []byte) bool {
	k, _ := classify(line)
	return k != kindOther
}

// Read reads an NPU engine log, raw or kept.
func Read(in *format.Input, opts *format.Options, sink capture.Sink) (*capture.Capture, error) {
	r, err := in.Reader()
	if err != nil {
		return nil, err
	}
	return readStream(r, in.Path, int64(opts.MaxDuration), sink)
}
