package timeline

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
	"github.com/tallyprof/tally/render"
)

// unfinishedPrefix marks an unfinished dispatch's slice, so it is visible at
// a glance that it did not end where it is drawn to end. A prefix, not the
// suffix outputs.md suggests: viewers cut long kernel names at the end.
const unfinishedPrefix = "UNFINISHED "

// Finish draws what the input's accounting holds, once its reader is done:
// each unfinished dispatch as a slice from its launch to the capture's end,
// each gap as instant events on the input's accounting track, and what the
// timeline could not draw. c is the capture the reader returned.
func (in *Sink) Finish(c *capture.Capture) {
	w := in.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if in.finished || c == nil {
		return
	}
	in.finished = true
	in.c = c
	// Gap times (launches of unfinished dispatches) extend the capture.
	for _, g := range c.Accounting.Gaps {
		for _, it := range g.Items {
			if it.Time != nil {
				in.see(*it.Time, *it.Time)
			}
		}
	}
	if in.group == nil {
		in.group = in.groupFor(c.Source.Rank)
	}
	in.acct = w.newTrack(in.group, "tally · accounting · "+filepath.Base(in.name),
		"clock: "+clockText(c.Clock)+"; input "+in.name, fmt.Sprintf("in%d/accounting", in.idx))
	in.drawUnfinished(c)
	in.drawGaps(c)
}

func clockText(k capture.Clock) string {
	if k.Description != "" {
		return k.Description
	}
	if !k.Timed {
		return "untimed"
	}
	return k.Domain + " " + k.Unit
}

// drawUnfinished draws each unfinished dispatch with a launch time on its
// queue's track when the reader knew the queue, else on the input's
// "unfinished dispatches" track. Lanes place slices in begin order, and the
// gaps list theirs per program, so the items are drawn sorted by launch.
func (in *Sink) drawUnfinished(c *capture.Capture) {
	w := in.w
	var items []*capture.Item
	for _, g := range c.Accounting.Gaps {
		if g.Kind != capture.UnfinishedDispatch {
			continue
		}
		for i := range g.Items {
			it := &g.Items[i]
			if it.Time == nil || !w.representable(*it.Time) {
				continue // counted on the accounting track
			}
			items = append(items, it)
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return *items[i].Time < *items[j].Time })
	for _, it := range items {
		b, e := *it.Time, in.end
		t := in.place(in.unfinishedLanes(c, it.Queue), b, e)
		args := w.enc.args()
		args = append(args,
			arg{key: "unfinished", b: true, isBool: true},
			arg{key: "end", s: "not observed; capture ended"},
			arg{key: "program", s: it.Program},
			arg{key: "launch", i: b, isInt: true},
			arg{key: "position", s: it.Where},
			arg{key: "last_completed", s: it.LastCompleted},
			arg{key: "what", s: it.What})
		name := it.Kernel
		if name == "" {
			name = "(kernel not recorded)"
		}
		w.enc.slice(t, unfinishedPrefix+name, "unfinished", b-w.base, e-w.base, args, 0, 0)
		in.unfinDraw++
		w.stats.Unfinished++
	}
}

// unfinishedLanes is the queue's lanes, or, the queue unknown, the input's
// own track for unfinished dispatches.
func (in *Sink) unfinishedLanes(c *capture.Capture, q *capture.QueueID) *queueLanes {
	if q != nil && *q >= 0 && int(*q) < len(c.Queues) {
		return in.queue(c, *q)
	}
	if in.unfin == nil {
		in.unfin = &queueLanes{parent: in.group, name: in.group.name + " · unfinished dispatches · " + filepath.Base(in.name),
			key: fmt.Sprintf("in%d/unfinished", in.idx)}
	}
	return in.unfin
}

// drawGaps writes a "capture start" and a "capture end" instant, one instant
// per gap (its count and summary) at the capture's end, and one per gap item
// that has a time, at that time.
func (in *Sink) drawGaps(c *capture.Capture) {
	w := in.w
	start, end := in.start, in.end
	if !in.timed || !w.representable(start) {
		start, end = w.base, w.base
	}
	args := w.enc.args()
	args = append(args, arg{key: "input", s: in.name}, arg{key: "format", s: c.Source.Format}, arg{key: "clock", s: clockText(c.Clock)})
	w.instant(in.acct, "capture start", "tally", start, args)

	for _, g := range c.Accounting.Gaps {
		if g.Count == 0 {
			continue
		}
		cat := "gap"
		if g.Note {
			cat = "note"
		}
		args := w.enc.args()
		args = append(args, arg{key: "kind", s: string(g.Kind)}, arg{key: "count", i: g.Count, isInt: true},
			arg{key: "summary", s: g.Summary})
		if g.Program != "" {
			args = append(args, arg{key: "program", s: g.Program})
		}
		if g.ItemsOmitted > 0 {
			args = append(args, arg{key: "items_omitted", i: g.ItemsOmitted, isInt: true})
		}
		for _, f := range g.Figures {
			args = append(args, arg{key: f.Name, i: f.Count, isInt: true})
		}
		w.instant(in.acct, fmt.Sprintf("%s: %d", g.Kind, g.Count), cat, end, args)
		for _, it := range g.Items {
			if it.Time == nil || !w.representable(*it.Time) {
				continue
			}
			args := w.enc.args()
			args = append(args, arg{key: "kind", s: string(g.Kind)}, arg{key: "what", s: it.What})
			for _, kv := range [][2]string{{"where", it.Where}, {"program", it.Program}, {"kernel", it.Kernel}, {"queue", queueName(c, it.Queue)}, {"last_completed", it.LastCompleted}} {
				if kv[1] != "" {
					args = append(args, arg{key: kv[0], s: kv[1]})
				}
			}
			w.instant(in.acct, string(g.Kind), cat, *it.Time, args)
		}
	}

	args = w.enc.args()
	args = append(args, arg{key: "verdict", s: in.verdict()},
		arg{key: "slices", i: in.slices, isInt: true},
		arg{key: "unfinished_drawn", i: in.unfinDraw, isInt: true})
	for _, n := range in.notDrawn() {
		args = append(args, arg{key: n.Name, i: n.Count, isInt: true})
	}
	w.instant(in.acct, "capture end", "tally", end, args)
}

// notDrawn lists what the timeline holds less of than the capture.
func (in *Sink) notDrawn() []capture.Count {
	var out []capture.Count
	add := func(name string, n int64) {
		if n > 0 {
			out = append(out, capture.Count{Name: name, Count: n})
		}
	}
	add("not_drawn_untimed", in.untimed)
	add("not_drawn_aggregated", in.agg)
	add("not_drawn_before_base", in.negative)
	add("overlap_lanes", in.extra)
	add("launches_not_drawn", in.launchesNotDrawn)
	add("misnested", in.misnested)
	if in.c != nil {
		if g := in.c.Accounting.Find(capture.UnfinishedDispatch); g != nil {
			add("unfinished_not_drawn", in.c.Accounting.CountOf(capture.UnfinishedDispatch)-in.unfinDraw)
		}
	}
	return out
}

// missing is what of notDrawn leaves dispatches out of the timeline
// (overlap_lanes and launches_not_drawn are layout only: every dispatch
// is drawn).
func (in *Sink) missing() []capture.Count {
	var out []capture.Count
	for _, nd := range in.notDrawn() {
		if nd.Name != "overlap_lanes" && nd.Name != "launches_not_drawn" {
			out = append(out, nd)
		}
	}
	return out
}

// kinds names what makes this input incomplete: its capture's gap kinds
// (render.GapKinds) and what the timeline did not draw.
func (in *Sink) kinds() []string {
	var out []string
	if in.c != nil && !in.c.Accounting.Complete() {
		for _, k := range render.GapKinds(in.c) {
			out = append(out, string(k))
		}
	}
	for _, nd := range in.missing() {
		out = append(out, nd.Name)
	}
	return out
}

// verdict is "complete" or why not, for this input.
func (in *Sink) verdict() string {
	var why []string
	if in.c != nil && !in.c.Accounting.Complete() {
		n := 0
		for _, g := range in.c.Accounting.Gaps {
			if !g.Note && g.Count > 0 {
				n++
			}
		}
		why = append(why, fmt.Sprintf("%d gap kinds", n))
		if cl := render.AffectedClause(in.c); cl != "" {
			why = append(why, cl)
		}
	}
	for _, nd := range in.missing() {
		why = append(why, fmt.Sprintf("%s %d", nd.Name, nd.Count))
	}
	if len(why) == 0 {
		if in.c != nil && in.c.Accounting.CutUnit != "" {
			return "complete up to the last " + in.c.Accounting.CutUnit + " (no end marker)"
		}
		return "complete"
	}
	return "incomplete: " + strings.Join(why, ", ")
}

func (w *Writer) instant(t *track, name, cat string, ts int64, args []arg) {
	w.enc.instant(t, name, cat, ts-w.base, args)
	w.stats.Instants++
}

// Verdict is the whole file's: complete only when every input read, every
// input's accounting is complete and everything was drawn.
func (w *Writer) Verdict() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.verdict(false)
}

// named adds to the inputs found incomplete the kinds that made them so
// (render.NamedKinds), each once: the command's line says why, as the
// report's verdict does; the file's metadata lists them per input.
func (w *Writer) verdict(named bool) string {
	var why []string
	if len(w.failures) > 0 {
		why = append(why, units.Plural(int64(len(w.failures)), "input failed", "inputs failed"))
	}
	n := 0
	var kinds []string
	for _, in := range w.inputs {
		if in.finished && !strings.HasPrefix(in.verdict(), "complete") {
			n++
			for _, k := range in.kinds() {
				if !slices.Contains(kinds, k) {
					kinds = append(kinds, k)
				}
			}
		}
	}
	if n > 0 {
		s := units.Plural(int64(n), "input incomplete", "inputs incomplete")
		if named && len(kinds) > 0 {
			s += " " + render.NamedKinds(kinds)
		}
		why = append(why, s)
	}
	if len(w.inputs) == 0 && len(w.failures) == 0 {
		why = append(why, "no input")
	}
	for _, g := range w.collGaps {
		why = append(why, "collectives: "+g.kind)
	}
	seen := map[string]bool{}
	for _, g := range w.runGaps {
		if !g.note && !seen[g.kind] {
			seen[g.kind] = true
			why = append(why, g.kind)
		}
	}
	if len(why) == 0 {
		return "complete"
	}
	return "incomplete: " + strings.Join(why, "; ")
}

// Close draws the whole run's accounting (failed inputs, verdict), writes
// the metadata and the file's end, and flushes. It returns the first write
// error. Inputs not yet finished are finished without a capture.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("timeline: closed twice")
	}
	w.closed = true
	at := w.base
	first := true
	for _, in := range w.inputs {
		if in.timed && (first || in.start < at) && w.representable(in.start) {
			at, first = in.start, false
		}
	}
	for _, f := range slices.Concat(w.failures, w.runGaps, w.skipped, w.collGaps, w.collNotes) {
		cat, what := "gap", "error"
		switch {
		case f.kind == "skipped_file":
			cat, what = "note", "reason"
		case f.note && f.name == "":
			cat, what = "note", "what"
		case f.note:
			cat = "note"
		case f.name == "collectives":
			what = "what"
		}
		args := w.enc.args()
		args = append(args, arg{key: "kind", s: f.kind}, arg{key: "input", s: f.name}, arg{key: what, s: f.msg})
		label := f.kind
		if f.name != "" {
			label += ": " + filepath.Base(f.name)
		}
		w.instant(w.whole, label, cat, at, args)
	}
	verdict := w.verdict(false)
	meta := []arg{
		{key: "tally_verdict", s: verdict},
		{key: "tally_inputs", i: int64(len(w.inputs)), isInt: true},
		{key: "tally_failed_inputs", i: int64(len(w.failures)), isInt: true},
		{key: "tally_skipped_files", i: int64(len(w.skipped)), isInt: true},
		{key: "tally_slices", i: w.stats.Slices, isInt: true},
		{key: "tally_unfinished", i: w.stats.Unfinished, isInt: true},
		{key: "tally_launches", i: w.stats.Launches, isInt: true},
		{key: "tally_launches_not_drawn", i: w.stats.LaunchesNotDrawn, isInt: true},
		{key: "tally_not_drawn_untimed", i: w.stats.Untimed, isInt: true},
		{key: "tally_not_drawn_aggregated", i: w.stats.Aggregated, isInt: true},
		{key: "tally_not_drawn_before_base", i: w.stats.Negative, isInt: true},
		{key: "tally_misnested", i: w.stats.Misnested, isInt: true},
		{key: "tally_collectives", i: w.stats.Collectives, isInt: true},
		{key: "tally_time_base", i: w.base, isInt: true},
	}
	gaps := map[capture.Kind]int64{}
	var kinds []capture.Kind
	for i, in := range w.inputs {
		if !in.finished {
			continue
		}
		meta = append(meta, arg{key: fmt.Sprintf("tally_input_%d", i), s: in.name + " (" + in.c.Source.Format + "): " + in.verdict() + "; clock: " + clockText(in.c.Clock)})
		for _, g := range in.c.Accounting.Gaps {
			if _, ok := gaps[g.Kind]; !ok {
				kinds = append(kinds, g.Kind)
			}
			gaps[g.Kind] = capture.SatAdd(gaps[g.Kind], g.Count)
		}
	}
	for _, k := range kinds {
		meta = append(meta, arg{key: "tally_gap_" + string(k), i: gaps[k], isInt: true})
	}
	w.instant(w.whole, "verdict: "+verdict, "tally", at, meta)
	w.enc.finish(meta)
	return w.bw.Flush()
}
