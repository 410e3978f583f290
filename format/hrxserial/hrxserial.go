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
		Uses:        []format.Option{format.OptManifests}, // the kernel catalog
	})
}

// Sniff recognises a kept-trace header (tally's own file) or an hrx line:
// a trace line, or the sync-failure and rejected-program messages of an
// hrx run, raw or behind a kept trace's stamp. Both is certain; either is
// likely (the header alone: a kept trace whose command printed no trace
// line, or one of another line reader, which its own sniffer outbids).
// Anything else is No: a text without an hrx line is not an empty hrx
// trace, and its refusal must not advise hrx's debug switch.
func Sniff(head []byte) format.Confidence {
	kept := bytes.HasPrefix(head, headerPrefix)
	lines := hasLine(head)
	switch {
	case kept && lines:
		return format.Certain
	case kept || lines:
		return format.Likely
	}
	return format.No
}

// hasLine reports whether a line of head is an hrx line (see evidence).
func hasLine(head []byte) bool {
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		if evidence(line) {
			return true
		}
	}
	return false
}

// evidence reports whether one line, raw or stamped, is written by an hrx
// run: a trace line, or a message the reader surfaces as a gap.
func evidence(line []byte) bool {
	_, rest, _, _ := stamp(line)
	return bytes.HasPrefix(rest, tracePrefix) || bytes.HasPrefix(rest, syncFailed) || bytes.Contains(rest, invalidProg)
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
