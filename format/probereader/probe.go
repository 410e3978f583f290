// Package probereader reads the capture files tally's probe package writes
// (docs/probe-format.md): a versioned header, then length-framed records of
// definitions, dispatch events, checkpoints, summaries and an end record.
//
// The file states its own losses, and the reader turns them into gaps:
// dispatches dropped by full rings (dropped_records), dispatches in flight
// at the last checkpoint (unfinished_dispatch, with kernel, launch time and
// the last dispatch completed on the queue), a session never closed
// (unfinalized_capture), a cut record (truncated_input), and a session that
// asked for dispatch events and recorded none (empty_capture).
package probereader

import (
	"bytes"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/probefile"
)

// Name is the format's registered name.
const Name = "probe"

// ClosedBySignal is a note: the session was closed by the SIGINT/SIGTERM
// handler, so the run did not reach its own end.
const ClosedBySignal capture.Kind = "closed_by_signal"

func init() {
	capture.RegisterNote(ClosedBySignal)
	format.Register(format.Format{
		Name:        Name,
		Description: "capture written by tally's Go probe package (docs/probe-format.md)",
		Sniff:       Sniff,
		Read:        Read,
		Uses:        []format.Option{},
	})
}

// Sniff recognises the magic.
func Sniff(head []byte) format.Confidence {
	if bytes.HasPrefix(head, []byte(probefile.Magic)) {
		return format.Certain
	}
	return format.No
}

// Read reads a probe file, streaming its dispatches to sink.
func Read(in *format.Input, opts *format.Options, sink capture.Sink) (*capture.Capture, error) {
	r, err := in.Reader()
	if err != nil {
		return nil, format.FileError(in.Path, err, "check the file", "cannot read: %v", err)
	}
	return newReader(r, in.Path, int64(opts.MaxDuration), sink).read()
}
