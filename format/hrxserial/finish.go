package hrxserial

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/units"
)

// finish closes what the end of input left open and writes the capture's
// clock, programs, accounting and inventory.
func (s *state) finish() *capture.Capture {
	s.finishEnd()
	s.finishPrograms()
	s.finishNames()
	s.finishInput()
	s.finishClock()
	s.inventory()
	return s.c
}

func (s *state) finishPrograms() {
	for _, p := range s.order {
		prog := &s.c.Programs[p.id]
		prog.Instances = p.complete + p.failed + p.incomplete + p.unbracketed
		prog.IncompleteRuns = p.notComplete
		for _, st := range []capture.Count{{Name: "complete", Count: p.complete}, {Name: "failed", Count: p.failed},
			{Name: "incomplete", Count: p.incomplete}, {Name: "unbracketed", Count: p.unbracketed}} {
			if st.Count > 0 {
				prog.InstanceStates = append(prog.InstanceStates, st)
			}
		}
		if p.initSet {
			prog.Notes = append(prog.Notes, fmt.Sprintf("main list %d commands, init list %d", p.main, p.init))
		}
		if len(p.nonKernel) > 0 {
			kinds := make([]string, 0, len(p.nonKernel))
			var n int64
			for k, c := range p.nonKernel {
				kinds = append(kinds, fmt.Sprintf("%s %d", k, c))
				n += c
			}
			sort.Strings(kinds)
			prog.Notes = append(prog.Notes, fmt.Sprintf("%d non-kernel commands (%s): counted, not timed as dispatches", n, strings.Join(kinds, ", ")))
		}
		if p.initMismatch > 0 {
			prog.Notes = append(prog.Notes, fmt.Sprintf("%d runs had a different init_commands: two programs of the same main size may be merged here", p.initMismatch))
		}
		if p.untraced > 0 {
			g := s.c.Accounting.Gap(capture.SkippedInput, p.label)
			g.Summary = "commands traced without detail, outside the GGML_HRX_DEBUG_SERIAL_PROGRAM_COMMANDS/START_COMMAND/END_COMMAND filters: their kernels and times are not in the table (unset the filters to trace them)"
			g.AddN(p.untraced)
			g.SetFigure("filtered_commands", p.untraced)
		}
	}
}

// finishNames reports every kernel id no catalog named, once per program
// (an id used in both lists of a program is one unresolved id).
func (s *state) finishNames() {
	type key struct {
		prog capture.ProgramID
		id   uint64
	}
	seen := map[key]bool{}
	counts := map[key]int64{}
	for _, u := range s.unresolved {
		k := s.c.Kernels[u.kernel]
		counts[key{k.Program, k.ID}] += s.kernelCounts[u.kernel]
	}
	for _, u := range s.unresolved {
		k := s.c.Kernels[u.kernel]
		kk := key{k.Program, k.ID}
		if seen[kk] {
			continue
		}
		label := s.c.Programs[k.Program].Name
		g := s.c.Accounting.Gap(capture.UnresolvedName, label)
		if s.cat.Len() == 0 {
			g.Summary = "kernel ids shown by number: no manifests were given. Pass --manifests DIR for each kernel directory of the build that produced the trace (ggml/src/ggml-hrx/kernel-corpus/kernels/<dir>/manifest.json)"
		} else {
			g.Summary = fmt.Sprintf("kernel ids no manifest names, shown by number; manifests read: %s. Add the manifest of every kernel directory of the build that produced the trace with --manifests", strings.Join(s.cat.Manifests, ", "))
		}
		why := "not in the manifests"
		if s.cat.Len() == 0 {
			why = "no manifests given"
		}
		switch u.status {
		case catalog.Uncatalogued:
			why = "id 0: the runtime's 'no catalogued kernel'"
		case catalog.Collision:
			why = "two manifest kernels hash to this id: neither name is used"
		}
		g.Add(capture.Item{What: fmt.Sprintf("%d dispatches; %s", counts[kk], why),
			Program: label, Kernel: k.Name, Where: s.where(u.line)})
		seen[kk] = true
		d, _ := g.Figure("dispatches")
		g.SetFigure("dispatches", d+counts[kk])
	}
}

func (s *state) finishInput() {
	in := s.c.Accounting.InputFor("lines")
	in.Read = s.lineNo
	surfaced := s.syncFailures + s.invalidPrograms
	in.Used = s.traceLines + s.headers + s.endRecords + surfaced
	// Foreign lines are the program's other stderr output (the error
	// forms among them are surfaced as gaps and counted used).
	in.Ignore("not a trace line", s.foreign-surfaced, "")
	in.Ignore("comment", s.comments, "")
	in.Ignore("blank", s.blank, "")
	b := s.c.Accounting.InputFor("bytes")
	b.Read, b.Used = s.bytes, s.bytes

	// A malformed or cut trace line may have been one of a dispatch's.
	format.MalformedLines(&s.c.Accounting, s.malformed, s.firstMalformed,
		"lines that start like trace lines but do not parse (unknown event, bad number, missing key): their events are not in the tables")
	if s.malformed > 0 {
		in.Lose(s.c.Accounting.Gap(capture.SkippedInput, ""), "malformed trace line", s.malformed, s.where(s.firstMalformed[0]))
	}
	if s.partial > 0 {
		in.Lose(s.c.Accounting.Gap(capture.TruncatedInput, ""), "partial last line", s.partial, s.where(s.lineNo))
	}
	if s.traceLines == 0 {
		g := s.c.Accounting.Gap(capture.EmptyCapture, "")
		g.Summary = fmt.Sprintf("%s an 'hrx debug serial:' trace line (time-stamped or raw). Was GGML_HRX_DEBUG_SERIAL_EXECUTION=1 set, does the build contain the debug-serial code, and was stderr (not stdout) kept?", units.Plural(s.lineNo, "line read; it is not", "lines read, none is"))
		if s.header.present {
			// tally record kept every line of stderr: the command printed
			// no trace line, and the advice is about the command.
			cmd := ""
			if s.header.cmd != "" {
				cmd = " " + strconv.Quote(s.header.cmd)
			}
			g.Summary = fmt.Sprintf("a kept trace whose command%s printed no 'hrx debug serial:' trace line (%s read, header included). Was GGML_HRX_DEBUG_SERIAL_EXECUTION=1 set for the command, and does its build contain the debug-serial code?", cmd, units.Plural(s.lineNo, "line", "lines"))
		}
		g.Add(capture.Item{What: "no trace line", Where: s.name})
	}
	if s.inconsistent != nil {
		s.inconsistent.Summary = "trace lines that do not fit the order a run writes (a sync without its pair, a command out of sequence, a list of the wrong size): lines are missing or interleaved, so counts may be short"
	}
	if s.unknownPhases != nil && len(s.unknownPhases) > 0 {
		var names []string
		for k, n := range s.unknownPhases {
			names = append(names, fmt.Sprintf("%s (%d)", k, n))
		}
		sort.Strings(names)
		s.c.Inventory = append(s.c.Inventory, capture.Section{Title: "unknown phases (counted, kept going)", Fields: []capture.Field{{Key: "phases", Value: strings.Join(names, ", ")}}})
	}
}

func (s *state) finishClock() {
	k := &s.c.Clock
	switch {
	case s.header.badClock != "":
		*k = capture.Clock{Domain: "unknown", Description: fmt.Sprintf("none usable: the kept-trace header says %s; tally times monotonic ns stamps only, so every duration is unavailable (counts only)", s.header.badClock)}
	case s.timed == 0 && s.header.present && s.traceLines == 0:
		*k = capture.Clock{Domain: "none", Description: "none: the kept trace holds no trace line, so there is nothing to time"}
	case s.timed == 0 && s.header.present:
		*k = capture.Clock{Domain: "none", Description: "none: no trace line of this kept trace carries an arrival stamp, so dispatches are counted and every duration is unavailable"}
	case s.timed == 0:
		*k = capture.Clock{Domain: "none", Description: "none: a raw hrx debug serial trace carries no times, so dispatches are counted and every duration is unavailable (record with 'tally record' to stamp each line)"}
	default:
		*k = capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true,
			Description: "ns on the recording process's monotonic clock, taken when each line arrived (arrival times include logging overhead: compare shares within a program); serial mode brackets every command with stream syncs, so totals describe a serialised run"}
		if !s.header.present {
			k.Description += "; no kept-trace header: stamps taken to be monotonic ns"
		}
		if s.untimed > 0 {
			g := s.c.Accounting.Gap(capture.UntimedInput, "")
			g.Summary = "trace lines without a timestamp in a stamped trace: the dispatches they belong to have no duration"
			g.AddN(s.untimed)
		}
	}
	if s.decreases > 0 {
		g := s.c.Accounting.Gap(capture.ClockDecrease, "")
		g.Summary = "timestamps that go backwards: lines were reordered or files concatenated; durations across them are wrong"
		g.Add(capture.Item{What: fmt.Sprintf("%d decreases", s.decreases), Where: s.where(s.firstDecrease)})
		g.Count = s.decreases
	}
}

func (s *state) inventory() {
	tr := capture.Section{Title: "trace"}
	tr.Add("header", s.header.present)
	tr.Add("end record", s.end.Describe())
	tr.Add("lines", s.lineNo)
	tr.Add("trace lines", s.traceLines)
	tr.Add("time-stamped trace lines", s.timed)
	tr.Add("untimed trace lines", s.untimed)
	tr.Add("foreign lines (not trace lines)", s.foreign)
	tr.Add("comment lines", s.comments)
	tr.Add("malformed lines", s.malformed)
	tr.Add("partial last line", s.partial > 0)
	tr.Add("sync-failure lines", s.syncFailures)
	tr.Add("rejected-program lines", s.invalidPrograms)
	tr.Add("lines outside any program (graph replay)", s.outside)
	tr.Add("program runs", s.invocations)
	tr.Add("dispatches (completed kernel commands)", s.dispatches)
	tr.Add("untraced (filtered) commands", s.untracedCommands)
	tr.Add("non-kernel commands", s.nonKernelCommands)
	tr.Add("kernel commands stopped before launch", s.notLaunched)
	progs := capture.Section{Title: "programs"}
	for _, p := range s.order {
		progs.Add(p.label, fmt.Sprintf("%d complete, %d failed, %d incomplete, %d unbracketed runs; %d untraced commands",
			p.complete, p.failed, p.incomplete, p.unbracketed, p.untraced))
	}
	cat := capture.Section{Title: "catalog"}
	cat.Add("manifests", s.cat.Describe())
	var resolved, anon int
	for _, k := range s.c.Kernels {
		if k.Resolved {
			resolved++
		} else {
			anon++
		}
	}
	cat.Add("kernels named (per program and list)", resolved)
	cat.Add("kernels anonymous (per program and list)", anon)
	s.c.Inventory = append([]capture.Section{tr, progs, cat}, s.c.Inventory...)
	s.c.Comment("names", fmt.Sprintf("%s; %d table kernels named, %d anonymous", s.cat.Describe(), resolved, anon))
	s.c.CommentsAt = 0 // shown first in JSON
}
