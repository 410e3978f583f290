package htmlreport

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/render"
)

// timelineSection is the page's timeline: one group per clock (programs
// on different clocks are never drawn on one axis), in each group one block
// per rank and one strip per queue.
type timelineSection struct {
	// Why there is no timeline, when there is none.
	Absent     string
	Groups     []timelineGroup
	Untimed    int64
	Aggregated int64
}

type timelineGroup struct {
	Clock string
	Start string
	Span  string
	// Unfinished marks the launch times of unfinished dispatches (only in
	// the group on the capture's own clock, which their times are in).
	Unfinished []mark
	// Unplaced counts unfinished dispatches without a launch time.
	Unplaced int64
	Ranks    []rankBlock
}

type rankBlock struct {
	Rank   string
	Strips []strip
}

type strip struct {
	Name   string
	Seen   int64
	Kept   int64
	Capped bool
	Rects  []rect
}

type rect struct {
	X, W string
	K    int // index into pageData.Kernels
	Fill string
}

type mark struct {
	X     string
	Label string
}

// viewWidth is the SVG's user-space width; strips stretch to the page.
const viewWidth = 1000.0

// markWidth is an unfinished dispatch's mark, in the same units.
const markWidth = 4.0

func timeline(c *capture.Capture, t *Timeline, names *[]string) timelineSection {
	var sec timelineSection
	if t == nil {
		sec.Absent = "no dispatch sample was collected for this report"
		return sec
	}
	sec.Untimed, sec.Aggregated = t.untimed, t.aggregated
	if len(t.samples) == 0 {
		sec.Absent = "no dispatch carries a device time, so there is nothing to place on a time axis"
		return sec
	}
	kidx := map[capture.KernelID]int{}
	nameOf := func(k capture.KernelID) int {
		if i, ok := kidx[k]; ok {
			return i
		}
		i := len(*names)
		name := fmt.Sprintf("#%d", k)
		if int(k) >= 0 && int(k) < len(c.Kernels) {
			name = c.Kernels[k].Name
		}
		*names = append(*names, safetext.Escape(name)) // the script shows it as text (escape.go)
		kidx[k] = i
		return i
	}
	type key struct{ domain, unit, desc string }
	clockOf := func(p capture.ProgramID) key {
		k := c.ProgramClock(p)
		return key{k.Domain, k.Unit, k.Description}
	}
	var order []key
	groups := map[key][]sample{}
	for _, s := range t.samples {
		k := clockOf(s.program)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], s)
	}
	own := key{c.Clock.Domain, c.Clock.Unit, c.Clock.Description}
	for _, k := range order {
		ss := groups[k]
		lo, hi := ss[0].begin, ss[0].end
		for _, s := range ss {
			lo, hi = min(lo, s.begin), max(hi, s.end)
		}
		var unfinished []capture.Item
		var unplaced int64
		if k == own {
			for _, g := range c.Accounting.Gaps {
				if g.Kind != capture.UnfinishedDispatch {
					continue
				}
				unplaced = capture.SatAdd(unplaced, g.ItemsOmitted)
				for _, it := range g.Items {
					if it.Time == nil {
						unplaced = capture.SatAdd(unplaced, 1)
						continue
					}
					unfinished = append(unfinished, it)
					lo, hi = min(lo, *it.Time), max(hi, *it.Time)
				}
			}
		}
		span := hi - lo
		x := func(v int64) float64 {
			if span <= 0 {
				return 0
			}
			return float64(v-lo) / float64(span) * viewWidth
		}
		unit := k.unit
		grp := timelineGroup{Clock: render.ClockLine(c.ProgramClock(ss[0].program)), Start: render.Duration(lo, unit),
			Span: render.Duration(span, unit), Unplaced: unplaced}
		for _, it := range unfinished {
			label := fmt.Sprintf("unfinished: %s launched at %d %s", it.Kernel, *it.Time, unitName(unit))
			if it.LastCompleted != "" {
				label += "; last completed before it: " + it.LastCompleted
			}
			// Kept inside the strip: a launch at the very end still shows.
			grp.Unfinished = append(grp.Unfinished, mark{X: num(min(x(*it.Time), viewWidth-markWidth)), Label: label})
		}
		strips := map[capture.QueueID]*strip{}
		var queues []capture.QueueID
		for _, s := range ss {
			st := strips[s.queue]
			if st == nil {
				qc := t.queues[s.queue]
				st = &strip{Name: queueName(c, s.queue), Seen: qc.seen, Kept: qc.kept, Capped: qc.kept < qc.seen}
				strips[s.queue] = st
				queues = append(queues, s.queue)
			}
			w := max(x(s.end)-x(s.begin), 0.2) // a dispatch shorter than a pixel stays visible
			ki := nameOf(s.kernel)
			st.Rects = append(st.Rects, rect{X: num(x(s.begin)), W: num(w), K: ki, Fill: fill((*names)[ki])})
		}
		sort.SliceStable(queues, func(i, j int) bool {
			ri, rj := c.QueueRank(queues[i]), c.QueueRank(queues[j])
			if ri != rj {
				return ri < rj
			}
			return queues[i] < queues[j]
		})
		for _, q := range queues {
			r := c.QueueRank(q)
			if n := len(grp.Ranks); n == 0 || grp.Ranks[n-1].Rank != r {
				grp.Ranks = append(grp.Ranks, rankBlock{Rank: r})
			}
			b := &grp.Ranks[len(grp.Ranks)-1]
			b.Strips = append(b.Strips, *strips[q])
		}
		sec.Groups = append(sec.Groups, grp)
	}
	return sec
}

func queueName(c *capture.Capture, q capture.QueueID) string {
	if q == capture.NoQueue || int(q) < 0 || int(q) >= len(c.Queues) {
		return "(no queue recorded)"
	}
	name := c.Queues[q].Name
	if d := c.Queues[q].Device; d != "" {
		name += " on " + d
	}
	return name
}

// fill colours a kernel by its name: the same in every strip, and in
// every input's block of a page of many (where ids differ per input).
func fill(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("hsl(%d,55%%,52%%)", h.Sum32()%360)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
