// Package kineto reads PyTorch profiler (Kineto) traces: Chrome-trace JSON,
// plain or gzipped, of every generation Kineto has written (spec:
// shared/specs/kineto.md; notes: docs/formats/kineto.md).
//
// Dispatches are the device events (kernel, memcpy, memset, and other
// accelerators' device categories such as MTIA's mtia_ccp_events); a
// dispatch's queue is its (device, stream), its launch the runtime/driver
// call with the same args.correlation, its program the gpu_user_annotation
// around it. The file is read once, streaming, with a hand-written scanner:
// memory holds interned names, queues, annotations and the few links still
// open, plus a compact record per device event that spills to a temporary
// file beyond 8 MiB (see dlog.go). On more than one core, the events of a
// large plain file are parsed in chunks on every core and handled in file
// order (split.go).
package kineto

import (
	"bytes"
	"errors"
	"io"
	"sync/atomic"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// Name is the format's registered name.
const Name = "kineto"

func init() {
	// Same-stream overlaps are expected on current GPUs (overlap.go).
	capture.RegisterNote(capture.OverlappingEvents)
	format.Register(format.Format{
		Name:        Name,
		Description: "PyTorch profiler (Kineto) / Chrome-trace JSON, plain or gzipped (.json, .pt.trace.json.gz)",
		Sniff:       Sniff,
		Read:        Read,
		// Its own stream and none keep their names and notes; device and
		// the splits are done for it (format/programby.go).
		ProgramBy: []string{"annotation", "gpu-annotation", "stream", "none"},
		// --unrecorded-wait sets its unrecorded_device_work threshold, --spill-limit
		// bounds its dispatch log's spill, --by op reads the host ops.
		Uses: []format.Option{format.OptUnrecordedWait, format.OptSpillLimit, format.OptOps},
	})
}

// Sniff recognises a JSON object with traceEvents (certain when it also
// has a Kineto key), or JSON whose head looks like trace events.
func Sniff(head []byte) format.Confidence {
	h := bytes.TrimLeft(format.TrimBOM(head), " \t\r\n")
	if len(h) == 0 || (h[0] != '{' && h[0] != '[') {
		return format.No
	}
	hasEvents := bytes.Contains(h, []byte(`"traceEvents"`))
	kinetoKey := bytes.Contains(h, []byte(`"schemaVersion"`)) || bytes.Contains(h, []byte(`"deviceProperties"`)) ||
		bytes.Contains(h, []byte(`"cat": "kernel"`)) || bytes.Contains(h, []byte(`"cat":"kernel"`))
	looksEvents := bytes.Contains(h, []byte(`"ph"`)) && bytes.Contains(h, []byte(`"ts"`))
	switch {
	case h[0] == '{' && hasEvents && kinetoKey:
		return format.Certain
	case h[0] == '{' && (hasEvents || kinetoKey), looksEvents:
		// A big header (thousands of ranks in distributedInfo) may push
		// traceEvents beyond the head.
		return format.Likely
	}
	return format.No
}

// config tunes a read; tests shrink the buffers to exercise the refill
// and spill paths.
type config struct {
	bufSize    int    // scanner block size
	logRecords int    // device records held in memory before spilling
	tmpDir     string // where the spill file goes ("" = os.TempDir)
	noGuess    bool   // read every key the general way (tests: guess.go)
	// split, chunk and workers split traceEvents of a plain input
	// (split.go); chunk 0 is splitChunk, workers 0 one per core.
	split   splitMode
	chunk   int64
	workers int
}

// defaultConfig reads in blocks of 256 KiB: a block stays in the core's
// cache between the copy that fills it and the parse (1 MiB blocks cost
// the one loop 10–15% more CPU on the generated 200 MB trace).
var defaultConfig = config{bufSize: 256 << 10, logRecords: defaultLogBytes / drecSize}

// Read reads a Kineto trace, plain or gzipped.
func Read(in *format.Input, opts *format.Options, sink capture.Sink) (*capture.Capture, error) {
	src, err := in.Reader()
	if err != nil {
		return nil, format.FileError(in.Path, err, "is it a complete .gz file?", "%v", err)
	}
	if opts == nil {
		opts = &format.Options{}
	}
	cfg := defaultConfig
	// A large plain file is split over the cores (split.go), unless other
	// Kineto reads run: a directory of ranks is read one input per core,
	// and the cores are busy already.
	defer reads.Add(-1)
	if reads.Add(1) > 1 {
		cfg.split = splitNever
	}
	if n := splitForTests.Load(); n > 0 {
		cfg.split, cfg.chunk = splitAlways, n
	}
	return readFrom(src, in.Path, opts, sink, cfg)
}

// reads counts the Kineto reads running.
var reads atomic.Int32

// readFrom reads a decompressed trace stream.
func readFrom(src io.Reader, path string, opts *format.Options, sink capture.Sink, cfg config) (*capture.Capture, error) {
	mode, err := parseProgramMode(opts.ProgramBy)
	if err != nil {
		return nil, err
	}
	if sink == nil {
		sink = capture.Discard
	}
	r := newReader(src, path, mode, cfg.bufSize, cfg.logRecords, cfg.tmpDir)
	defer r.s.release()
	defer r.link.release()
	defer r.repeats.release()
	r.noGuess = cfg.noGuess
	if ss, ok := src.(interface {
		splitSource
		io.Seeker
	}); ok && cfg.split != splitNever {
		// Offsets into the input are offsets into ss only from its start.
		if at, err := ss.Seek(0, io.SeekCurrent); err == nil && at == 0 {
			r.src = ss
		}
	}
	r.split, r.chunk, r.workers = cfg.split, cfg.chunk, cfg.workers
	if r.chunk <= 0 {
		r.chunk = splitChunk
	}
	r.waitNS = opts.UnrecordedWait.Nanoseconds()
	r.ceiling = opts.MaxDuration.Nanoseconds()
	r.log.file.budget = &spillBudget{limit: opts.SpillLimit}
	if opts.Ops {
		r.ev.host, r.ops = true, newHostOps()
	}
	if err := r.scan(); err != nil {
		r.log.close()
		if r.tb != nil {
			r.tb.log.close()
		}
		var sl *format.SpillLimitError
		if errors.As(err, &sl) {
			return nil, format.FileError(path, err, format.SpillHint, "reading it needs more temporary disk than allowed: %v", err)
		}
		return nil, err
	}
	if r.stop != nil && !r.stop.eof || r.stop == nil && r.top.hasTrailing {
		// Count the bytes after a syntax error, or after the document,
		// too, so the accounting covers the whole input: the count never
		// depends on how far the buffers had read (nor on a split read's
		// jumps, split.go).
		var err error
		r.s.drained, err = io.Copy(io.Discard, r.s.r)
		if r.s.rerr == nil {
			r.s.rerr = err // a gzip input's trailing bytes are counted too
		}
	}
	return r.finish(sink)
}
