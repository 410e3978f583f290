package hrxserial

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/kept"
	"github.com/tallyprof/tally/internal/units"
)

// state follows the trace line by line: which program invocation is open,
// which list, which command and how far its six lines have come.
type state struct {
	name string
	cat  *catalog.Catalog
	sink capture.Sink
	c    *capture.Capture

	// input accounting
	bytes                                  int64
	lineNo                                 int64
	traceLines, foreign, comments, headers int64
	blank                                  int64
	malformed                              int64
	firstMalformed                         []int64 // first line numbers
	partial                                int64
	longLines                              int64
	timed, untimed                         int64
	stampOverflow                          int64
	lastT                                  uint64
	haveT                                  bool
	decreases, firstDecrease               int64
	header                                 headerInfo
	end                                    kept.End
	endRecords                             int64
	unknownPhases                          map[string]int64
	syncFailures, invalidPrograms          int64
	outside                                int64 // trace lines outside any program (graph replay)
	inconsistent                           *capture.Gap
	untracedCommands, nonKernelCommands    int64
	dispatches                             int64
	invocations                            int64
	notLaunched                            int64 // traced kernels whose run stopped before their launch
	kernelCounts                           []int64
	unresolved                             []unresolvedID

	progs map[uint64]*program
	order []*program
	inv   *invocation
	list  *listState
	cmd   command
	sync  openSync
	last  lastDone
	d     detail // scratch
	disp  capture.Dispatch

	kernelSlots [64]kernelSlot // kernelFor's recent answers

	// done is, per list, one past the highest index of a traced command
	// completed in the open run: a command's identity is (run, list,
	// index), so a traced command below it repeats one already read.
	done [3]uint64
}

type headerInfo struct {
	present  bool
	badClock string // non-empty: the header's clock/unit is not monotonic/ns
	cmd      string // the recorded command (cmd="…"), "" when not given
}

// program is one command program, keyed by its main_commands count.
type program struct {
	id      capture.ProgramID
	label   string
	main    uint64
	init    uint64
	initSet bool
	kernels [3]map[uint64]capture.KernelID // by listName: init and main kernels are kept apart

	complete, failed, incomplete, unbracketed int64
	// notComplete are the run numbers (Dispatch.Instance) that ended
	// failed or incomplete: capture.Program.IncompleteRuns.
	notComplete  []int64
	untraced     int64
	nonKernel    map[string]int64
	initMismatch int64
}

type invocation struct {
	prog      *program
	bracketed bool // begin/end phase=command-program; else an unbracketed run
	listOnly  bool // opened by a command-list line outside any program
	n         int64
	line      int64
}

type listState struct {
	name     listName
	commands uint64
	seen     uint64
	line     int64
}

// command tracks one command's six lines. stage is the last line seen.
type command struct {
	active bool
	stage  uint8
	traced bool
	kernel bool
	repeat bool // repeats a command this run already completed
	d      detail
	raw    []byte // the detail text, compared with the next lines' (in tail)
	tail   []byte // " "+raw+"\n" ("\n" without a detail): how the next lines end
	// borrowed: tail lies in the block being applied (own copies it to
	// buf, which holds it otherwise).
	borrowed bool
	buf      []byte
	prog     *program
	list     listName
	index    uint64 // position in its list, counted when untraced
	line     int64
	tBegin   uint64 // begin command-dispatch
	tEnd     uint64 // end command-dispatch
	okBegin  bool
	okEnd    bool
}

const (
	stPreBegin uint8 = iota + 1
	stPreEnd
	stDispatchBegin
	stDispatchEnd
	stPostBegin
)

type openSync struct {
	open  bool
	phase []byte // copy
	line  int64
	t     uint64
	timed bool
}

// lastDone is the last dispatch that completed, kept as ids so that naming it
// costs nothing until an unfinished dispatch needs it.
type lastDone struct {
	ok     bool
	prog   *program
	kernel capture.KernelID
	list   listName
	index  uint64
	line   int64
}

func newState(name string, cat *catalog.Catalog, sink capture.Sink) *state {
	return &state{
		name: name, cat: cat, sink: sink,
		// Every time a dispatch carries is a monotonic ns stamp, so the
		// unit is known before the end: the model check holds each
		// duration to the ns ceiling as it passes. finishClock describes
		// the clock once the whole trace is read.
		c:             &capture.Capture{Clock: capture.Clock{Unit: "ns"}},
		progs:         map[uint64]*program{},
		unknownPhases: map[string]int64{},
	}
}

func (s *state) where(line int64) string { return "line " + strconv.FormatInt(line, 10) }

// line handles one input line (without its '\n').
func (s *state) line(b []byte) error {
	s.lineNo++
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		s.blank++
		return nil
	}
	if b[0] == '#' {
		if s.lineNo == 1 && bytes.HasPrefix(b, headerPrefix) {
			return s.headerLine(b)
		}
		if s.end.Next(b, s.lineNo) {
			s.endRecords++
			return nil
		}
		s.comments++
		return nil
	}
	if s.end.Seen {
		s.end.Next(b, s.lineNo) // counted: a line after the end record
	}
	t, rest, timed, overflow := stamp(b)
	if overflow {
		s.stampOverflow++
		s.malformedAt()
		return nil
	}
	if !bytes.HasPrefix(rest, tracePrefix) {
		switch {
		case bytes.HasPrefix(rest, syncFailed):
			s.syncFailure(rest, t, timed)
		case bytes.Contains(rest, invalidProg):
			s.invalidPrograms++
			g := s.c.Accounting.Gap(capture.FailedProgram, "")
			g.Add(capture.Item{What: "program rejected by the runtime: " + string(clip(rest, 200)), Where: s.where(s.lineNo)})
		}
		s.foreign++
		return nil
	}
	var ok bool
	if s.cmd.active && s.continueCommand(rest, t, timed) {
		ok = true
	} else {
		var ev event
		var ph phase
		var phaseName, det []byte
		ev, ph, phaseName, det, ok = parseEvent(rest[len(tracePrefix):])
		if ok {
			ok = s.event(ev, ph, phaseName, det, t, timed)
		}
	}
	if !ok {
		s.malformedAt()
		return nil
	}
	s.counted(t, timed)
	return nil
}

// counted counts a trace line that was applied, and its stamp.
func (s *state) counted(t uint64, timed bool) {
	if timed {
		s.timed++
		if s.haveT && t < s.lastT {
			if s.decreases == 0 {
				s.firstDecrease = s.lineNo
			}
			s.decreases++
		}
		s.lastT, s.haveT = t, true
	} else {
		s.untimed++
	}
	s.traceLines++
}

func (s *state) malformedAt() {
	s.malformed++
	if len(s.firstMalformed) < 10 {
		s.firstMalformed = append(s.firstMalformed, s.lineNo)
	}
}

func clip(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

func (s *state) headerLine(b []byte) error {
	if !bytes.HasPrefix(b, headerV1) || (len(b) > len(headerV1) && b[len(headerV1)] != ' ') {
		e := format.LineError(s.name, 1, "upgrade tally, or remove the header to read the lines as untimed", "%v %q: this tally reads kept trace v1 only", errVersion, clip(b, 60))
		e.Err = errVersion
		return e
	}
	s.headers++
	s.header.present = true
	s.end.HeaderLine(b)
	clock, unit := "", ""
	for _, f := range bytes.Fields(b[len(headerV1):]) {
		if k, v, ok := bytes.Cut(f, []byte("=")); ok {
			switch string(k) {
			case "clock":
				clock = string(v)
			case "unit":
				unit = string(v)
			}
		}
	}
	if clock != "monotonic" || unit != "ns" {
		s.header.badClock = fmt.Sprintf("clock=%s unit=%s", clock, unit)
	}
	// cmd is quoted (it may hold blanks), so it is not one of the fields.
	if i := bytes.Index(b, []byte(` cmd="`)); i >= 0 {
		if q, err := strconv.QuotedPrefix(string(b[i+len(` cmd=`):])); err == nil {
			s.header.cmd, _ = strconv.Unquote(q)
		}
	}
	return nil
}

// partialLine is a last line without '\n': the output was cut mid-line, so
// its values are not parsed.
func (s *state) partialLine(b []byte) {
	s.lineNo++
	s.partial++
	g := s.c.Accounting.Gap(capture.TruncatedInput, "")
	g.Summary = "the file ends inside a line (no final newline): the writer was cut off; that line's values were not read"
	g.Add(capture.Item{What: fmt.Sprintf("partial last line (%d bytes): %q", len(b), clip(b, 80)), Where: s.where(s.lineNo)})
}

// gzipCut is a gzip input whose compressed stream ended before its end
// (no trailer): the file was cut, not the writer, so the summary says so
// above a partial last line's; the lines inflated before it were read.
func (s *state) gzipCut() {
	g := s.c.Accounting.Gap(capture.TruncatedInput, "")
	g.Summary = "the gzip stream ended early: the compressed file was cut (an incomplete copy or download, or a writer stopped mid-stream), so what followed the cut is missing; every line inflated before it was read. gzip -t names the same fault"
	g.Add(capture.Item{What: fmt.Sprintf("the gzip stream ended early, after %s of decompressed data, without its end (trailer)", units.Plural(s.bytes, "byte", "bytes")), Where: s.where(s.lineNo)})
}

func (s *state) programFor(main uint64) *program {
	if p, ok := s.progs[main]; ok {
		return p
	}
	p := &program{main: main, label: "p" + strconv.FormatUint(main, 10), kernels: [3]map[uint64]capture.KernelID{{}, {}, {}}, nonKernel: map[string]int64{}}
	p.id = s.c.AddProgram(capture.Program{Name: p.label})
	s.progs[main] = p
	s.order = append(s.order, p)
	return p
}

// unknownProgram holds commands seen outside any program or list context.
func (s *state) unknownProgram() *program {
	const key = 1<<64 - 1
	if p, ok := s.progs[key]; ok {
		return p
	}
	p := s.programFor(key)
	p.label = "unknown-program"
	s.c.Programs[p.id].Name = p.label
	return p
}

func (s *state) inconsistency(what string) {
	if s.inconsistent == nil {
		s.inconsistent = s.c.Accounting.Gap(capture.InconsistentTrace, "")
	}
	s.inconsistent.Add(capture.Item{What: what, Where: s.where(s.lineNo)})
}
