package timeline

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tallyprof/tally/capture"
	"google.golang.org/protobuf/encoding/protowire"
)

// Track-level requirements of outputs.md (a), checked on the descriptors
// as written: plain tracks only (no process/thread descriptors, which trace
// processor merges by pid across ranks), sibling merging off on every
// track, unique names, explicit child ordering on every parent and a
// distinct sibling_order_rank on every child, non-zero uuids.
func TestPerfettoTrackDescriptorsAsSpecified(t *testing.T) {
	data, _, _ := writeSynthetic(t, Perfetto)
	type desc struct {
		name                     string
		parent, merge, ordering  uint64
		rank                     uint64
		hasRank, process, thread bool
	}
	tracks := map[uint64]*desc{}
	rest := data
	for len(rest) > 0 {
		_, _, l := protowire.ConsumeTag(rest)
		rest = rest[l:]
		pkt, l := protowire.ConsumeBytes(rest)
		rest = rest[l:]
		fields(t, pkt, func(f fieldNum, _ uint64, b []byte) {
			if f != fPacketTrackDesc {
				return
			}
			d := &desc{}
			var uuid uint64
			fields(t, b, func(f fieldNum, v uint64, b []byte) {
				switch f {
				case fTrackUUID:
					uuid = v
				case fTrackName:
					d.name = string(b)
				case fTrackParent:
					d.parent = v
				case fTrackMerge:
					d.merge = v
				case fTrackChildOrdering:
					d.ordering = v
				case fTrackOrderRank:
					d.rank, d.hasRank = v, true
				case 3:
					d.process = true // TrackDescriptor.process
				case 4:
					d.thread = true // TrackDescriptor.thread
				}
			})
			if uuid == 0 || tracks[uuid] != nil {
				t.Fatalf("got track uuid %d zero or declared twice, want a new nonzero uuid", uuid)
			}
			tracks[uuid] = d
		})
	}
	names := map[string]bool{}
	ranks := map[string]bool{}
	for uuid, d := range tracks {
		if d.merge != siblingMergeNone {
			t.Errorf("track %q: sibling_merge_behavior %d, want NONE (2)", d.name, d.merge)
		}
		if d.process || d.thread {
			t.Errorf("track %q: got a process/thread descriptor, want none", d.name)
		}
		if names[d.name] {
			t.Errorf("got track name %q twice, want each once", d.name)
		}
		names[d.name] = true
		if d.parent == 0 {
			continue
		}
		p := tracks[d.parent]
		if p == nil {
			t.Errorf("track %q: got parent %d not declared before it, want the parent first", d.name, d.parent)
			continue
		}
		if p.ordering != childOrderingExplicit {
			t.Errorf("parent %q of %q: child_ordering %d, want EXPLICIT (3)", p.name, d.name, p.ordering)
		}
		key := fmt.Sprintf("%d/%d", d.parent, d.rank)
		if !d.hasRank || ranks[key] {
			t.Errorf("track %q (%d): got sibling_order_rank missing or shared with a sibling, want its own", d.name, uuid)
		}
		ranks[key] = true
	}
	for _, want := range []string{"tally · accounting · whole run", "rank 0", "rank 1", "rank 0 · GPU 0 · stream 7", "rank 1 · GPU 0 · stream 7", "tally · accounting · rank-all.json"} {
		if !names[want] {
			t.Errorf("no track %q in %v", want, names)
		}
	}
}

// What both formats must carry (outputs.md (a), (b); docs/timeline.md):
// the accounting track's capture start/end and per-gap instants, the
// verdict, time base, clock and gap counts in the metadata, and each
// slice's device and queue.
func TestAccountingAndMetadataAsSpecified(t *testing.T) {
	for _, f := range []Format{Perfetto, Chrome} {
		t.Run(f.String(), func(t *testing.T) {
			data, _, c := writeSynthetic(t, f)
			d := decode(t, f, data)
			acct := map[string]bool{}
			for _, in := range d.instants {
				if strings.HasPrefix(d.tracks[in.track], "tally · accounting · ") {
					acct[in.name] = true
				}
			}
			for _, g := range c.Accounting.Gaps {
				if want := fmt.Sprintf("%s: %d", g.Kind, g.Count); !acct[want] {
					t.Errorf("no %q instant on the accounting track: %v", want, acct)
				}
			}
			for _, want := range []string{"capture start", "capture end"} {
				if !acct[want] {
					t.Errorf("no %q instant", want)
				}
			}
			verdict, _ := d.meta["tally_verdict"].(string)
			input, _ := d.meta["tally_input_0"].(string)
			if !strings.HasPrefix(verdict, "incomplete") || d.meta["tally_time_base"] == nil ||
				!strings.Contains(input, "clock: ns, monotonic") || d.meta["tally_gap_unfinished_dispatch"] == nil {
				t.Errorf("got metadata %v, want an incomplete verdict, a time base, the input's clock and the unfinished_dispatch gap", d.meta)
			}
			for _, s := range d.slices {
				if s.cat != "unfinished" && (s.args["device"] != "GPU 0" || s.args["queue"] != "stream 7") {
					t.Errorf("slice %q on %s: got device %v queue %v, want GPU 0 and stream 7", s.name, d.tracks[s.track], s.args["device"], s.args["queue"])
				}
			}
		})
	}
}

// Chrome JSON (outputs.md (b)): object form with displayTimeUnit, every
// process named and sort-indexed, every thread used named and
// sort-indexed, one (pid, tid) per track, instants thread-scoped, only X,
// i, flow (s, f) and M phases — never B/E —, valid UTF-8 whatever the names hold.
func TestChromeMetadataEventsAsSpecified(t *testing.T) {
	c, ds := synthetic()
	c.Kernels[0].Name = "rms\xffnorm" // invalid UTF-8 from a reader
	data := writeDispatches(t, Chrome, c, ds)
	if !utf8.Valid(data) {
		t.Fatal("got output that is not valid UTF-8, want valid UTF-8")
	}
	var doc struct {
		DisplayTimeUnit *string `json:"displayTimeUnit"`
		TraceEvents     []struct {
			Ph   string         `json:"ph"`
			Name string         `json:"name"`
			Pid  int            `json:"pid"`
			Tid  int            `json:"tid"`
			S    string         `json:"s"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
		OtherData map[string]any `json:"otherData"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.DisplayTimeUnit == nil || *doc.DisplayTimeUnit != "ns" || doc.OtherData == nil {
		t.Fatalf("got displayTimeUnit %v, otherData %v; want \"ns\" and true", doc.DisplayTimeUnit, doc.OtherData != nil)
	}
	meta := map[string]map[string]bool{} // pid or pid/tid -> M names
	mark := func(key, name string) {
		if meta[key] == nil {
			meta[key] = map[string]bool{}
		}
		meta[key][name] = true
	}
	threadOf := map[string]string{} // thread name -> pid/tid
	used := map[string]bool{}
	for _, e := range doc.TraceEvents {
		th := fmt.Sprintf("%d/%d", e.Pid, e.Tid)
		switch e.Ph {
		case "M":
			switch e.Name {
			case "process_name", "process_sort_index", "process_labels":
				mark(fmt.Sprint(e.Pid), e.Name)
			case "thread_name":
				mark(th, e.Name)
				name := e.Args["name"].(string)
				if other, dup := threadOf[name]; dup && other != th {
					t.Errorf("got thread %q on two tids, want one", name)
				}
				threadOf[name] = th
			case "thread_sort_index":
				mark(th, e.Name)
			default:
				t.Errorf("got metadata event %q, want only process/thread name and sort index", e.Name)
			}
		case "X":
			used[th] = true
		case "i":
			used[th] = true
			if e.S != "t" {
				t.Errorf("instant %q with scope %q, want t", e.Name, e.S)
			}
		case "s", "f":
			used[th] = true // launch → dispatch arrows (bound: decodeChrome)
		default:
			t.Errorf("got phase %q, want only X, i, s, f and M", e.Ph)
		}
	}
	for th := range used {
		pid := strings.SplitN(th, "/", 2)[0]
		if !meta[pid]["process_name"] || !meta[pid]["process_sort_index"] {
			t.Errorf("process %s: got metadata %v, want process_name and process_sort_index", pid, meta[pid])
		}
		if !meta[th]["thread_name"] || !meta[th]["thread_sort_index"] {
			t.Errorf("thread %s: got metadata %v, want thread_name and thread_sort_index", th, meta[th])
		}
	}
	if len(threadOf) < 6 {
		t.Errorf("got %d threads %v, want at least 6", len(threadOf), threadOf)
	}
}

// A kernel replayed by a graph launch is category graph_kernel (outputs.md
// (a)); a copy stays a copy.
func TestGraphKernelCategory(t *testing.T) {
	for _, f := range []Format{Perfetto, Chrome} {
		c, ds := synthetic()
		ds[3].Link = capture.LinkGraph
		d := decode(t, f, writeDispatches(t, f, c, ds))
		cats := map[string]int{}
		for _, s := range d.slices {
			cats[s.cat]++
		}
		if cats["graph_kernel"] != 1 || cats["kernel"] != 5 {
			t.Errorf("%s: got categories %v, want graph_kernel 1 and kernel 5", f, cats)
		}
	}
}

// Launch → dispatch links (outputs.md (a)): a dispatch with a recorded
// launch gets a launch slice on its rank's "launches" track whose BEGIN
// starts a flow that the dispatch's BEGIN terminates (Chrome: s and f
// events bound to the slices, bp "e").
func TestLaunchFlowsToItsDispatch(t *testing.T) {
	for _, f := range []Format{Perfetto, Chrome} {
		data, _, _ := writeSynthetic(t, f)
		d := decode(t, f, data) // checkFlows: every flow starts on a launch and ends on one dispatch
		if len(d.launches) != 1 {
			t.Fatalf("%s: %d launch slices, want 1", f, len(d.launches))
		}
		l := d.launches[0]
		if d.tracks[l.track] != "rank 0 · launches" || l.end-l.begin != 50 || l.args["kernel"] != "rms_norm" {
			t.Errorf("%s: got launch %+v on %q, want rms_norm, 50 long, on \"rank 0 · launches\"", f, l, d.tracks[l.track])
		}
		var target *dslice
		for i := range d.slices {
			if d.slices[i].flowIn == l.flowOut {
				target = &d.slices[i]
			}
		}
		if target == nil || target.name != "rms_norm" || target.end-target.begin != 1000 {
			t.Errorf("%s: got the launch's flow ending on %+v, want the 1000 ns rms_norm slice", f, target)
		}
	}
}

// Launches that fit none of their track's lanes are not drawn and counted
// apart: never misnested, never in the verdict (every dispatch is drawn).
func TestLaunchesBeyondTheLanesAreCounted(t *testing.T) {
	c, launched := oneKernel("monotonic")
	var ds []capture.Dispatch
	for i := range int64(maxLanes + 8) {
		// Each launch begins inside the previous one and outlasts it.
		ds = append(ds, launched(i, 10*i, 1000+10*i, 5000+100*i, 5050+100*i))
	}
	for _, f := range []Format{Perfetto, Chrome} {
		data, w := writeWith(t, f, c, ds)
		st := w.Stats()
		d := decode(t, f, data)
		if st.Launches != maxLanes || st.LaunchesNotDrawn != 8 || st.Misnested != 0 || len(d.launches) != maxLanes || len(d.slices) != len(ds) {
			t.Errorf("%s: got %+v, %d launches decoded; want %d launches drawn and decoded, 8 not drawn, 0 misnested, %d slices", f, st, len(d.launches), maxLanes, len(ds))
		}
		if v := w.Verdict(); v != "complete" || d.meta["tally_launches_not_drawn"] == nil {
			t.Errorf("%s: got verdict %q, metadata %v; want complete and tally_launches_not_drawn", f, v, d.meta)
		}
	}
}

// A graph launch that replayed several kernels is one "graph launch" slice
// with one arrow (to the first kernel), not one identical slice per kernel.
func TestGraphLaunchDrawnOnce(t *testing.T) {
	c, ds := synthetic()
	iv := capture.Interval{Begin: 500, End: 600, Valid: true}
	for _, i := range []int{0, 1, 5} { // rms_norm dispatches of one replay
		ds[i].Link, ds[i].Launch = capture.LinkGraph, iv
	}
	for _, f := range []Format{Perfetto, Chrome} {
		d := decode(t, f, writeDispatches(t, f, c, ds))
		if len(d.launches) != 1 || d.launches[0].name != "graph launch" || d.launches[0].args["first_kernel"] != "rms_norm" {
			t.Errorf("%s: got launches %+v, want one \"graph launch\" with first_kernel rms_norm", f, d.launches)
		}
		flows := 0
		for _, s := range d.slices {
			if s.flowIn != 0 {
				flows++
			}
		}
		if flows != 1 {
			t.Errorf("%s: %d dispatches end a flow, want 1", f, flows)
		}
	}
}

// A launch before Chrome's time base is not drawn, and counted as
// launches_not_drawn (docs/timeline.md), like one that fits no lane: its
// dispatch is drawn whole, but the file holds one arrow fewer.
func TestLaunchBeforeTheBaseIsCounted(t *testing.T) {
	c, launched := oneKernel("unix-epoch")
	const t0, hour = int64(1764547200_000_000_000), int64(3600_000_000_000)
	ds := []capture.Dispatch{
		launched(0, t0-100, t0-50, t0, t0+10),
		// Launched three hours before its dispatch ran: before the base.
		launched(1, t0-3*hour, t0-3*hour+50, t0+20, t0+30),
	}
	_, w := writeWith(t, Chrome, c, ds)
	if st := w.Stats(); st.Slices != 2 || st.Launches != 1 || st.LaunchesNotDrawn != 1 {
		t.Errorf("%+v: want 2 slices, 1 launch drawn, 1 not drawn", st)
	}
}

// oneKernel is a capture on a ns clock of domain with one program, queue
// and kernel; launched(i, …) is its dispatch i, launched over [lb, le)
// and run over [db, de).
func oneKernel(domain string) (*capture.Capture, func(i, lb, le, db, de int64) capture.Dispatch) {
	c := &capture.Capture{Clock: capture.Clock{Domain: domain, Unit: "ns", Timed: true}}
	p := c.AddProgram(capture.Program{Name: "p", Instances: 1})
	q := c.AddQueue(capture.Queue{Name: "stream 1", Device: "GPU 0", Rank: "0"})
	k := c.AddKernel(capture.Kernel{Program: p, Name: "k", Resolved: true, Category: "kernel"})
	return c, func(i, lb, le, db, de int64) capture.Dispatch {
		return capture.Dispatch{Program: p, Queue: q, Kernel: k, Instance: 0, Index: i, Ordinal: -1, Link: capture.LinkLaunched,
			Launch: capture.Interval{Begin: lb, End: le, Valid: true}, Device: capture.Interval{Begin: db, End: de, Valid: true}}
	}
}
