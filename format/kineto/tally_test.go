package kineto

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// A file as tally export writes it (export/kineto.go), by hand: two
// programs of an hrx-like input, one with an init-list kernel, a launch
// with its flow, an unfinished-dispatch marker, tally's __metadata events,
// and a third program whose dispatches were not written as events.

const tallyBlockV2 = `{"schema":"tally.kineto/v2","source":{"path":"run.kept","format":"hrx-serial","bytes":100},` +
	`"clock":{"domain":"monotonic","unit":"ns","timed":true,"description":"ns on the test's monotonic clock"},"complete":false,` +
	`"input":[{"unit":"lines","read":10,"used":9,"skipped":[{"reason":"not a trace line","count":1,"first":"line 1","class":"not_device_work"}]}],` +
	`"gaps":[{"kind":"unfinished_dispatch","program":"p2","count":2,"summary":"launched, never finished","items":[{"what":"launched","where":"line 9","program":"p2","kernel":"b","queue":0,"time":5000900}],"items_omitted":1},` +
	`{"kind":"device_fault","count":1,"summary":"a sync never ended","figures":[{"name":"syncs","count":1}],"items":[{"what":"sync","where":"line 10"}]}],` +
	`"programs":[{"name":"p1","instances":1,"notes":["main list 2"],"events":2,"not_written":0},` +
	`{"name":"p2","instances":2,"instance_states":[{"name":"complete","count":1},{"name":"incomplete","count":1}],"incomplete_runs":[1],"events":1,"not_written":0},` +
	`{"name":"p3","instances":1,"clock":{"domain":"device-ticks","unit":"ticks","timed":true,"description":"ticks"},"events":0,"not_written":3}],` +
	`"kernels":[{"program":0,"name":"a","id":7,"resolved":true,"category":"kernel","list":"main"},{"program":0,"name":"a","id":7,"resolved":true,"category":"kernel","list":"init"},` +
	`{"program":1,"name":"p2:#9","id":9,"resolved":false,"category":"kernel","list":"main"},{"program":2,"name":"t","resolved":true,"category":"kernel","list":""}],` +
	`"queues":[{"name":"q0","device":"gpu0"}],"report":[{"key":"names","value":"2 kernels from m.json"}],"file":{"kernels":3,"unfinished":1}}`

const (
	tallyMeta1 = `{"ph":"M","name":"process_name","pid":0,"tid":0,"ts":0,"cat":"__metadata","args":{"name":"gpu0"}}`
	tallyMeta2 = `{"ph":"M","name":"thread_name","pid":0,"tid":1,"ts":0,"cat":"__metadata","args":{"name":"stream q0"}}`
	tallyCall  = `{"ph":"X","cat":"cuda_runtime","name":"launch (hrx-serial)","pid":1048576,"tid":1048576,"ts":0.000,"dur":0.050,"args":{"correlation":1}}`
	tallyFlowS = `{"ph":"s","cat":"ac2g","name":"ac2g","id":1,"pid":1048576,"tid":1048576,"ts":0.000}`
	tallyA     = `{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":1,"ts":0.100,"dur":0.100,"args":{"tally":[0,0,3,3,1],"device":0,"stream":1,"correlation":1,"program":"p1","run":0,"link":"launched"}}`
	tallyFlowF = `{"ph":"f","cat":"ac2g","name":"ac2g","id":1,"pid":0,"tid":1,"ts":0.100,"bp":"e"}`
	tallyAInit = `{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":1,"ts":0.300,"dur":0.100,"args":{"tally":[1,0,0,0,0],"device":0,"stream":1,"correlation":2,"program":"p1","run":0,"link":"none"}}`
	tallyB     = `{"ph":"X","cat":"kernel","name":"p2:#9","pid":0,"tid":1,"ts":0.500,"dur":0.200,"args":{"tally":[2,1,5,6,0],"device":0,"stream":1,"correlation":3,"program":"p2","run":1,"link":"none"}}`
	tallyUnf   = `{"ph":"X","cat":"tally_unfinished","name":"b (unfinished)","pid":0,"tid":1,"ts":0.900,"dur":0.100,"args":{"tally_correlation":4,"unfinished":true,"program":"p2","tally_stream":1}}`
)

var tallyEvents = []string{tallyMeta1, tallyMeta2, tallyCall, tallyFlowS, tallyA, tallyFlowF, tallyAInit, tallyB, tallyUnf}

// tallyItem tells FuzzRead's oracle the skipped_input items about a tally
// block (not used, or dispatches it did not write) from a stop.
func tallyItem(it capture.Item) bool {
	return strings.HasPrefix(it.What, "tally block not used: ") || strings.HasPrefix(it.Where, "tally block, ")
}

// tallyTrace is a tally-written file: every top-level key before
// traceEvents, the block among them (before when block is not "").
func tallyTrace(block string, events []string, extra ...string) string {
	var b strings.Builder
	b.WriteString(`{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "gpu0"}], "baseTimeNanoseconds": 5000000, `)
	if block != "" {
		b.WriteString(`"tally": ` + block + ", ")
	}
	b.WriteString(`"INFO": ["written by tally export from run.kept (hrx-serial)", "GAP device_fault (1): Record counts: Out-of-range = 5"], `)
	b.WriteString(`"traceEvents": [` + strings.Join(events, ",\n") + "]")
	for _, x := range extra {
		b.WriteString(", " + x)
	}
	b.WriteString("}")
	return b.String()
}

// A file tally exported reads back as its input: clock, programs (runs,
// states, notes), kernels (ids, lists, resolution), queues, each
// dispatch's run, place, link and times, the input's gaps, and the
// dispatches the export did not write, as gaps of their program.
func TestTallyReadBack(t *testing.T) {
	res := readT(t, tallyTrace(tallyBlockV2, tallyEvents))
	c := res.c
	want := capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true, Description: "ns on the test's monotonic clock"}
	if c.Clock != want {
		t.Errorf("clock %+v, want %+v", c.Clock, want)
	}
	var names []string
	for _, p := range c.Programs {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "p1,p2,p3" {
		t.Fatalf("programs %s, want p1,p2,p3", got)
	}
	p2 := c.Programs[1]
	if p2.Instances != 2 || !reflect.DeepEqual(p2.IncompleteRuns, []int64{1}) || len(p2.InstanceStates) != 2 || c.Programs[0].Notes[0] != "main list 2" {
		t.Errorf("got programs %+v, want p2 with 2 instances (run 1 incomplete) and p1's note \"main list 2\"", c.Programs)
	}
	if c.Programs[2].Clock == nil || c.Programs[2].Clock.Unit != "ticks" {
		t.Errorf("program p3's clock %+v, want its ticks", c.Programs[2].Clock)
	}
	wantK := []capture.Kernel{{Program: 0, Name: "a", ID: 7, HasID: true, Resolved: true, Category: "kernel", List: "main"},
		{Program: 0, Name: "a", ID: 7, HasID: true, Resolved: true, Category: "kernel", List: "init"},
		{Program: 1, Name: "p2:#9", ID: 9, HasID: true, Category: "kernel", List: "main"},
		{Program: 2, Name: "t", Resolved: true, Category: "kernel"}}
	if !reflect.DeepEqual(c.Kernels, wantK) {
		t.Errorf("kernels %+v, want %+v", c.Kernels, wantK)
	}
	if len(c.Queues) != 1 || c.Queues[0] != (capture.Queue{Name: "q0", Device: "gpu0"}) {
		t.Errorf("got queues %+v, want one: q0 on gpu0", c.Queues)
	}
	wantD := []capture.Dispatch{
		{Program: 0, Queue: 0, Kernel: 0, Instance: 0, List: "main", Index: 3, Ordinal: 3, Link: capture.LinkLaunched,
			Launch: capture.Interval{Begin: 5000000, End: 5000050, Valid: true}, Device: capture.Interval{Begin: 5000100, End: 5000200, Valid: true}},
		{Program: 0, Queue: 0, Kernel: 1, Instance: 0, List: "init", Index: 0, Ordinal: 0, Link: capture.LinkNone,
			Device: capture.Interval{Begin: 5000300, End: 5000400, Valid: true}},
		{Program: 1, Queue: 0, Kernel: 2, Instance: 1, List: "main", Index: 5, Ordinal: 6, Link: capture.LinkNone,
			Device: capture.Interval{Begin: 5000500, End: 5000700, Valid: true}},
	}
	if !reflect.DeepEqual(res.disp, wantD) {
		t.Errorf("dispatches\n got %+v\nwant %+v", res.disp, wantD)
	}
	// The input's gaps, as they were, marked as the input's.
	u := mustGap(t, c, capture.UnfinishedDispatch)
	if u.Program != "p2" || u.Count != 2 || u.ItemsOmitted != 1 || u.Summary != tallyFromInput+"launched, never finished" ||
		len(u.Items) != 1 || *u.Items[0].Queue != 0 || *u.Items[0].Time != 5000900 || u.Items[0].Where != "line 9" {
		t.Errorf("got unfinished_dispatch %+v, want the input's: p2, 2, one item (queue 0, 5000900, line 9), one omitted", u)
	}
	if f := mustGap(t, c, capture.DeviceFault); f.Count != 1 || fig(t, f, "syncs") != 1 || f.Program != "" {
		t.Errorf("got device_fault %+v, want 1, one sync, no program", f)
	}
	if s := mustGap(t, c, capture.SkippedInput); s.Program != "p3" || s.Count != 3 || !strings.Contains(s.Summary, "tally export wrote no event") {
		t.Errorf("skipped_input %+v, want p3's 3 dispatches not written", s)
	}
	// Nothing tally wrote itself is a gap: its categories, the missing end
	// marker, its INFO sentences, its kernels without launch.
	for _, k := range []capture.Kind{capture.UnknownInput, capture.TruncatedInput, capture.ProducerWarnings, capture.GPUEventWithoutLaunch, capture.InconsistentTrace, capture.UnresolvedName} {
		noGap(t, c, k)
	}
	if len(c.Accounting.Gaps) != 3 {
		t.Errorf("got %d gaps, want 3:\n%s", len(c.Accounting.Gaps), gapText(c))
	}
	ev := c.Accounting.InputFor("events")
	if ev.Read != 9 || ev.Read != ev.Used+ev.SkippedTotal() || !strings.Contains(gapText(c), "tally's marker of an unfinished dispatch (its unfinished_dispatch gap is carried from the tally block) 1") {
		t.Errorf("got events %+v, gaps\n%s\nwant 9 read, all used or skipped, the unfinished-dispatch marker skipped", ev, gapText(c))
	}
	if v, _ := field(c, "report", "exported"); !strings.Contains(fmt.Sprint(v), "run.kept (hrx-serial, 100 bytes): 10 lines read, 9 used, 1 skipped (1 not a trace line)") {
		t.Errorf("report header: got exported = %v, want the input's 10 lines read, 9 used, 1 skipped", v)
	}
	if v, _ := field(c, "report", "names"); v != "2 kernels from m.json" {
		t.Errorf("report header: names = %v, want the input's", v)
	}
	if v, ok := field(c, "report", "programs"); ok {
		t.Errorf("report header: programs = %v, want none (the input's programs)", v)
	}
	for _, s := range c.Inventory {
		for _, f := range s.Fields {
			if strings.Contains(f.Key, "(unknown)") {
				t.Errorf("inventory %s: got %s = %v, want no (unknown): tally's own categories are known", s.Title, f.Key, f.Value)
			}
		}
	}
}

// Enough events that the side log of args.tally spills (readT reads with
// tiny buffers too): each dispatch keeps its own run, in order.
func TestTallyLogSpills(t *testing.T) {
	const n = 23
	block := strings.NewReplacer(`"instances":2,`, `"instances":23,`, `"events":1,"not_written":0}`, `"events":23,"not_written":0}`,
		`"file":{"kernels":3,`, `"file":{"kernels":25,`).Replace(tallyBlockV2)
	events := []string{tallyA, tallyAInit}
	for i := 0; i < n; i++ {
		events = append(events, fmt.Sprintf(`{"ph":"X","cat":"kernel","name":"p2:#9","pid":0,"tid":1,"ts":%d.000,"dur":0.500,"args":{"tally":[2,%d,%d,%d,0],"correlation":%d}}`, 1+i, i, i, 100+i, 10+i))
	}
	events = append(events, tallyUnf)
	res := readT(t, tallyTrace(block, events))
	noGap(t, res.c, capture.InconsistentTrace)
	if len(res.disp) != n+2 {
		t.Fatalf("%d dispatches, want %d", len(res.disp), n+2)
	}
	for i, d := range res.disp[2:] {
		if d.Instance != int64(i) || d.Index != int64(i) || d.Ordinal != int64(100+i) || d.Device.Begin != 5000000+int64(1000*(1+i)) {
			t.Fatalf("dispatch %d: run %d, index %d, ordinal %d, begin %d; want %d, %d, %d, %d", i, d.Instance, d.Index, d.Ordinal, d.Device.Begin, i, i, 100+i, 5000000+1000*(1+i))
		}
	}
}

// A tally block that is malformed, of a schema this reader does not read,
// or out of place is never trusted: the file reads as any Kineto trace, and
// a skipped_input gap says which block was not used and why.
func TestTallyBlockNotUsed(t *testing.T) {
	v1 := strings.Replace(tallyBlockV2, "tally.kineto/v2", "tally.kineto/v1", 1)
	cases := []struct{ name, data, want string }{
		{"not an object", tallyTrace(`5`, tallyEvents), "not a JSON object"},
		{"a field of another type", tallyTrace(strings.Replace(tallyBlockV2, `"queues":[`, `"queues":"x","q":[`, 1), tallyEvents), "does not decode"},
		{"a gap of a program it does not list", tallyTrace(strings.Replace(tallyBlockV2, `"program":"p2","count":2`, `"program":"p9","count":2`, 1), tallyEvents), "contradicts itself"},
		{"a kernel of a program it does not list", tallyTrace(strings.Replace(tallyBlockV2, `{"program":2,"name":"t"`, `{"program":3,"name":"t"`, 1), tallyEvents), "contradicts itself"},
		{"events of a program timed in ticks", tallyTrace(strings.Replace(tallyBlockV2, `"events":0,"not_written":3`, `"events":1,"not_written":3`, 1), tallyEvents), "contradicts itself"},
		{"an item on a queue it does not list", tallyTrace(strings.Replace(tallyBlockV2, `"queue":0`, `"queue":4`, 1), tallyEvents), "contradicts itself"},
		{"no programs", tallyTrace(`{"schema":"tally.kineto/v2","clock":{"unit":"ns"}}`, tallyEvents), "no programs"},
		{"a newer schema", tallyTrace(strings.Replace(tallyBlockV2, "tally.kineto/v2", "tally.kineto/v3", 1), tallyEvents), `schema is "tally.kineto/v3", which this tally does not read`},
		{"the older schema", tallyTrace(v1, tallyEvents), `schema is "tally.kineto/v1"`},
		{"no schema", tallyTrace(`{"clock":{}}`, tallyEvents), "has no tally.kineto/… schema"},
		{"another schema", tallyTrace(`{"schema":"other/v1"}`, tallyEvents), "has no tally.kineto/… schema (schema other/v1)"},
		{"after traceEvents", tallyTrace("", tallyEvents, `"tally": `+tallyBlockV2), "follows traceEvents"},
		{"twice", tallyTrace(tallyBlockV2, tallyEvents, `"tally": `+tallyBlockV2), "a second \"tally\" key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := readT(t, tc.data).c
			g := mustGap(t, c, capture.SkippedInput)
			if len(g.Items) == 0 || !strings.HasPrefix(g.Items[0].What, "tally block not used: ") || !strings.Contains(g.Items[0].What, tc.want) {
				t.Errorf("skipped_input items %+v, want %q", g.Items, tc.want)
			}
			if !strings.Contains(g.Summary, "read as any Kineto trace") {
				t.Errorf("got summary %q, want it to say \"read as any Kineto trace\"", g.Summary)
			}
			if c.Accounting.Complete() {
				t.Error("got a complete capture from a file whose tally block was not used, want incomplete")
			}
			// Read as any Kineto trace: its own clock and programs, and
			// none of the block's gaps.
			if c.Clock.Domain != "unix-epoch" || len(c.Programs) != 1 || c.Programs[0].Name != unannotated {
				t.Errorf("clock %q, programs %+v: want the plain reading", c.Clock.Domain, c.Programs)
			}
			noGap(t, c, capture.DeviceFault)
			if strings.Contains(gapText(c), tallyFromInput) {
				t.Errorf("got a block not used with its gaps carried, want none carried:\n%s", gapText(c))
			}
			ev := c.Accounting.InputFor("events")
			if ev.Read != ev.Used+ev.SkippedTotal() {
				t.Errorf("events: got %d read, %d used, %d skipped; want read = used + skipped", ev.Read, ev.Used, ev.SkippedTotal())
			}
		})
	}
}

// Events that contradict the block — removed, added, or placed where the
// block has no kernel or queue — are flagged as inconsistent_trace, and
// every event stays in the tables.
func TestTallyBlockContradicted(t *testing.T) {
	without := func(drop string) []string {
		var out []string
		for _, e := range tallyEvents {
			if e != drop {
				out = append(out, e)
			}
		}
		return out
	}
	noArgs := strings.Replace(tallyB, `"tally":[2,1,5,6,0],`, ``, 1)
	cases := []struct {
		name   string
		data   string
		want   []string
		tables int // dispatches in the tables
	}{
		{"a kernel event removed", tallyTrace(tallyBlockV2, without(tallyB)),
			[]string{"program p2: the tally block counts 1 kernel event, the file holds 0", "the tally block counts 3 kernel events in this file, the file holds 2"}, 2},
		{"a kernel event added", tallyTrace(tallyBlockV2, append(without(""), strings.Replace(tallyB, "0.500", "0.800", 1))),
			[]string{"program p2: the tally block counts 1 kernel event, the file holds 2", "3 kernel events in this file, the file holds 4"}, 4},
		{"an event without args.tally", tallyTrace(tallyBlockV2, append(without(tallyB), noArgs)),
			[]string{"1 kernel event without a usable args.tally", "program p2: the tally block counts 1 kernel event, the file holds 0"}, 3},
		{"a kernel the block does not list", tallyTrace(tallyBlockV2, append(without(tallyB), strings.Replace(tallyB, "[2,1,5,6,0]", "[9,1,5,6,0]", 1))),
			[]string{"1 kernel event without a usable args.tally"}, 3},
		{"a link tally does not write", tallyTrace(tallyBlockV2, append(without(tallyB), strings.Replace(tallyB, "[2,1,5,6,0]", "[2,1,5,6,7]", 1))),
			[]string{"1 kernel event without a usable args.tally"}, 3},
		{"a stream the block does not list", tallyTrace(tallyBlockV2, append(without(tallyB), strings.Replace(tallyB, `"tid":1`, `"tid":5`, 1))),
			[]string{"stream 5 is not a queue of the tally block (1 queues)"}, 3},
		{"a marker removed", tallyTrace(tallyBlockV2, without(tallyUnf)),
			[]string{"the tally block counts 1 unfinished-dispatch marker in this file, the file holds 0"}, 3},
		{"no base time", strings.Replace(tallyTrace(tallyBlockV2, tallyEvents), `"baseTimeNanoseconds": 5000000, `, "", 1),
			[]string{`the tally block states the clock "ns on the test's monotonic clock", but the times are not µs relative to a usable baseTimeNanoseconds`}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := readT(t, tc.data)
			c := res.c
			g := mustGap(t, c, capture.InconsistentTrace)
			var items []string
			for _, it := range g.Items {
				items = append(items, it.What)
			}
			all := strings.Join(items, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("inconsistent_trace items:\n%s\nwant %q", all, w)
				}
			}
			if int(res.tables.Dispatches()) != tc.tables || len(res.disp) != tc.tables {
				t.Errorf("%d dispatches in the tables, want every event's %d", res.tables.Dispatches(), tc.tables)
			}
			// The block is still the reading: its gaps are carried.
			mustGap(t, c, capture.DeviceFault)
		})
	}
	// An event without args.tally is in a program of its own.
	res := readT(t, tallyTrace(tallyBlockV2, append(tallyEvents[:len(tallyEvents)-2:len(tallyEvents)-2], noArgs, tallyUnf)))
	last := res.disp[len(res.disp)-1]
	if p := res.c.Programs[last.Program].Name; p != tallyUnlisted || res.c.Kernels[last.Kernel].Name != "p2:#9" {
		t.Errorf("an event without args.tally: got program %q, kernel %q; want %q, \"p2:#9\"", p, res.c.Kernels[last.Kernel].Name, tallyUnlisted)
	}
}

// --program-by regroups a read-back file: the clock and the input's gaps
// stay (their programs named in the summary, since the regrouped programs
// have other names), each kernel once per new program.
func TestTallyProgramByStream(t *testing.T) {
	res := readOpts(t, tallyTrace(tallyBlockV2, tallyEvents), &format.Options{ProgramBy: "stream"})
	c := res.c
	if len(c.Programs) != 1 || c.Programs[0].Name != "device 0 stream q0" {
		t.Fatalf("programs %+v, want one per stream", c.Programs)
	}
	if c.Clock.Domain != "monotonic" {
		t.Errorf("clock %+v, want the input's", c.Clock)
	}
	if len(res.tables.Programs[0].Kernels) != 3 || res.tables.Dispatches() != 3 {
		t.Errorf("got kernels %+v (%d dispatches), want 3 kernels, 3 dispatches", res.tables.Programs[0].Kernels, res.tables.Dispatches())
	}
	u := mustGap(t, c, capture.UnfinishedDispatch)
	if u.Program != "" || u.Summary != tallyFromInput+"program p2: launched, never finished" {
		t.Errorf("got unfinished_dispatch scoped %q: %q; want no scope and %q", u.Program, u.Summary, tallyFromInput+"program p2: launched, never finished")
	}
	if v, _ := field(c, "report", "programs"); !strings.Contains(fmt.Sprint(v), "--program-by stream") {
		t.Errorf("report header: got programs = %v, want it to say --program-by stream", v)
	}
}

// A file exported from a read-back keeps one "in the exported input: "
// before each summary: the read-back of the read-back equals the first.
func TestTallyCarriedOnce(t *testing.T) {
	block := strings.Replace(tallyBlockV2, `"summary":"a sync never ended"`, `"summary":"`+tallyFromInput+`a sync never ended"`, 1)
	c := readT(t, tallyTrace(block, tallyEvents)).c
	if g := mustGap(t, c, capture.DeviceFault); g.Summary != tallyFromInput+"a sync never ended" {
		t.Errorf("got summary %q, want %q (the prefix once)", g.Summary, tallyFromInput+"a sync never ended")
	}
}

// An input without a single dispatch exports a block with no programs, no
// kernels and the input's own empty_capture: it is used (an empty list of
// programs is not a missing one), the input's gaps are carried, and the
// file's lack of kernel events is not a second empty_capture — the
// carried one says the input held none.
func TestTallyEmptyInput(t *testing.T) {
	block := `{"schema":"tally.kineto/v2","source":{"path":"run","format":"swimlane","bytes":374},` +
		`"clock":{"domain":"device-counter","unit":"ns","timed":true,"description":"ns from the chip's counter"},"complete":false,` +
		`"input":[{"unit":"dispatch dirs","read":1,"used":0,"skipped":[{"reason":"records unreadable","count":1,"first":"rank0/d0","class":"device_work_lost","gap":"skipped_input"}]}],` +
		`"gaps":[{"kind":"skipped_input","count":1,"summary":"records files that could not be read"},{"kind":"empty_capture","count":1,"summary":"the run holds no kernel execution"}],` +
		`"programs":[],"kernels":[],"queues":[],"report":[],"file":{"kernels":0,"unfinished":0}}`
	c := readT(t, tallyTrace(block, []string{tallyMeta1})).c
	if strings.Contains(gapText(c), "tally block not used") {
		t.Fatalf("got the block of an empty input not used, want it used:\n%s", gapText(c))
	}
	if c.Clock.Domain != "device-counter" {
		t.Errorf("clock %q, want the block's device-counter", c.Clock.Domain)
	}
	for kind, want := range map[capture.Kind]string{capture.SkippedInput: tallyFromInput + "records files that could not be read", capture.EmptyCapture: tallyFromInput + "the run holds no kernel execution"} {
		var got []string
		for _, g := range c.Accounting.Gaps {
			if g.Kind == kind {
				got = append(got, fmt.Sprintf("%d %s", g.Count, g.Summary))
			}
		}
		if !reflect.DeepEqual(got, []string{"1 " + want}) {
			t.Errorf("%s gaps %q, want [\"1 %s\"] (the input's, carried, and no other)", kind, got, want)
		}
	}
	if n := len(c.Accounting.Gaps); n != 2 {
		t.Errorf("%d gaps, want the input's 2:\n%s", n, gapText(c))
	}
}
