package probereader

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/probefile"
	"github.com/tallyprof/tally/internal/units"
)

// finish states the clock and turns what the file says about its own
// losses into gaps.
func (rd *reader) finish() {
	c := &rd.c.Accounting
	wall := time.Unix(0, rd.hdr.WallUnixNs).UTC().Format(time.RFC3339Nano)
	rd.c.Clock = capture.Clock{
		Domain: "monotonic", Unit: "ns", Timed: true,
		Description: "ns on the recording process's monotonic clock, counted from the session's open (wall clock then: " + wall + "); begin and end are taken on the host around each dispatch",
	}
	events := rd.hdr.Families&probefile.FamilyDispatchEvents != 0
	summaries := rd.hdr.Families&probefile.FamilySummaries != 0

	if rd.cutAt >= 0 {
		g := c.Gap(capture.TruncatedInput, "")
		g.Summary = "the file ends inside a record: everything before it is used; the process was probably killed while the writer was writing"
		g.Add(capture.Item{What: "record cut", Where: fmt.Sprintf("byte %d", rd.cutAt)})
		rd.bytes.Lose(g, "cut record", rd.cutBytes, fmt.Sprintf("byte %d", rd.cutAt))
	}
	if !rd.ended {
		g := c.Gap(capture.UnfinalizedCapture, "")
		g.Summary = "the session was never closed (the process was killed or crashed, or is still running): dispatches that ended after the last drain — at most one threshold's worth per queue — are not in the file, and the dispatches in flight at the last checkpoint are listed as unfinished"
		g.Add(capture.Item{What: "no end record"})
	}

	// Summed saturating: many queues each claiming maxCount would wrap.
	var dropped int64
	qs := rd.queueList()
	for _, q := range qs {
		if q.ck == nil {
			continue
		}
		dropped = capture.SatAdd(dropped, clampCount(q.ck))
		rd.unfinished(q)
	}
	if rd.ended && rd.end.dropped > dropped {
		dropped = rd.end.dropped
	}
	if dropped > 0 {
		g := c.Gap(capture.DroppedRecords, "")
		g.Summary = "dispatches the probe dropped because a queue's ring was full (the writer fell behind) or too many were in flight: they ran and are not in the tables. Raise RingSize or lower Threshold"
		for _, q := range qs {
			if n := clampCount(q.ck); n > 0 {
				g.Add(capture.Item{What: fmt.Sprintf("%d dispatches dropped", n), Where: "queue " + q.name})
			}
		}
		g.Count = dropped
		g.SetFigure("dropped_dispatches", g.Count)
	}
	if rd.ended && rd.end.flags&probefile.EndClosedBySignal != 0 {
		g := c.Gap(ClosedBySignal, "")
		g.Summary = "the session was closed by its SIGINT/SIGTERM handler: the run stopped there"
		g.Add(capture.Item{What: rd.note})
		// A note says how the session closed; the program stopped before its
		// own end, so the capture is not complete.
		g = c.Gap(capture.InterruptedRecording, "")
		g.Summary = "the program was stopped by a signal (its SIGINT/SIGTERM handler closed the session): the run did not reach its own end, so what it would have done next is not in the file; dispatches in flight are listed as unfinished, and nothing is called a device fault"
		g.Add(capture.Item{What: "stopped by " + signalOf(rd.note) + " (" + rd.note + ")"})
	}
	rd.empty(events, summaries)
	rd.inventory(qs)
}

// maxCount bounds counts taken from the file, so a corrupt one cannot
// overflow the accounting.
const maxCount = 1 << 53

func clamp(n uint64) int64 { return int64(min(n, maxCount)) }

func clampCount(ck *checkpoint) int64 {
	if ck == nil {
		return 0
	}
	return clamp(ck.dropped)
}

// unfinished lists the queue's dispatches in flight at its last checkpoint.
func (rd *reader) unfinished(q *queueState) {
	what := "in flight when the session closed: launched, never ended"
	if !rd.ended {
		what = fmt.Sprintf("in flight at the last checkpoint (%s), before the process ended without closing the session", units.NS(float64(q.ck.time)))
	}
	last := "none on its queue"
	if q.last.ok {
		k := rd.c.Kernels[q.last.kernel]
		last = fmt.Sprintf("%s %s on queue %s, ended at %d ns", rd.c.Programs[k.Program].Name, k.Name, q.name, q.last.end)
	}
	for _, f := range q.ck.inflight {
		kid, ok := rd.kernels[f.kernel]
		prog, kname := "", fmt.Sprintf("kernel #%d (undefined)", f.kernel)
		if ok {
			k := rd.c.Kernels[kid]
			prog, kname = rd.c.Programs[k.Program].Name, k.Name
		}
		g := rd.c.Accounting.Gap(capture.UnfinishedDispatch, prog)
		g.Summary = "dispatches that were begun and never ended (a hang, a fault, or the process was killed): not in the table, and not counted as short ones"
		g.Add(capture.Item{What: what, Program: prog, Kernel: kname, Queue: capture.QueueOf(q.id), Time: capture.TimeOf(f.begin), LastCompleted: last})
	}
}

// empty says loudly when the session recorded nothing of what it asked for.
func (rd *reader) empty(events, summaries bool) {
	var why string
	switch {
	case events && rd.recordsByType[probefile.TypeEvents] == 0:
		why = "the session asked for dispatch events and the file holds none"
		if rd.ended {
			why += fmt.Sprintf(": %d launches, %d recorded, %d dropped, %d still in flight at close", rd.end.launches, rd.end.recorded, rd.end.dropped, rd.end.inFlight)
		} else {
			why += " (and it was never closed: they may have been lost with the process)"
		}
	case !events && summaries && rd.summaryRecords == 0:
		why = "the session asked for windowed summaries and none was written"
		if rd.ended {
			why += fmt.Sprintf(": %d launches, no summary written (window %d)", rd.end.launches, rd.hdr.Window)
		}
	case !events && !summaries:
		why = "the session asked for no data family (neither dispatch events nor summaries)"
	default:
		// With dispatch events, summaries add nothing to the tables.
		if rd.dispatches > 0 || (!events && rd.summaryRecords > 0) {
			return
		}
		why = "the file holds no dispatch: every event was skipped"
	}
	g := rd.c.Accounting.Gap(capture.EmptyCapture, "")
	g.Summary = why + ". Check that every Begin has its End on a queue of this session and that the program reached its first dispatch"
	g.Add(capture.Item{What: why, Where: rd.path})
}

func (rd *reader) queueList() []*queueState {
	qs := make([]*queueState, 0, len(rd.queues))
	for _, q := range rd.queues {
		qs = append(qs, q)
	}
	sort.Slice(qs, func(i, j int) bool { return qs[i].id < qs[j].id })
	return qs
}

func (rd *reader) inventory(qs []*queueState) {
	s := capture.Section{Title: "probe file"}
	s.Add("version", fmt.Sprintf("%d.%d", rd.hdr.Major, rd.hdr.Minor))
	var fams []string
	if rd.hdr.Families&probefile.FamilyDispatchEvents != 0 {
		fams = append(fams, "dispatch events")
	}
	if rd.hdr.Families&probefile.FamilySummaries != 0 {
		fams = append(fams, fmt.Sprintf("summaries (window %d)", rd.hdr.Window))
	}
	s.Add("families", strings.Join(fams, ", "))
	s.Add("opened", time.Unix(0, rd.hdr.WallUnixNs).UTC().Format(time.RFC3339Nano))
	for t := byte(probefile.TypeProgram); t <= probefile.TypeEnd; t++ {
		s.Add(probefile.TypeName(t)+" records", rd.recordsByType[t])
	}
	s.Add("closed", rd.ended)
	if rd.ended {
		s.Add("launches", rd.end.launches)
		s.Add("recorded", rd.end.recorded)
		s.Add("dropped", rd.end.dropped)
		s.Add("in flight at close", rd.end.inFlight)
		s.Add("summaries", rd.end.summaries)
		s.Add("layer dumps not written", rd.end.layers)
	}
	if rd.note != "" {
		s.Add("note", rd.note)
	}
	rd.c.Inventory = append(rd.c.Inventory, s)
	for _, q := range qs {
		qs := capture.Section{Title: "queue " + q.name}
		qs.Add("dispatch events", q.events)
		qs.Add("checkpoints", q.ckCount)
		if q.ck != nil {
			qs.Add("dropped", int64(q.ck.dropped))
			qs.Add("in flight at the last checkpoint", len(q.ck.inflight))
		}
		rd.c.Inventory = append(rd.c.Inventory, qs)
	}
}

// signalOf names the signal in the note the probe writes ("closed on
// signal terminated": Go's description of the signal).
func signalOf(note string) string {
	switch {
	case strings.HasSuffix(note, "signal interrupt"):
		return "SIGINT"
	case strings.HasSuffix(note, "signal terminated"):
		return "SIGTERM"
	}
	return "SIGINT or SIGTERM"
}
