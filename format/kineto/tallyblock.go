package kineto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tallyprof/tally/capture"
)

// A Kineto trace written by `tally export --to kineto` carries the exported
// capture in its top-level "tally" block: the clock, the programs, the
// kernels, the queues, the input accounting and the gaps. Each kernel event
// carries args.tally = [kernel, run, index, ordinal, link] (kernel indexes
// the block's kernels). Reading such a file as any Kineto trace would call
// the clock the Unix epoch, collapse the programs into "(no annotation)"
// and replace the input's gaps by complaints about what tally wrote itself
// (no end marker, its own categories), so a block of a schema this reader
// knows is read back instead (tallyfinish.go; docs/formats/kineto.md,
// "Traces tally exported"). A block that is malformed, of another schema
// or out of place is never trusted: the file is read as any Kineto trace
// and a skipped_input gap says why.

// TallySchema is the schema of the tally block this reader reads back. It
// must equal export.TallyKinetoSchema (export's round-trip test checks).
const TallySchema = "tally.kineto/v2"

// tallyPrefix starts every tally block schema name.
const tallyPrefix = "tally.kineto/"

// maxTallyBlock bounds the block's JSON text held for decoding: a block
// lists kernels, programs, queues and gaps (at most capture.MaxItems items
// each), never dispatches.
const maxTallyBlock = 64 << 20

// tallyBlock is the decoded block (the fields this reader uses; others are
// ignored, so later writers may add fields).
type tallyBlock struct {
	Schema   string                `json:"schema"`
	Source   capture.Source        `json:"source"`
	Clock    *capture.Clock        `json:"clock"`
	Input    []*capture.InputCount `json:"input"`
	Gaps     []*capture.Gap        `json:"gaps"`
	Events   map[string]int64      `json:"events"`
	Programs []tallyProgram        `json:"programs"`
	Kernels  []tallyKernel         `json:"kernels"`
	Queues   []capture.Queue       `json:"queues"`
	Report   []capture.Field       `json:"report"`
	// File counts the events of this file (a rank-R.json holds one
	// rank's share of the input).
	File *tallyFile `json:"file"`
}

type tallyFile struct {
	Kernels    int64 `json:"kernels"`
	Unfinished int64 `json:"unfinished"`
}

// tallyProgram is a program of the exported capture, with what this file
// holds of it.
type tallyProgram struct {
	capture.Program
	// Events counts its kernel events in this file; NotWritten its
	// dispatches the export wrote no event for (aggregated records,
	// dispatches without ns times).
	Events     int64 `json:"events"`
	NotWritten int64 `json:"not_written"`
}

// tallyKernel is a kernel of the exported capture.
type tallyKernel struct {
	Program  int64   `json:"program"`
	Name     string  `json:"name"`
	ID       *uint64 `json:"id"`
	Resolved bool    `json:"resolved"`
	Category string  `json:"category"`
	List     string  `json:"list"`
}

// tallyIssue is a tally block that is not used, and why.
type tallyIssue struct {
	what string
	off  int64
}

// tallyState is the read-back state of a file with a usable block.
type tallyState struct {
	blk *tallyBlock
	log *tallyLog
	// arg is the last args.tally read, valid for the event at argOff.
	arg    [5]int64
	argOK  bool
	argOff int64
	// markers counts tally_unfinished events (their facts are in the
	// block's unfinished_dispatch gap); first is where the first was.
	markers, markersFirst int64
}

// readTallyBlock reads the top-level "tally" value (the scanner is at it).
func (r *reader) readTallyBlock() {
	s := r.s
	at := s.offset()
	var buf bytes.Buffer
	over := r.tallyRaw(&buf)
	switch {
	case r.tb != nil || r.tbIssue != nil:
		r.tallyProblem(at, "a second \"tally\" key: the file was edited or concatenated")
		return
	case r.top.sawEvents:
		// args.tally of the events before it were not read.
		r.tallyProblem(at, "the tally block follows traceEvents (the file was rewritten, e.g. with its keys sorted): its programs cannot be matched to the events already read")
		return
	case over:
		r.tallyProblem(at, fmt.Sprintf("the tally block is larger than %d MiB", maxTallyBlock>>20))
		return
	}
	var head struct {
		Schema any `json:"schema"`
	}
	if err := json.Unmarshal(buf.Bytes(), &head); err != nil {
		r.tallyProblem(at, "the tally block is not a JSON object: "+err.Error())
		return
	}
	schema, _ := head.Schema.(string)
	switch {
	case schema == TallySchema:
	case strings.HasPrefix(schema, tallyPrefix):
		r.tallyProblem(at, fmt.Sprintf("the tally block's schema is %q, which this tally does not read (it reads %s)", schema, TallySchema))
		return
	default:
		r.tallyProblem(at, fmt.Sprintf("the tally block has no %s… schema (schema %s)", tallyPrefix, clip([]byte(fmt.Sprint(head.Schema)), 60)))
		return
	}
	blk := &tallyBlock{}
	if err := json.Unmarshal(buf.Bytes(), blk); err != nil {
		r.tallyProblem(at, "the tally block does not decode: "+err.Error())
		return
	}
	if err := blk.check(); err != nil {
		r.tallyProblem(at, "the tally block contradicts itself: "+err.Error())
		return
	}
	r.tb = &tallyState{blk: blk, log: newTallyLog(r.log.limit, &r.log.file), argOff: -1}
}

func (r *reader) tallyProblem(at int64, what string) {
	if r.tbIssue == nil {
		r.tbIssue = &tallyIssue{what: what, off: at}
	}
}

// tallyRaw appends the JSON text of the value at the scanner to buf (keys
// and strings as written, escapes kept) and reports whether it passed
// maxTallyBlock; beyond it the rest is checked and skipped.
func (r *reader) tallyRaw(buf *bytes.Buffer) (over bool) {
	s := r.s
	if buf.Len() > maxTallyBlock {
		s.skipValue()
		return true
	}
	switch c := s.nonWS(); {
	case c == '{':
		buf.WriteByte('{')
		if !s.objectStart() {
			for first := true; ; first = false {
				if !first {
					buf.WriteByte(',')
				}
				raw, _ := s.nextKey()
				buf.WriteByte('"')
				buf.Write(raw)
				buf.WriteString(`":`)
				over = r.tallyRaw(buf) || over
				if !s.objectNext() {
					break
				}
			}
		}
		buf.WriteByte('}')
	case c == '[':
		buf.WriteByte('[')
		if !s.arrayStart() {
			for first := true; ; first = false {
				if !first {
					buf.WriteByte(',')
				}
				over = r.tallyRaw(buf) || over
				if !s.arrayNext() {
					break
				}
			}
		}
		buf.WriteByte(']')
	case c == '"':
		raw, _ := s.str()
		buf.WriteByte('"')
		buf.Write(raw)
		buf.WriteByte('"')
	case c == '-' || isDigit(c):
		buf.Write(s.checkedNum())
	case c == 't':
		s.lit("true")
		buf.WriteString("true")
	case c == 'f':
		s.lit("false")
		buf.WriteString("false")
	case c == 'n':
		s.lit("null")
		buf.WriteString("null")
	default:
		s.skipValue() // fails with the position
	}
	return over || buf.Len() > maxTallyBlock
}

// check verifies what the read-back relies on, so that a hostile or edited
// block can never break the model (capture.CheckValid): it builds the
// capture the block describes and checks it.
func (b *tallyBlock) check() error {
	if b.Clock == nil {
		return fmt.Errorf("no clock")
	}
	// An input without a dispatch has no programs: the list is empty,
	// never missing.
	if b.Programs == nil {
		return fmt.Errorf("no programs")
	}
	if len(b.Programs) > 1<<24 || len(b.Kernels) > 1<<24 || len(b.Queues) > 1<<24 {
		return fmt.Errorf("more than 2^24 programs, kernels or queues")
	}
	c := &capture.Capture{Queues: b.Queues}
	for i, p := range b.Programs {
		if p.Events < 0 || p.NotWritten < 0 {
			return fmt.Errorf("program %d counts %d events, %d not written", i, p.Events, p.NotWritten)
		}
		clock := b.Clock
		if p.Clock != nil {
			clock = p.Clock
		}
		if clock.Unit != "ns" && p.Events > 0 {
			// The export writes events only for programs timed in ns.
			return fmt.Errorf("program %q has %d events but its clock is in %q", p.Name, p.Events, clock.Unit)
		}
		c.AddProgram(p.Program)
	}
	for i, k := range b.Kernels {
		if k.Program < 0 || k.Program >= int64(len(b.Programs)) {
			return fmt.Errorf("kernel %d belongs to program %d of %d", i, k.Program, len(b.Programs))
		}
		c.AddKernel(k.kernel())
	}
	for i, g := range b.Gaps {
		if g == nil {
			return fmt.Errorf("gap %d is null", i)
		}
		if g.ItemsOmitted < 0 {
			return fmt.Errorf("gap %s omits %d items", g.Kind, g.ItemsOmitted)
		}
	}
	for i, in := range b.Input {
		if in == nil {
			return fmt.Errorf("input count %d is null", i)
		}
		for _, sk := range in.Skipped {
			if sk == nil {
				return fmt.Errorf("input count %s has a null skip", in.Unit)
			}
		}
	}
	c.Accounting.Gaps = b.Gaps
	c.Accounting.Input = b.Input
	return c.CheckValid()
}

func (k tallyKernel) kernel() capture.Kernel {
	kn := capture.Kernel{Program: capture.ProgramID(k.Program), Name: k.Name, Resolved: k.Resolved, Category: k.Category, List: k.List}
	if k.ID != nil {
		kn.ID, kn.HasID = *k.ID, true
	}
	return kn
}

// readArg reads args.tally of the event at off: an array of five integers.
func (t *tallyState) readArg(r *reader, off int64) {
	s := r.s
	t.argOff, t.argOK = off, false
	if s.nonWS() != '[' {
		s.skipValue()
		return
	}
	if s.arrayStart() {
		return
	}
	n, ok := 0, true
	for {
		c := s.nonWS()
		if c == '-' || isDigit(c) {
			v, good := s.intFast()
			if !good {
				v, good = parseInt(s.checkedNum())
			}
			if good && n < len(t.arg) {
				t.arg[n] = v
			} else {
				ok = false
			}
		} else {
			s.skipValue()
			ok = false
		}
		n++
		if !s.arrayNext() {
			break
		}
	}
	t.argOK = ok && n == len(t.arg)
}

// tallyEvent handles an event of a category the reader does not know, in a
// file whose block is used: tally's own metadata category is read as
// metadata (done false), its unfinished-dispatch markers are accounted for
// here (done true).
func (r *reader) tallyEvent() (done bool) {
	e := &r.ev
	switch string(e.catRaw) {
	case "__metadata":
		if e.ph == 'M' {
			e.cat = catNone
		}
	case "tally_unfinished":
		if e.ph == 'X' {
			if r.tb.markers == 0 {
				r.tb.markersFirst = e.off
			}
			r.tb.markers++
			return true
		}
	}
	return false
}

// tallyDevice keeps the args.tally of a device event just logged.
func (r *reader) tallyDevice() {
	t := r.tb
	rec := tallyRec{kernel: -1}
	if t.argOK && t.argOff == r.ev.off {
		rec = tallyRec{kernel: t.arg[0], run: t.arg[1], index: t.arg[2], ordinal: t.arg[3], link: t.arg[4]}
	}
	if err := t.log.add(rec); err != nil {
		panic(fatalError{err})
	}
}
