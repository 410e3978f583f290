package kineto

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// gaps states everything the tables do not show, one typed gap per class,
// each with a one-sentence summary of what is missing and what to do.
func (r *reader) gaps(c *capture.Capture, tb timeBase, st *replayStats, ov *overlaps) {
	a := &c.Accounting
	r.truncationGap(a)
	r.notObjectGap(a)
	r.emptyGap(a)
	r.orphanGap(a, st)
	r.launchGap(a, tb)
	r.unresolvedGap(a, st)
	r.zeroGap(a, tb, st)
	r.overlapGap(a, ov)
	r.waitGap(a, ov.waits, tb.add)
	r.invalidGap(a, st)
	r.repeatGap(a, tb)
	r.unknownGap(a)
	r.producerGap(a)
	r.inconsistentGap(a, tb)
	r.graphGap(a, st)
	// Strings the scanner cut at capture.MaxName (longStr): the names
	// that reached the model were cut there, so nothing else counts them.
	if g := r.names.Find(capture.LongName); g != nil {
		a.Gaps = append(a.Gaps, g)
	}
}

// ns formats a duration for summaries as the text report does.
func ns(v int64) string { return units.NS(float64(v)) }

func (r *reader) truncationGap(a *capture.Accounting) {
	switch {
	case r.stop != nil:
		g := a.Gap(capture.TruncatedInput, "")
		g.Add(capture.Item{What: r.stop.msg, Where: fmt.Sprintf("byte %d", r.stop.off)})
		g.SetFigure("events_read", r.events)
		g.SetFigure("byte", r.stop.off)
		where := "inside traceEvents"
		if r.top.sawEvents && r.top.afterIndex >= 0 {
			where = "after traceEvents (every event was read; the keys after the cut, e.g. baseTimeNanoseconds, are missing)"
		} else if !r.top.sawEvents {
			where = "before traceEvents"
		}
		if r.stop.eof {
			g.Summary = fmt.Sprintf("the JSON ends early, %s, after %d events at byte %d of the decompressed input: the events before it are in the tables, whatever followed is lost; copy the file again, or check that the profiler finished writing it (Kineto writes a temporary file and renames it when done).", where, r.events, r.stop.off)
		} else {
			g.Summary = fmt.Sprintf("the JSON is malformed at byte %d (%s), %s: reading stopped there after %d events, which are in the tables; the rest of the file was not read (old Kineto versions wrote unescaped quotes in names): fix the text at that byte, or re-export the trace.", r.stop.off, r.stop.msg, where, r.events)
		}
	case r.top.sawEvents && !r.top.bareArray && !r.window.endMarker && r.looksKineto():
		g := a.Gap(capture.TruncatedInput, "")
		g.Add(capture.Item{What: "no \"Record Window End\" marker: the last event Kineto writes is missing"})
		g.SetFigure("events_read", r.events)
		g.Summary = fmt.Sprintf("the JSON is complete but has no end marker (the \"Record Window End\" instant Kineto writes last): the file was trimmed or filtered after recording (e.g. sub-sampled), so events may be missing without trace; use the file as the profiler wrote it.")
	}
	if r.top.hasTrailing && r.stop == nil {
		g := a.Gap(capture.SkippedInput, "")
		g.Add(capture.Item{What: "data after the end of the JSON document", Where: fmt.Sprintf("byte %d", r.top.trailing)})
		g.Summary = fmt.Sprintf("the file goes on after its JSON document ends (at byte %d) and that data was not read: if two traces were concatenated, split them and report each.", r.top.trailing)
	}
	if t := r.gzipTrailing(); t != nil {
		g := a.Gap(capture.SkippedInput, "")
		g.Add(capture.Item{What: "bytes after the end of the gzip stream", Where: fmt.Sprintf("compressed byte %d", t.Offset)})
		g.SetFigure("bytes", t.N)
		g.Summary = fmt.Sprintf("the gzip file goes on after its gzip stream ends (at compressed byte %d): %s were not gzip data and were not read; every event of the stream was read. If a file was appended or the copy padded, strip those bytes (gzip -t names them as trailing garbage).", t.Offset, units.Plural(t.N, "byte", "bytes"))
	}
	if r.top.eventsNot {
		g := a.Gap(capture.SkippedInput, "")
		g.Add(capture.Item{What: "traceEvents is not an array"})
		g.Summary = "traceEvents is not an array, so no event could be read: the file is not a trace as Kineto writes it."
	}
}

// notObjectGap reports values in traceEvents that are not event objects:
// they were not read, and a tool that wrote events as strings or nested
// arrays would have its events there.
func (r *reader) notObjectGap(a *capture.Accounting) {
	n := r.stats.skip[rsNotObject]
	if n == 0 {
		return
	}
	first := r.stats.skipFirst[rsNotObject] - 1
	values := units.Plural(n, "value that is", "values that are")
	g := a.Gap(capture.SkippedInput, "")
	g.Add(capture.Item{What: values + " not an event object, in traceEvents", Where: fmt.Sprintf("byte %d", first)})
	g.SetFigure("not_event_objects", n)
	s := fmt.Sprintf("traceEvents holds %s not an event object (the first at byte %d): not read, so any events written inside them are missing; check the tool that wrote this file.", values, first)
	if g.Summary != "" {
		s = g.Summary + " Also: " + s
	}
	g.Summary = s
}

// looksKineto tells a Kineto file (which always ends with the marker) from
// another Chrome-trace producer's.
func (r *reader) looksKineto() bool {
	for _, k := range r.top.keys {
		if k.key == "schemaVersion" || k.key == "deviceProperties" {
			return true
		}
	}
	return r.window.has
}

func (r *reader) emptyGap(a *capture.Accounting) {
	if r.stats.used[useDispatch] > 0 {
		return
	}
	g := a.Gap(capture.EmptyCapture, "")
	g.AddN(1)
	var parts []string
	for id := catID(0); id < numCats; id++ {
		if n := r.stats.byCat[id]; n > 0 && cats[id].name != "" {
			parts = append(parts, fmt.Sprintf("%s %d", cats[id].name, n))
		}
	}
	if n := r.stats.cpuFuncs; n > 0 {
		parts = append(parts, fmt.Sprintf("%q host ops of the pre-Kineto autograd profiler %d", "CPU functions", n))
	}
	if n := r.stats.byPhase['M']; n > 0 {
		parts = append(parts, fmt.Sprintf("metadata %d", n))
	}
	what := "nothing at all"
	switch host := r.stats.skip[rsHostOp] + r.stats.skip[rsHostOther]; {
	case len(parts) > 0:
		what = fmt.Sprintf("%d events: %s, no device activity (%s)", r.events, units.Plural(host, "host event", "host events"), strings.Join(parts, ", "))
	case r.events > 0:
		what = fmt.Sprintf("%d events, none of them host or device activity tally knows", r.events)
	}
	switch {
	case r.events == 0 && !r.top.sawEvents:
		g.Summary = "no device activity recorded: the file holds no traceEvents at all; check that this is the trace the profiler wrote."
	case r.stats.byCat[catProfilerRange] > 0:
		g.Summary = fmt.Sprintf("no device activity recorded: this is a CUPTI range-profiler capture, so kernels were not traced (%d cuda_profiler_range counter events instead) and the trace holds %s; profile with the default activity tracing (ProfilerActivity.CUDA without the experimental profiler metrics) to get kernel times.", r.stats.byCat[catProfilerRange], what)
	case r.stats.skip[rsBadDevice] > 0:
		g.Summary = fmt.Sprintf("no usable device activity: the trace holds %s, but no device event has usable times (see invalid_event).", what)
	default:
		dev := ""
		if r.top.devicesSeen && len(r.top.devices) == 0 {
			dev = "; deviceProperties is empty (a CPU-only run)"
		}
		g.Summary = fmt.Sprintf("no device activity recorded: the trace holds %s%s; profile with the device activity enabled (e.g. ProfilerActivity.CUDA) to get kernel times.", what, dev)
	}
}

func (r *reader) orphanGap(a *capture.Accounting, st *replayStats) {
	if st.orphans == 0 {
		return
	}
	g := a.Gap(capture.GPUEventWithoutLaunch, "")
	g.Count = st.orphans
	g.Items = st.orphanItems
	g.ItemsOmitted = st.orphans - int64(len(st.orphanItems))
	g.SetFigure("total_ns", st.orphanNS)
	g.SetFigure("unmatched_correlation", st.unmatched)
	g.SetFigure("no_correlation", st.noCorr)
	g.SetFigure("correlation_0", st.corrZero)
	if st.badCorr > 0 {
		g.SetFigure("bad_correlation", st.badCorr)
	}
	var why []string
	if st.unmatched > 0 {
		g.SetFigure("min_correlation", int64(st.minOrphan))
		g.SetFigure("max_correlation", int64(st.maxOrphan))
		multi := int64(0)
		for _, n := range st.orphanCorrs {
			if n > 1 {
				multi++
			}
		}
		s := fmt.Sprintf("%d have a correlation id no runtime call carries", st.unmatched)
		if r.hasCallCor {
			g.SetFigure("first_runtime_correlation", int64(r.minCallCor))
			if st.maxOrphan < r.minCallCor {
				s += fmt.Sprintf(": all ids (%d–%d) are below the first runtime call's (%d), so they were launched before the profiler's CPU window opened", st.minOrphan, st.maxOrphan, r.minCallCor)
			} else {
				s += fmt.Sprintf(" (ids %d–%d; the first runtime call's is %d)", st.minOrphan, st.maxOrphan, r.minCallCor)
			}
		} else {
			s += " (the trace has no runtime call with a correlation id at all)"
		}
		if multi > 0 {
			g.SetFigure("ids_shared_by_several_events", multi)
			s += fmt.Sprintf("; %d of those ids are shared by several device events, as graph replays are", multi)
		}
		why = append(why, s)
	}
	if st.noCorr > 0 {
		why = append(why, fmt.Sprintf("%d carry no correlation id (device-initiated work such as DMA requests: unlinkable by construction)", st.noCorr))
	}
	if st.corrZero > 0 {
		why = append(why, fmt.Sprintf("%d have correlation 0 (RCCL kernels: unlinkable by construction)", st.corrZero))
	}
	if st.badCorr > 0 {
		why = append(why, fmt.Sprintf("%d have a correlation that is not an integer id", st.badCorr))
	}
	share := ""
	if st.totalNS > 0 {
		share = fmt.Sprintf(", %.1f%% of all", 100*float64(st.orphanNS)/float64(st.totalNS))
	}
	advice := "their launch times and host callers are unknown"
	if st.unmatched > 0 {
		advice += ", and starting the profiler earlier (a longer warmup in its schedule) captures their launches"
	}
	g.Summary = fmt.Sprintf("%s (%s of device time%s) have no launch call in the trace — %s — so they are in the tables marked no-launch, but %s.",
		units.Plural(st.orphans, "device event", "device events"), ns(st.orphanNS), share, strings.Join(why, "; "), advice)
}

// launchGap reports launch calls that produced no device event.
func (r *reader) launchGap(a *capture.Accounting, tb timeBase) {
	type miss struct {
		rt    rtRec
		after bool
	}
	var misses []miss
	r.link.unmatchedLaunches(func(rt *rtRec) {
		ci := &r.calls[rt.call]
		if r.captures.inside(rt.thread, rt.ts) {
			ci.inCapt++
			return
		}
		ci.noGPU++
		misses = append(misses, miss{rt: *rt, after: r.stats.used[useDispatch] > 0 && rt.ts >= r.maxDevEnd})
	})
	if len(misses) == 0 {
		return
	}
	sort.Slice(misses, func(i, j int) bool {
		if misses[i].rt.ts != misses[j].rt.ts {
			return misses[i].rt.ts < misses[j].rt.ts
		}
		return misses[i].rt.corr < misses[j].rt.corr
	})
	g := a.Gap(capture.LaunchWithoutGPUEvent, "")
	after := int64(0)
	for _, m := range misses {
		where := "elsewhere in the trace"
		if m.after {
			after++
			where = "after the last recorded device activity"
		}
		g.Add(capture.Item{What: fmt.Sprintf("%s (correlation %d), %s", r.calls[m.rt.call].name, m.rt.corr, where), Time: capture.TimeOf(m.rt.ts + tb.add)})
	}
	var names []string
	for i := range r.calls {
		if n := r.calls[i].noGPU; n > 0 {
			g.SetFigure(r.calls[i].name, n)
			names = append(names, fmt.Sprintf("%d %s", n, r.calls[i].name))
		}
	}
	g.SetFigure("after_last_device_event", after)
	g.SetFigure("elsewhere", int64(len(misses))-after)
	var why []string
	if r.stats.used[useDispatch] == 0 {
		if r.stats.byCat[catProfilerRange] > 0 {
			why = append(why, "this is a CUPTI range-profiler capture: kernels were not traced at all")
		} else {
			why = append(why, "the trace holds no device activity at all")
		}
	} else {
		if after > 0 {
			why = append(why, fmt.Sprintf("%d were made after the last recorded device activity: their work probably ended after the capture window and Kineto dropped it (its log's Out-of-range figure counts such drops)", after))
		}
		if rest := int64(len(misses)) - after; rest > 0 {
			why = append(why, fmt.Sprintf("%d lie within the recorded activity and the file does not say why", rest))
		}
	}
	advice := "the tables miss whatever device time they caused, which a longer capture window (or a fresh trace) would show"
	if r.stats.used[useDispatch] == 0 {
		advice = "the tables miss their device time: trace the device activity to see it"
	}
	g.Summary = fmt.Sprintf("%s produced no device event (%s): %s; %s.",
		units.Plural(int64(len(misses)), "launch call", "launch calls"), strings.Join(names, ", "), strings.Join(why, "; "), advice)
}

func (r *reader) unresolvedGap(a *capture.Accounting, st *replayStats) {
	dev := st.badNames[nameEmpty] + st.badNames[nameUnknown] + st.badNames[nameBadUTF8]
	if r.invalidRuns == 0 && dev == 0 {
		return
	}
	g := a.Gap(capture.UnresolvedName, "")
	g.Set(r.invalidRuns+dev, r.invalidRun, st.badNameItems)
	var parts []string
	if r.invalidRuns > 0 {
		g.SetFigure("invalid_runtime_calls", r.invalidRuns)
		parts = append(parts, fmt.Sprintf("%d runtime calls named INVALID (the writer did not know the API's callback id)", r.invalidRuns))
	}
	if n := st.badNames[nameEmpty]; n > 0 {
		g.SetFigure("unnamed_device_events", n)
		parts = append(parts, fmt.Sprintf("%d device events without a name", n))
	}
	if n := st.badNames[nameUnknown]; n > 0 {
		g.SetFigure("device_events_named_unknown", n)
		parts = append(parts, fmt.Sprintf("%d device events named \"unknown\" (the writer's stand-in for names with unprintable bytes)", n))
	}
	if n := st.badNames[nameBadUTF8]; n > 0 {
		g.SetFigure("device_events_invalid_utf8", n)
		parts = append(parts, fmt.Sprintf("%d device events whose names are not valid UTF-8, or hold U+FFFD from an earlier replacement", n))
	}
	g.Summary = fmt.Sprintf("names the trace does not resolve: %s; they are shown as found, never guessed (a newer PyTorch/Kineto names them).", strings.Join(parts, "; "))
}

func (r *reader) zeroGap(a *capture.Accounting, tb timeBase, st *replayStats) {
	if st.zeroDur == 0 && st.zeroTs == 0 {
		return
	}
	g := a.Gap(capture.ZeroDuration, "")
	g.Set(st.zeroAny, st.zeroItems)
	g.SetFigure("dur_0", st.zeroDur)
	g.SetFigure("ts_0", st.zeroTs)
	why := "Kineto writes 0 for negative durations and for kernels whose records came back without times (CUPTI range-profiling mode)"
	if tb.gen == "A" {
		why = "generation A traces round to whole µs, so work under 1 µs reads 0; Kineto also writes 0 for negative durations"
	}
	what := units.Plural(st.zeroDur, "device event", "device events") + " with dur 0"
	if st.zeroTs > 0 {
		what += " and " + units.Plural(st.zeroTs, "with ts 0", "with ts 0")
	}
	g.Summary = fmt.Sprintf("%s: %s; they are counted in the tables with 0 ns and their real duration is unknown (below 1 µs when rounded).", what, why)
}

func (r *reader) overlapGap(a *capture.Accounting, ov *overlaps) {
	unchecked := ""
	if ov.unordered > 0 {
		unchecked = fmt.Sprintf(" (%d more events sit too far out of time order in the file to be checked)", ov.unordered)
	}
	if p := &ov.partial; p.count > 0 {
		g := a.Gap(capture.OverlappingEvents, "")
		fillOverlap(g, p)
		if ov.unordered > 0 {
			g.SetFigure("unchecked_out_of_order", ov.unordered)
		}
		g.Summary = fmt.Sprintf("%s before the previous event on the same stream ended (overlap %s in total, %s at most) and end after it: on Hopper and later GPUs programmatic dependent launch starts a kernel early (cuBLASLt split-K reduce kernels do it routinely), and clock artefacts shift events by tens of ns; durations are kept as recorded, so busy time per stream is less than their sum%s.",
			units.Plural(p.count, "device event starts", "device events start"), ns(p.total), ns(p.max), unchecked)
	}
	if c := &ov.contained; c.count > 0 {
		g := a.Gap(capture.ContainedEvents, "")
		fillOverlap(g, c)
		g.Summary = fmt.Sprintf("%s wholly inside earlier work on the same stream (%s in total): a stream runs one piece of work at a time and a dependent kernel cannot end before the one it follows, so either the times are wrong or the producer wrote work twice or put concurrent work (graph branches, DMA next to compute) on one row; the tables count them as recorded, so that stream's time may be counted twice%s.",
			units.Plural(c.count, "device event lies", "device events lie"), ns(c.total), unchecked)
	}
}

func fillOverlap(g *capture.Gap, c *ovClass) {
	g.Count = c.count
	g.Items = c.items
	g.ItemsOmitted = c.omitted
	g.SetFigure("total_ns", c.total)
	g.SetFigure("max_ns", c.max)
}

func (r *reader) invalidGap(a *capture.Accounting, st *replayStats) {
	if r.invalidN == 0 && st.longer == 0 {
		return
	}
	g := a.Gap(capture.InvalidEvent, "")
	g.Set(r.invalidN+st.longer, r.invalid, st.longerItems)
	var parts []string
	if r.invalidN > 0 {
		g.SetFigure("unusable_times", r.invalidN)
		parts = append(parts, fmt.Sprintf("%d device-side events have missing, unusable or negative times and are not in the tables", r.invalidN))
	}
	if st.longer > 0 {
		g.SetFigure("longer_than_window", st.longer)
		parts = append(parts, fmt.Sprintf("%d device events last longer than the whole capture window (a known ROCm artefact): they are in the tables, but their durations are suspect", st.longer))
	}
	g.Summary = strings.Join(parts, "; ") + "."
}

func (r *reader) unknownGap(a *capture.Accounting) {
	n := r.stats.skip[rsUnknownCat] + r.stats.skip[rsUnknownPhase]
	if n == 0 {
		return
	}
	g := a.Gap(capture.UnknownInput, "")
	g.Count = n
	type kv struct {
		k string
		n int64
	}
	var list []kv
	for k, v := range r.stats.unknownCats {
		list = append(list, kv{k, v})
	}
	if r.stats.unknownMore > 0 {
		list = append(list, kv{"(other categories)", r.stats.unknownMore})
	}
	for ph := 0; ph < 256; ph++ {
		if c := r.stats.byPhase[ph]; c > 0 && !knownPhase(byte(ph)) {
			list = append(list, kv{"phase " + phaseName(byte(ph)), c})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].n != list[j].n {
			return list[i].n > list[j].n
		}
		return list[i].k < list[j].k
	})
	var names []string
	for i, e := range list {
		g.SetFigure(e.k, e.n)
		if i < 10 {
			names = append(names, fmt.Sprintf("%s %d", e.k, e.n))
		}
	}
	if len(list) > 10 {
		names = append(names, "…")
	}
	g.Summary = fmt.Sprintf("%s of categories or phases tally does not know were not used (%s): if they are device work of an accelerator tally does not read yet, that work is missing from the tables; report the category so it can be supported.",
		units.Plural(n, "event", "events"), strings.Join(names, ", "))
}

func knownPhase(ph byte) bool {
	switch ph {
	case 'X', 'i', 'I', 's', 'f', 't', 'M', 'C':
		return true
	}
	return false
}

func (r *reader) producerGap(a *capture.Accounting) {
	lg := &r.logs
	var losses []string
	for _, f := range lg.counts {
		if f.n != 0 && lossFigure(f.name) {
			losses = append(losses, fmt.Sprintf("%s = %d", f.name, f.n))
		}
	}
	if len(losses) == 0 && lg.error == 0 && lg.warning == 0 {
		return
	}
	g := a.Gap(capture.ProducerWarnings, "")
	for _, f := range lg.counts {
		if f.n != 0 {
			g.SetFigure(f.name, f.n)
		}
	}
	for _, l := range losses {
		g.Add(capture.Item{What: "Record counts: " + l})
	}
	for _, l := range lg.errors {
		g.Add(capture.Item{What: l})
	}
	for _, l := range lg.warnings {
		g.Add(capture.Item{What: l})
	}
	g.Count = int64(len(losses)) + lg.error + lg.warning
	g.ItemsOmitted = g.Count - int64(len(g.Items))
	var parts []string
	if len(losses) > 0 {
		parts = append(parts, "its Record counts report "+strings.Join(losses, ", ")+" (Out-of-range: activities outside the capture window that Kineto dropped; Invalid ext correlations: unusable links; CPU GPU out-of-order: device work starting before its launch, i.e. clock skew)")
	}
	if lg.error > 0 {
		parts = append(parts, units.Plural(lg.error, "ERROR line", "ERROR lines"))
	}
	if lg.warning > 0 {
		parts = append(parts, units.Plural(lg.warning, "WARNING line", "WARNING lines"))
	}
	tail := "the lines are listed verbatim"
	if len(losses) > 0 {
		tail += ", and the activities it dropped are in neither the trace nor the tables"
	}
	g.Summary = "the profiler's own log in the file says data is missing or something failed: " + strings.Join(parts, "; ") + "; " + tail + "."
}

func (r *reader) inconsistentGap(a *capture.Accounting, tb timeBase) {
	var items []capture.Item
	if tb.mismatch != "" {
		items = append(items, capture.Item{What: tb.mismatch})
	}
	if r.top.badBase != "" {
		items = append(items, capture.Item{What: fmt.Sprintf("baseTimeNanoseconds %q is not an integer number of ns: not used", r.top.badBase)})
	}
	if r.link.dupCalls > 0 {
		items = append(items, capture.Item{What: fmt.Sprintf("%d runtime calls reuse a correlation id already read: device work is linked to the first call with that id", r.link.dupCalls)})
	}
	if len(items) == 0 {
		return
	}
	g := a.Gap(capture.InconsistentTrace, "")
	for _, it := range items {
		g.Add(it)
	}
	g.Summary = "the trace contradicts itself (listed below): tally took the reading stated with each item; check the producer of this file."
}

func (r *reader) graphGap(a *capture.Accounting, st *replayStats) {
	if len(r.link.graphs) == 0 {
		return
	}
	g := a.Gap(capture.GraphLaunch, "")
	g.Count = int64(len(r.link.graphs))
	minK, maxK, empty := int64(-1), int64(0), int64(0)
	list := make([]*graphRec, 0, len(r.link.graphs))
	for _, gr := range r.link.graphs {
		list = append(list, gr)
		if gr.kernels == 0 {
			empty++
		}
		if minK < 0 || gr.kernels < minK {
			minK = gr.kernels
		}
		maxK = max(maxK, gr.kernels)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].rt.corr < list[j].rt.corr })
	for _, gr := range list {
		g.Items = append(g.Items, capture.Item{What: fmt.Sprintf("%s (correlation %d) replayed %s, %s", r.calls[gr.rt.call].name, gr.rt.corr, units.Plural(gr.kernels, "device event", "device events"), ns(gr.ns))})
		if len(g.Items) == capture.MaxItems {
			break
		}
	}
	g.ItemsOmitted = g.Count - int64(len(g.Items))
	g.SetFigure("device_events", st.graphEvents)
	g.SetFigure("device_ns", st.graphNS)
	g.SetFigure("events_per_launch_min", minK)
	g.SetFigure("events_per_launch_max", maxK)
	if empty > 0 {
		g.SetFigure("launches_without_device_events", empty)
	}
	share := ""
	if st.totalNS > 0 {
		share = fmt.Sprintf(", %.1f%% of device time", 100*float64(st.graphNS)/float64(st.totalNS))
	}
	ops := "but per-op attribution is unavailable for them, since every replayed kernel carries the launch's correlation id"
	if r.ops != nil {
		ops = "and each is attributed to the host op around its launch (the op table's graph_launches); the ops inside the graph are not recorded, since every replayed kernel carries the launch's correlation id"
	}
	g.Summary = fmt.Sprintf("%s replayed %d device events (%d–%d per launch; %s%s): they are in the tables, linked to their launch call, %s.",
		units.Plural(g.Count, "graph launch", "graph launches"), st.graphEvents, minK, maxK, ns(st.graphNS), share, ops)
}
