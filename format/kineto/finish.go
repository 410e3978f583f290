package kineto

import (
	"fmt"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// replayStats gathers, while dispatches are emitted, what the gaps report.
type replayStats struct {
	totalNS int64

	orphans      int64
	orphanNS     int64
	noCorr       int64
	corrZero     int64
	badCorr      int64
	unmatched    int64
	minOrphan    uint64
	maxOrphan    uint64
	orphanItems  []capture.Item
	orphanCorrs  map[uint64]int64 // unmatched ids → device events, for graph-like orphans
	orphanCorrsN int64            // distinct ids beyond the map's cap

	graphEvents int64
	graphNS     int64

	zeroDur, zeroTs, zeroAny int64
	zeroItems                []capture.Item

	longer      int64 // events longer than the capture window
	longerItems []capture.Item

	badNames     [nameInvalid + 1]int64
	badNameItems []capture.Item
}

const maxOrphanCorrs = 1 << 16

// finish turns the state of a complete scan into the capture: it decides
// the clock, emits every dispatch to sink, then states the gaps.
func (r *reader) finish(sink capture.Sink) (*capture.Capture, error) {
	if r.tb != nil && r.tbIssue == nil {
		return r.finishTally(sink)
	}
	defer r.log.close()
	c := &capture.Capture{}
	tb := r.decideClock()
	c.Clock = tb.clock
	if r.top.hasDist && r.top.dist.hasRank {
		// Set before any dispatch streams, so sinks (timelines) can group by rank.
		c.Source.Rank = itoa(r.top.dist.rank)
	}
	for i := range r.queues {
		c.AddQueue(capture.Queue{Name: r.streamName(uint32(i)), Device: r.deviceLabel(uint32(i))})
	}
	progs := r.buildPrograms()
	kernels := make(map[uint64]capture.KernelID)
	st := &replayStats{orphanCorrs: make(map[uint64]int64)}
	ov := overlaps{window: overlapWindow(len(r.queues)), waits: newWaits(r.waitNS)}
	defer ov.release()
	var d capture.Dispatch
	var coll capture.Collective
	add := tb.add
	ceiling := r.ceiling
	if ceiling <= 0 {
		ceiling = capture.MaxDuration
	}
	windowLen := int64(-1)
	if r.window.has {
		windowLen = r.window.end - r.window.start
	}

	if r.ops != nil {
		r.ops.build(len(r.threads))
	}
	err := r.log.replay(func(rec *drec) {
		r.link.resolve(rec)
		def, inst := progs.of(r, rec)
		pd := &progs.defs[def]
		if !pd.created {
			pd.id = c.AddProgram(capture.Program{Name: pd.name, Instances: pd.instances})
			pd.created = true
		}
		kk := uint64(pd.id)<<32 | uint64(rec.kname)
		kid, ok := kernels[kk]
		if !ok {
			kn := &r.knames[rec.kname]
			kid = c.AddKernel(capture.Kernel{Program: pd.id, Name: displayName(kn), Resolved: kn.class == nameOK, Category: cats[kn.cat].label})
			kernels[kk] = kid
		}
		d = capture.Dispatch{
			Program: pd.id, Queue: capture.QueueID(rec.queue), Kernel: kid, Instance: inst,
			Index: -1, Ordinal: -1,
			Device: capture.Interval{Begin: rec.ts + add, End: rec.ts + rec.dur + add, Valid: true},
			Link:   capture.LinkNoLaunch,
		}
		if r.coll.byOff != nil {
			d.Collective = r.collectiveOf(rec.off, &coll)
		}
		switch rec.state {
		case stLaunched, stGraph:
			d.Link = capture.LinkLaunched
			if rec.state == stGraph {
				d.Link = capture.LinkGraph
			}
			if rec.ldur >= 0 {
				d.Launch = capture.Interval{Begin: rec.lts + add, End: rec.lts + rec.ldur + add, Valid: true}
			}
			d.HostSync = r.syncs.of(rec.corr, add)
		case stLaunchedNoTime:
			d.Link = capture.LinkLaunched
		}
		if r.ops != nil {
			r.attributeOp(c, rec, &d)
		}
		sink.Dispatch(c, &d)
		if _, ok := capture.ImpossibleTime(&d, ceiling); !ok {
			// The model check makes it an invalid_event and keeps it out
			// of the tables: it is left out of the figures and gaps below
			// too (a 2 h "kernel" would contain the rest of its stream).
			return
		}
		st.totalNS = capture.SatAdd(st.totalNS, rec.dur)
		switch rec.state {
		case stLaunched, stGraph:
			if rec.state == stGraph {
				g := r.link.graphs[rec.corr]
				g.kernels++
				g.ns = capture.SatAdd(g.ns, rec.dur)
				st.graphEvents++
				st.graphNS = capture.SatAdd(st.graphNS, rec.dur)
				pd.graph++
			}
			if rec.call != noCall {
				r.calls[rec.call].linked++
			}
		case stLaunchedNoTime:
		default:
			pd.noLaunch++
			r.orphan(st, rec, add)
		}

		lend := int64(-1)
		if (rec.state == stLaunched || rec.state == stGraph) && rec.ldur >= 0 {
			lend = rec.lts + rec.ldur
		}
		ov.add(r, rec.queue, ovRec{start: rec.ts, end: rec.ts + rec.dur, lend: lend, graph: rec.state == stGraph, kname: rec.kname, off: rec.off}, add)
		if rec.dur == 0 || rec.ts == 0 {
			st.zeroAny++
			if rec.dur == 0 {
				st.zeroDur++
			}
			if rec.ts == 0 {
				st.zeroTs++
			}
			if len(st.zeroItems) < capture.MaxItems {
				what := "dur 0"
				if rec.ts == 0 {
					what = "ts 0 (clamped by the writer)"
				}
				st.zeroItems = append(st.zeroItems, capture.Item{What: what + " on " + r.queueLabel(rec.queue),
					Where: fmt.Sprintf("byte %d", rec.off), Program: pd.name, Kernel: r.knames[rec.kname].name, Time: capture.TimeOf(rec.ts + add)})
			}
		}
		if windowLen >= 0 && rec.dur > windowLen {
			st.longer++
			if len(st.longerItems) < capture.MaxItems {
				st.longerItems = append(st.longerItems, capture.Item{What: fmt.Sprintf("dur %d ns is longer than the capture window (%d ns)", rec.dur, windowLen),
					Where: fmt.Sprintf("byte %d", rec.off), Program: pd.name, Kernel: r.knames[rec.kname].name, Time: capture.TimeOf(rec.ts + add)})
			}
		}
		if cl := r.knames[rec.kname].class; cl != nameOK {
			st.badNames[cl]++
			if len(st.badNameItems) < capture.MaxItems {
				st.badNameItems = append(st.badNameItems, capture.Item{What: nameClassText(cl) + " " + cats[r.knames[rec.kname].cat].name + " event",
					Where: fmt.Sprintf("byte %d", rec.off), Program: pd.name, Time: capture.TimeOf(rec.ts + add)})
			}
		}
	})
	if err != nil {
		return nil, err
	}
	ov.flush(r, add)
	if err := r.measureWaits(ov.waits); err != nil {
		return nil, err
	}

	for _, pd := range progs.defs {
		if !pd.created {
			continue
		}
		p := &c.Programs[pd.id]
		if pd.note != "" {
			p.Notes = append(p.Notes, pd.note)
		}
		if pd.byStep > 0 {
			r.byStep += pd.byStep
			p.Notes = append(p.Notes, fmt.Sprintf("attributed by the step range: %s without an enclosing GPU annotation, launched inside the host's %s range (on any thread, e.g. the autograd engine's); --program-by gpu-annotation leaves them out", units.Plural(pd.byStep, "dispatch", "dispatches"), pd.name))
		}
		if pd.graph > 0 {
			p.Notes = append(p.Notes, r.graphNote(pd.graph))
		}
		if pd.noLaunch > 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("%d dispatches have no launch call in the trace (see gpu_event_without_launch)", pd.noLaunch))
		}
	}

	if r.ops != nil {
		r.ops.finish(c)
		c.OpDevice = r.opDevice()
	}
	r.gaps(c, tb, st, &ov)
	r.accounting(c)
	r.tallyNotUsed(c)
	c.Inventory = r.inventory(c, tb, st)
	c.Comments, c.CommentsAt = r.comments(), len(c.Inventory)
	return c, nil
}

// orphan records a device event that no runtime call launched.
func (r *reader) orphan(st *replayStats, rec *drec, add int64) {
	st.orphans++
	st.orphanNS = capture.SatAdd(st.orphanNS, rec.dur)
	why := ""
	switch rec.state {
	case stNoCorr:
		st.noCorr++
		why = "no correlation id"
	case stCorrZero:
		st.corrZero++
		why = "correlation 0"
	case stBadCorr:
		st.badCorr++
		why = "correlation is not an integer id"
	default:
		if st.unmatched == 0 || rec.corr < st.minOrphan {
			st.minOrphan = rec.corr
		}
		if rec.corr > st.maxOrphan {
			st.maxOrphan = rec.corr
		}
		st.unmatched++
		if n, ok := st.orphanCorrs[rec.corr]; ok || len(st.orphanCorrs) < maxOrphanCorrs {
			st.orphanCorrs[rec.corr] = n + 1
		} else {
			st.orphanCorrsN++
		}
	}
	if len(st.orphanItems) < capture.MaxItems {
		if st.orphanItems == nil {
			// All the items at once: grown by doubling, the list
			// allocated 2.5 times what it keeps.
			st.orphanItems = make([]capture.Item, 0, capture.MaxItems)
		}
		if why == "" {
			// Formatted only for the items kept: a trace may hold
			// millions of orphans.
			why = fmt.Sprintf("correlation %d matches no runtime call", rec.corr)
		}
		st.orphanItems = append(st.orphanItems, capture.Item{What: why + " (" + r.queueLabel(rec.queue) + ")",
			Where: fmt.Sprintf("byte %d", rec.off), Kernel: r.knames[rec.kname].name, Time: capture.TimeOf(rec.ts + add)})
	}
}

// displayName is a kernel's name exactly as in the trace, or a label for
// names that are missing.
func displayName(k *kname) string {
	if k.class == nameEmpty {
		return "(unnamed " + cats[k.cat].name + ")"
	}
	return k.name
}

func nameClassText(c nameClass) string {
	switch c {
	case nameEmpty:
		return "unnamed"
	case nameUnknown:
		return "writer-substituted name \"unknown\" on a"
	case nameBadUTF8:
		return "name with invalid UTF-8 or U+FFFD on a"
	case nameInvalid:
		return "name INVALID on a"
	}
	return ""
}

// deviceLabel names a queue's device as the trace does ("GPU 0", "MTIA 9").
func (r *reader) deviceLabel(q uint32) string {
	qi := &r.queues[q]
	if !qi.devKnown {
		return "device ?"
	}
	if l, ok := r.meta.labels[qi.key.dev]; ok && l != "" {
		return l
	}
	return "device " + itoa(qi.key.dev)
}

// streamName names a queue's stream as the trace does ("stream 7").
func (r *reader) streamName(q uint32) string {
	qi := &r.queues[q]
	if n, ok := r.meta.threads[qi.key]; ok && strings.TrimSpace(n) != "" {
		return strings.TrimSpace(n)
	}
	if qi.key.stream < 0 {
		return "stream ?"
	}
	return "stream " + itoa(qi.key.stream)
}

func (r *reader) queueLabel(q uint32) string { return r.deviceLabel(q) + " " + r.streamName(q) }

// accounting fills the input counts: every event and byte read is used or
// skipped with a reason.
func (r *reader) accounting(c *capture.Capture) {
	ev := c.Accounting.InputFor("events")
	ev.Read = r.events
	for _, n := range r.stats.used {
		ev.Used += n
	}
	for why := reason(0); why < numReasons; why++ {
		first := ""
		if f := r.stats.skipFirst[why]; f > 0 {
			first = fmt.Sprintf("byte %d", f-1)
		}
		switch k := reasonGap[why]; {
		case r.stats.skip[why] == 0:
		case k != "":
			ev.Lose(c.Accounting.Gap(k, ""), reasonText[why], r.stats.skip[why], first)
		default:
			ev.Ignore(reasonText[why], r.stats.skip[why], first)
		}
	}
	by := c.Accounting.InputFor("bytes")
	by.Read = r.s.read()
	switch {
	case r.stop != nil:
		by.Used = r.lastGood
		by.Lose(c.Accounting.Gap(capture.TruncatedInput, ""), "after the last complete event: the input is cut or malformed there", by.Read-r.lastGood, fmt.Sprintf("byte %d", r.lastGood))
	case r.top.hasTrailing:
		by.Used = r.top.trailing
		by.Lose(c.Accounting.Gap(capture.SkippedInput, ""), "after the end of the JSON document", by.Read-r.top.trailing, fmt.Sprintf("byte %d", r.top.trailing))
	default:
		by.Used = by.Read
	}
	if t := r.gzipTrailing(); t != nil {
		// Counted in their own unit: they lie outside the decompressed
		// bytes counted above.
		cb := c.Accounting.InputFor("compressed bytes")
		cb.Read = capture.SatAdd(t.Offset, t.N)
		cb.Used = t.Offset
		cb.Lose(c.Accounting.Gap(capture.SkippedInput, ""), "after the end of the gzip stream: not gzip data", t.N, fmt.Sprintf("compressed byte %d", t.Offset))
	}
}
