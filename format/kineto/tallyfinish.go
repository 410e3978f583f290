package kineto

import (
	"fmt"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// tallyFromInput starts the summary of every gap carried from the tally
// block: the gap happened in the input the file was exported from. It is
// added once, so a file exported again from its read-back keeps one.
const tallyFromInput = "in the exported input: "

// tallyUnlisted names the program of kernel events without a usable
// args.tally.
const tallyUnlisted = "(not in the tally block)"

// finishTally is finish for a file whose tally block is used: the clock,
// programs, kernels, queues and gaps are the exported input's, each
// dispatch is placed by its args.tally, and the reader's own analyses of
// the timeline (launch linkage, overlaps, idle waits, names, zero
// durations) are not repeated: the exported input's reader made them, and
// their gaps are carried. What this file itself lacks (a cut, foreign
// events, events the block does not account for) is stated as for any
// Kineto trace.
func (r *reader) finishTally(sink capture.Sink) (*capture.Capture, error) {
	defer r.log.close()
	t := r.tb
	defer t.log.close()
	b := t.blk
	c := &capture.Capture{}
	tb := r.decideClock()
	var odd []capture.Item // what contradicts the block: inconsistent_trace

	// The events are µs relative to baseTimeNanoseconds, which is the
	// exported clock's value at their origin: with the base added they
	// are that clock's ns.
	clockOK := tb.gen == "C" && tb.mismatch == "" && tb.clock.Domain == "unix-epoch" || r.clock.n == 0
	if clockOK {
		c.Clock = *b.Clock
	} else {
		c.Clock = tb.clock
		odd = append(odd, capture.Item{What: fmt.Sprintf("the tally block states the clock %q, but the times are not µs relative to a usable baseTimeNanoseconds as tally writes them: the file's own reading of its times is kept", clip([]byte(b.Clock.Description), 120))})
	}
	c.Source.Rank = b.Source.Rank
	c.Queues = append([]capture.Queue(nil), b.Queues...)

	// A queue is the stream the export wrote it on: tid = queue index + 1,
	// 0 for formats without queues.
	qmap := make([]capture.QueueID, len(r.queues))
	for i := range r.queues {
		qmap[i] = capture.NoQueue
		k := r.queues[i].key
		if k.stream >= 1 && k.stream <= int64(len(c.Queues)) {
			qmap[i] = capture.QueueID(k.stream - 1)
		} else if k.stream != 0 && r.queues[i].dispatches > 0 {
			odd = append(odd, capture.Item{What: fmt.Sprintf("%s: stream %d is not a queue of the tally block (%d queues): its %s are on no queue", r.queueLabel(uint32(i)), k.stream, len(c.Queues), units.Plural(r.queues[i].dispatches, "kernel event", "kernel events"))})
		}
	}

	byBlock := r.mode == byAnnotation
	var progs *programs
	if byBlock {
		for _, p := range b.Programs {
			pp := p.Program
			if !clockOK {
				pp.Clock = nil
			}
			c.AddProgram(pp)
		}
		for _, k := range b.Kernels {
			c.AddKernel(k.kernel())
		}
	} else {
		progs = r.buildPrograms()
	}

	next, err := t.log.reader()
	if err != nil {
		return nil, err
	}
	var (
		d        capture.Dispatch
		coll     capture.Collective
		add      = tb.add
		perProg  = make([]int64, len(b.Programs))
		kernels  = map[capture.Kernel]capture.KernelID{} // for regrouped and unlisted events
		unlisted = capture.ProgramID(-1)
		bad      int64
		badFirst int64
		st       = &replayStats{}
		logErr   error
	)
	// Regrouped (and unlisted) kernels are scoped to their new program:
	// one kernel per name, list and category there, as a Kineto reading
	// would have them.
	kernelOf := func(p capture.ProgramID, kn capture.Kernel) capture.KernelID {
		kn.Program = p
		id, ok := kernels[kn]
		if !ok {
			id = c.AddKernel(kn)
			kernels[kn] = id
		}
		return id
	}
	err = r.log.replay(func(rec *drec) {
		tr, ok, err := next()
		if err != nil && logErr == nil {
			logErr = err
		}
		r.link.resolve(rec)
		d = capture.Dispatch{Queue: qmap[rec.queue], Instance: -1, Index: -1, Ordinal: -1,
			Device: capture.Interval{Begin: rec.ts + add, End: rec.ts + rec.dur + add, Valid: true}}
		if r.coll.byOff != nil {
			d.Collective = r.collectiveOf(rec.off, &coll)
		}
		launched := rec.state == stLaunched || rec.state == stGraph
		if ok && tr.kernel >= 0 && tr.kernel < int64(len(b.Kernels)) && tr.link >= 0 && tr.link <= int64(capture.LinkGraph) {
			kn := &b.Kernels[tr.kernel]
			perProg[kn.Program]++
			d.Instance, d.Index, d.Ordinal, d.Link, d.List = tr.run, tr.index, tr.ordinal, capture.Link(tr.link), kn.List
			if byBlock {
				d.Program, d.Kernel = capture.ProgramID(kn.Program), capture.KernelID(tr.kernel)
			} else {
				def, inst := progs.of(r, rec)
				pd := &progs.defs[def]
				if !pd.created {
					pd.id = c.AddProgram(capture.Program{Name: pd.name, Instances: pd.instances})
					pd.created = true
				}
				d.Program, d.Instance = pd.id, inst
				d.Kernel = kernelOf(pd.id, kn.kernel())
			}
		} else {
			// No usable args.tally: the event is in the tables, in a
			// program of its own, and the block does not account for it.
			if bad == 0 {
				badFirst = rec.off
			}
			bad++
			if unlisted < 0 {
				unlisted = c.AddProgram(capture.Program{Name: tallyUnlisted, Instances: 1,
					Notes: []string{"kernel events without a usable args.tally: the tally block does not account for them (see inconsistent_trace)"}})
			}
			d.Program = unlisted
			kn := &r.knames[rec.kname]
			d.Kernel = kernelOf(unlisted, capture.Kernel{Name: displayName(kn), Resolved: kn.class == nameOK, Category: cats[kn.cat].label})
			d.Link = capture.LinkNoLaunch
			if launched || rec.state == stLaunchedNoTime {
				d.Link = capture.LinkLaunched
			}
		}
		if launched && rec.ldur >= 0 {
			d.Launch = capture.Interval{Begin: rec.lts + add, End: rec.lts + rec.ldur + add, Valid: true}
		}
		if launched && rec.call != noCall {
			r.calls[rec.call].linked++
		}
		st.totalNS = capture.SatAdd(st.totalNS, rec.dur)
		sink.Dispatch(c, &d)
	})
	if err == nil {
		err = logErr
	}
	if err != nil {
		return nil, err
	}

	// What the file holds against what the block says it holds.
	var seen int64
	for i, p := range b.Programs {
		seen += perProg[i]
		if perProg[i] != p.Events {
			odd = append(odd, capture.Item{What: fmt.Sprintf("program %s: the tally block counts %s, the file holds %d", p.Name, units.Plural(p.Events, "kernel event", "kernel events"), perProg[i]), Program: p.Name})
		}
	}
	if f := b.File; f != nil {
		if seen+bad != f.Kernels {
			odd = append(odd, capture.Item{What: fmt.Sprintf("the tally block counts %s in this file, the file holds %d", units.Plural(f.Kernels, "kernel event", "kernel events"), seen+bad)})
		}
		if t.markers != f.Unfinished {
			odd = append(odd, capture.Item{What: fmt.Sprintf("the tally block counts %s in this file, the file holds %d", units.Plural(f.Unfinished, "unfinished-dispatch marker", "unfinished-dispatch markers"), t.markers)})
		}
	}
	if bad > 0 {
		odd = append(odd, capture.Item{What: fmt.Sprintf("%s without a usable args.tally (an array of five integers naming a kernel of the block): in program %s", units.Plural(bad, "kernel event", "kernel events"), tallyUnlisted), Where: fmt.Sprintf("byte %d", badFirst)})
	}

	a := &c.Accounting
	// Tally writes no "Record Window End": the block's counts take its
	// place as the check that nothing was cut away.
	r.truncationGap(a)
	if g := a.Find(capture.TruncatedInput); g != nil && r.stop == nil {
		a.Gaps = removeGap(a.Gaps, g)
	}
	r.emptyGap(a)
	if g := a.Find(capture.EmptyCapture); g != nil && blockGap(b, capture.EmptyCapture) {
		// The exported input held no dispatch: its own empty_capture,
		// carried below, says so; a second one would count it twice.
		a.Gaps = removeGap(a.Gaps, g)
	} else if g != nil {
		g.Summary = fmt.Sprintf("no kernel event in this file: tally export wrote none from its input (%s of it were not written as events, see skipped_input)", units.Plural(notWritten(b), "dispatch", "dispatches"))
	}
	r.invalidGap(a, st)
	r.unknownGap(a)
	r.logs.counts = nil // INFO lines are tally's own sentences
	r.producerGap(a)
	r.launchGap(a, tb)
	r.inconsistentGap(a, tb)
	if len(odd) > 0 {
		g := a.Gap(capture.InconsistentTrace, "")
		if g.Summary == "" {
			g.Summary = "the file contradicts its tally block (listed below): its events were edited after tally exported them, or the block belongs to another file; the tables hold the events as found."
		} else {
			g.Summary += " The file also contradicts its tally block (its events were edited after tally exported them, or the block belongs to another file)."
		}
		for _, it := range odd {
			g.Add(it)
		}
	}
	for i, p := range b.Programs {
		if p.NotWritten == 0 {
			continue
		}
		// One gap per program, listed under it (the whole capture's when
		// --program-by regroups): appended, never merged with another
		// skipped_input.
		g := &capture.Gap{Kind: capture.SkippedInput, Program: p.Name,
			Summary: "tally export wrote no event for these dispatches of the exported input (aggregated records known only by counts and sums, or dispatches without ns device times, such as device ticks without a fit): they ran, and are in neither this file nor the tables; report the exported input itself for them."}
		if !byBlock {
			g.Program = ""
		}
		g.AddN(p.NotWritten)
		g.Items = append(g.Items, capture.Item{What: fmt.Sprintf("program %s: %s not written as events", p.Name, units.Plural(p.NotWritten, "dispatch", "dispatches")), Where: fmt.Sprintf("tally block, programs[%d]", i), Program: p.Name})
		a.Gaps = append(a.Gaps, g)
	}
	r.carryGaps(c, byBlock)

	r.accounting(c)
	if t.markers > 0 {
		// The dispatch it marks is listed by the carried unfinished_dispatch
		// gap; the marker itself is tally's bookkeeping.
		c.Accounting.InputFor("events").Ignore("tally's marker of an unfinished dispatch (its unfinished_dispatch gap is carried from the tally block)", t.markers, fmt.Sprintf("byte %d", t.markersFirst))
	}
	// The inventory describes this file: its own queues (c.Queues are the
	// exported input's).
	own := *c
	own.Queues = make([]capture.Queue, len(r.queues))
	for i := range r.queues {
		own.Queues[i] = capture.Queue{Name: r.streamName(uint32(i)), Device: r.deviceLabel(uint32(i))}
	}
	c.Inventory = r.inventory(&own, tb, st)
	c.Comments, c.CommentsAt = r.tallyComments(byBlock), len(c.Inventory)
	c.Inventory = append(c.Inventory, r.tallySection())
	return c, nil
}

// carryGaps appends the exported input's gaps, each as it was (kind,
// count, note, figures, items), its summary saying where it happened.
// Regrouped programs (--program-by) have other names: the gaps are then
// the whole capture's, their program named in the summary.
func (r *reader) carryGaps(c *capture.Capture, byBlock bool) {
	for _, g := range r.tb.blk.Gaps {
		cg := *g
		cg.Items = append([]capture.Item(nil), g.Items...)
		cg.Figures = append([]capture.Count(nil), g.Figures...)
		sum := strings.TrimPrefix(g.Summary, tallyFromInput)
		if !byBlock && g.Program != "" {
			sum = "program " + g.Program + ": " + sum
			cg.Program = ""
		}
		cg.Summary = tallyFromInput + sum
		c.Accounting.Gaps = append(c.Accounting.Gaps, &cg)
	}
}

func removeGap(gaps []*capture.Gap, g *capture.Gap) []*capture.Gap {
	out := gaps[:0]
	for _, x := range gaps {
		if x != g {
			out = append(out, x)
		}
	}
	return out
}

// blockGap tells whether the block carries a gap of kind.
func blockGap(b *tallyBlock, kind capture.Kind) bool {
	for _, g := range b.Gaps {
		if g.Kind == kind {
			return true
		}
	}
	return false
}

func notWritten(b *tallyBlock) int64 {
	var n int64
	for _, p := range b.Programs {
		n = capture.SatAdd(n, p.NotWritten)
	}
	return n
}

// tallyComments are the report's comments for a read-back file: where the
// file came from and that input's accounting, then the comments the
// input's own report had.
func (r *reader) tallyComments(byBlock bool) []capture.Field {
	b := r.tb.blk
	var s capture.Section // a builder: its Fields are the comments
	how := "the programs, kernels, clock and gaps below are that input's (the file's tally block, and args.tally of each kernel event); --program-by gpu-annotation|stream|none regroups"
	if !byBlock {
		how = "the clock and gaps below are that input's (the file's tally block), the programs regrouped by --program-by"
	}
	s.Add("exported", fmt.Sprintf("written by tally export (%s) from %s: %s", b.Schema, sourceLine(b.Source, b.Input), how))
	if !byBlock {
		for _, f := range r.comments() {
			if f.Key == "programs" {
				s.Fields = append(s.Fields, f)
			}
		}
	}
	for _, f := range b.Report {
		if f.Key != "" {
			s.Fields = append(s.Fields, f)
		}
	}
	return s.Fields
}

// sourceLine states an input and its accounting as the report's input line
// does.
func sourceLine(src capture.Source, in []*capture.InputCount) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s (%s, %d bytes", src.Path, src.Format, src.Bytes)
	if src.Compressed {
		sb.WriteString(" compressed")
	}
	sb.WriteString(")")
	for i, u := range in {
		sep := ": "
		if i > 0 {
			sep = "; "
		}
		fmt.Fprintf(&sb, "%s%d %s read, %d used", sep, u.Read, u.Unit, u.Used)
		if n := u.SkippedTotal(); n > 0 {
			var parts []string
			for _, sk := range u.Skipped {
				parts = append(parts, fmt.Sprintf("%d %s", sk.Count, sk.Reason))
			}
			fmt.Fprintf(&sb, ", %d skipped (%s)", n, strings.Join(parts, ", "))
		}
	}
	return sb.String()
}

// tallySection describes the block for `tally inspect`.
func (r *reader) tallySection() capture.Section {
	b := r.tb.blk
	s := capture.Section{Title: "tally export"}
	s.Add("schema", b.Schema)
	s.Add("exported input", sourceLine(b.Source, b.Input))
	s.Add("clock", b.Clock.Description)
	s.Add("programs", len(b.Programs))
	s.Add("kernels", len(b.Kernels))
	s.Add("queues", len(b.Queues))
	s.Add("gaps carried", len(b.Gaps))
	if f := b.File; f != nil {
		s.Add("kernel events (block)", f.Kernels)
		s.Add("unfinished-dispatch markers (block)", f.Unfinished)
	}
	s.Add("dispatches not written as events", notWritten(b))
	return s
}

// tallyNotUsed states a tally block that was not used (finish reads the
// file as any Kineto trace): a skipped_input gap, never a silent reading.
func (r *reader) tallyNotUsed(c *capture.Capture) {
	if r.tb != nil {
		// Set before the issue was found: its markers were set aside.
		// Its dispatch is not reported when the block is not used: lost,
		// under the skipped_input gap that says why.
		if r.tb.markers > 0 && r.tbIssue != nil {
			c.Accounting.InputFor("events").Lose(c.Accounting.Gap(capture.SkippedInput, ""), "tally's marker of an unfinished dispatch (the tally block was not used)", r.tb.markers, fmt.Sprintf("byte %d", r.tb.markersFirst))
		} else if r.tb.markers > 0 {
			c.Accounting.InputFor("events").Ignore("tally's marker of an unfinished dispatch (its unfinished_dispatch gap is carried from the tally block)", r.tb.markers, fmt.Sprintf("byte %d", r.tb.markersFirst))
		}
		r.tb.log.close()
	}
	if r.tbIssue == nil {
		return
	}
	g := c.Accounting.Gap(capture.SkippedInput, "")
	g.Add(capture.Item{What: "tally block not used: " + r.tbIssue.what, Where: fmt.Sprintf("byte %d", r.tbIssue.off)})
	s := "the file carries a \"tally\" block (tally export's record of the input it was written from) that was not used (listed below), so the file was read as any Kineto trace: its clock and programs are this file's own reading, and the exported input's gaps the block lists (also in its INFO lines) are not carried; read the input the file was exported from, or export it again with this tally."
	if g.Summary == "" {
		g.Summary = s
	} else {
		g.Summary += " Also: " + s
	}
}
