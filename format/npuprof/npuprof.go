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
	capture.RegisterKind(OpenWindow, capture.UnknownSize("launches of a window still open at the end are in no row: how many, and how long they ran, is unknown"))
	format.Register(format.Format{
		Name:        Name,
		Description: "NPU engine stderr: [prof] npu_gemm means, [prof] pre|dec rows, [L] layer lines; raw or kept by 'tally record'",
		Sniff:       Sniff,
		Claims:      Claims,
		Read:        Read,
		Uses:        []format.Option{},
	})
}

var keptHeader = []byte("# tally kept trace v")

// Sniff is Likely when a line of the head, raw or stamped, is an engine
// line of the grammar (see evidence), and Certain when the head is also a
// kept trace (whose header alone is hrx-serial's). Indentation does not
// matter: a stalled run's log may hold only unindented `[L]` and `[mla]`
// lines, and is this reader's to say that no window completed.
func Sniff(head []byte) format.Confidence {
	head = format.TrimBOM(head)
	found := false
	for rest := head; len(rest) > 0 && !found; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		body, _ := stamp(bytes.TrimSuffix(line, []byte("\r")))
		found = evidence(body)
	}
	switch {
	case !found:
		return format.No
	case bytes.HasPrefix(head, keptHeader):
		return format.Certain
	}
	return format.Likely
}

// evidence reports whether an unstamped line is an engine line in full: its
// tag and the fields the grammar gives it (spec §1–3, docs/formats/npuprof.md).
// A tag alone ("[prof] " opens other programs' lines too) is not enough to
// claim a file, though Claims keeps such a line for the reader to report.
func evidence(line []byte) bool {
	k, b := classify(line)
	switch k {
	case kindGemm:
		_, ok := parseGemm(b)
		return ok
	case kindRow:
		_, ok := parseRow(b)
		return ok
	case kindLayer:
		_, ok := parseLayer(b)
		return ok
	case kindMLA, kindHidden:
		return true // "[mla] L<digit>", "[debug] hidden pos "
	case kindStep:
		rest := b[len(mlaPrefix):]
		return bytes.HasPrefix(rest, []byte("final xn:")) || bytes.HasPrefix(rest, []byte("pre-norm x:"))
	case kindLinear:
		rest := b[len(linearPrefix):]
		return len(rest) > 2 && rest[0] == 'l' && rest[1] == '=' && rest[2] >= '0' && rest[2] <= '9'
	}
	return false
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
