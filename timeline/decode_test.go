package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/tallyprof/tally/internal/protowalk"
	"google.golang.org/protobuf/encoding/protowire"
)

// decoded is a timeline file read back: tracks, closed slices, instants and
// metadata, the same for both formats, so tests compare them with the
// capture they came from.
type decoded struct {
	tracks   map[string]string // track key -> name
	slices   []dslice
	launches []dslice // host launch slices (category "launch")
	instants []dslice
	meta     map[string]any
}

type dslice struct {
	track      string
	name, cat  string
	begin, end int64 // ns (Chrome: µs×1000, relative to the base)
	args       map[string]any
	// flowOut starts a flow at the slice's begin, flowIn ends one there.
	flowOut, flowIn uint64
}

// add files a closed slice: launches apart from dispatches.
func (d *decoded) add(s dslice) {
	if s.cat == "launch" {
		d.launches = append(d.launches, s)
		return
	}
	d.slices = append(d.slices, s)
}

// runDecoded runs the timeline of paths as opt says and decodes it.
func runDecoded(t *testing.T, opt Options, paths ...string) (*Summary, *decoded) {
	t.Helper()
	var buf bytes.Buffer
	sum, err := Run(paths, &buf, opt)
	if err != nil {
		t.Fatal(err)
	}
	return sum, decode(t, opt.As, buf.Bytes())
}

// checkFlows: every launch slice starts exactly one flow, and every flow
// ends on exactly one dispatch slice (trace processor and the Chrome
// importer join them by id).
func checkFlows(t *testing.T, d *decoded) {
	t.Helper()
	starts := map[uint64]bool{}
	for _, l := range d.launches {
		if l.flowOut == 0 || starts[l.flowOut] {
			t.Fatalf("launch at %d on %s: got flow %d, want a nonzero flow of its own", l.begin, d.tracks[l.track], l.flowOut)
		}
		starts[l.flowOut] = true
	}
	ends := map[uint64]bool{}
	for _, s := range d.slices {
		if s.flowIn == 0 {
			continue
		}
		if !starts[s.flowIn] || ends[s.flowIn] {
			t.Fatalf("dispatch %q: got flow %d that no launch starts or that ends twice, want one launch's flow ended once", s.name, s.flowIn)
		}
		ends[s.flowIn] = true
	}
	if len(ends) != len(starts) {
		t.Fatalf("got %d flows started, %d ended on a dispatch; want them equal", len(starts), len(ends))
	}
}

// decodePerfetto reads a Perfetto trace with the field numbers the writer
// uses and checks the structure trace processor relies on: one sequence id
// on every packet, incremental state cleared first, every interned id
// defined before use, every track declared (named) before its first event,
// every BEGIN matched by an END on its track.
func decodePerfetto(t *testing.T, data []byte) *decoded {
	t.Helper()
	d := &decoded{tracks: map[string]string{}, meta: map[string]any{}}
	names := map[fieldNum]map[uint64]string{}
	type ev struct {
		typ, seq   uint64
		track      string
		ts         int64
		name, cat  string
		args       map[string]any
		packetSeen int
		out, in    uint64
	}
	var evs []ev
	cleared := false
	for n := 0; len(data) > 0; n++ {
		num, typ, l := protowire.ConsumeTag(data)
		if l < 0 || fieldNum(num) != fTracePacket || typ != protowire.BytesType {
			t.Fatalf("packet %d: got bad framing, want a length-delimited TracePacket field", n)
		}
		data = data[l:]
		pkt, l := protowire.ConsumeBytes(data)
		if l < 0 {
			t.Fatalf("packet %d: got it cut, want it whole", n)
		}
		data = data[l:]
		var seq, flags, ts uint64
		var te, td, bundle []byte
		fields(t, pkt, func(f fieldNum, v uint64, b []byte) {
			switch f {
			case fPacketSequenceID:
				seq = v
			case fPacketSeqFlags:
				flags = v
			case fPacketTimestamp:
				ts = v
			case fPacketTrackEvent:
				te = b
			case fPacketTrackDesc:
				td = b
			case fPacketChromeEvent:
				bundle = b
			case fPacketInterned:
				fields(t, b, func(tf fieldNum, _ uint64, e []byte) {
					iid, s := idName(t, e, fInternIID, fInternName)
					if names[tf] == nil {
						names[tf] = map[uint64]string{}
					}
					names[tf][iid] = s
				})
			}
		})
		if seq != sequenceID {
			t.Fatalf("packet %d: got sequence id %d, want %d", n, seq, sequenceID)
		}
		if n == 0 {
			cleared = flags&seqIncrementalStateCleared != 0
		}
		if !cleared || flags&seqNeedsIncrementalState == 0 {
			t.Fatalf("packet %d: got flags %d (first cleared: %v), want the first to clear and every one to need incremental state", n, flags, cleared)
		}
		if td != nil {
			uuid, name := idName(t, td, fTrackUUID, fTrackName)
			key := fmt.Sprint(uuid)
			if _, dup := d.tracks[key]; dup || name == "" || uuid == 0 {
				t.Fatalf("got track %d %q declared twice, unnamed or zero; want a new nonzero uuid with a name", uuid, name)
			}
			d.tracks[key] = name
		}
		if bundle != nil {
			fields(t, bundle, func(_ fieldNum, _ uint64, m []byte) {
				var k string
				var v any
				fields(t, m, func(f fieldNum, x uint64, b []byte) {
					switch f {
					case fMetaName:
						k = string(b)
					case fMetaString:
						v = string(b)
					case fMetaInt:
						v = int64(x)
					}
				})
				d.meta[k] = v
			})
		}
		if te != nil {
			e := ev{ts: int64(ts), args: map[string]any{}, packetSeen: n}
			lookup := func(tab fieldNum, id uint64) string {
				s, ok := names[tab][id]
				if !ok {
					t.Fatalf("packet %d: got iid %d of table %d used before defined, want it defined first", n, id, tab)
				}
				return s
			}
			fields(t, te, func(f fieldNum, v uint64, b []byte) {
				switch f {
				case fEventType:
					e.typ = v
				case fEventTrackUUID:
					e.track = fmt.Sprint(v)
				case fEventNameIID:
					e.name = lookup(fInternNames, v)
				case fEventCategoryIIDs:
					e.cat = lookup(fInternCategories, v)
				case fEventFlowIDs:
					e.out = v
				case fEventTermFlowIDs:
					e.in = v
				case fEventAnnotation:
					var k string
					var val any
					fields(t, b, func(af fieldNum, av uint64, ab []byte) {
						switch af {
						case fAnnNameIID:
							k = lookup(fInternAnnNames, av)
						case fAnnInt:
							val = int64(av)
						case fAnnBool:
							val = av != 0
						case fAnnString:
							val = string(ab)
						}
					})
					e.args[k] = val
				}
			})
			if _, ok := d.tracks[e.track]; !ok {
				t.Fatalf("packet %d: got an event on track %s before its descriptor, want the descriptor first", n, e.track)
			}
			e.seq = uint64(len(evs))
			evs = append(evs, e)
		}
	}
	// Trace processor sorts by timestamp (stable) and then nests per track.
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].ts < evs[j].ts })
	open := map[string][]*dslice{}
	for _, e := range evs {
		switch e.typ {
		case typeSliceBegin:
			open[e.track] = append(open[e.track], &dslice{track: e.track, name: e.name, cat: e.cat, begin: e.ts, args: e.args, flowOut: e.out, flowIn: e.in})
		case typeSliceEnd:
			st := open[e.track]
			if len(st) == 0 {
				t.Fatalf("got END without BEGIN on track %s at %d, want a BEGIN before each END", d.tracks[e.track], e.ts)
			}
			s := st[len(st)-1]
			open[e.track] = st[:len(st)-1]
			s.end = e.ts
			d.add(*s)
		case typeInstant:
			d.instants = append(d.instants, dslice{track: e.track, name: e.name, cat: e.cat, begin: e.ts, end: e.ts, args: e.args})
		default:
			t.Fatalf("got event type %d, want SLICE_BEGIN, SLICE_END or INSTANT", e.typ)
		}
	}
	for tr, st := range open {
		if len(st) > 0 {
			t.Fatalf("got %d slices never closed on track %s, want 0", len(st), d.tracks[tr])
		}
	}
	checkFlows(t, d)
	return d
}

// idName reads a message's varint field id and string field name (an
// interned entry, a track descriptor).
func idName(t *testing.T, msg []byte, idField, nameField fieldNum) (id uint64, name string) {
	t.Helper()
	fields(t, msg, func(f fieldNum, v uint64, b []byte) {
		switch f {
		case idField:
			id = v
		case nameField:
			name = string(b)
		}
	})
	return id, name
}

// fields calls f for each field of a message; varints and fixed64s give
// v, bytes b.
func fields(t *testing.T, msg []byte, f func(fieldNum, uint64, []byte)) {
	t.Helper()
	if err := protowalk.Fields(msg, func(num protowire.Number, v uint64, b []byte) { f(fieldNum(num), v, b) }); err != nil {
		t.Fatal(err)
	}
}

// decodeChrome reads Chrome JSON and checks that every event's thread and
// process are named, that there are only X, i and M events, and that every
// time is ≥ 0.
func decodeChrome(t *testing.T, data []byte) *decoded {
	t.Helper()
	var doc struct {
		DisplayTimeUnit string `json:"displayTimeUnit"`
		TraceEvents     []struct {
			Ph   string          `json:"ph"`
			Name string          `json:"name"`
			Cat  string          `json:"cat"`
			Ts   json.Number     `json:"ts"`
			Dur  json.Number     `json:"dur"`
			Pid  int             `json:"pid"`
			Tid  int             `json:"tid"`
			Args json.RawMessage `json:"args"`
			ID   uint64          `json:"id"`
			Bp   string          `json:"bp"`
		} `json:"traceEvents"`
		OtherData map[string]any `json:"otherData"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("chrome json: %v", err)
	}
	d := &decoded{tracks: map[string]string{}, meta: doc.OtherData}
	procs := map[int]bool{}
	type flow struct {
		ph, track string
		ts        int64
		id        uint64
	}
	var flows []flow
	for _, e := range doc.TraceEvents {
		key := fmt.Sprintf("%d/%d", e.Pid, e.Tid)
		var args map[string]any
		if e.Ph != "s" && e.Ph != "f" { // flow events carry no args
			args = jsonArgs(t, e.Args)
		}
		switch e.Ph {
		case "M":
			switch e.Name {
			case "thread_name":
				d.tracks[key] = args["name"].(string)
			case "process_name":
				procs[e.Pid] = true
			}
			continue
		case "X", "i":
		case "s", "f":
			if _, ok := d.tracks[key]; !ok || e.Bp != "e" || e.ID == 0 {
				t.Fatalf("got flow %s %d on %s (bp %q), want a named thread, bp \"e\" and a nonzero id", e.Ph, e.ID, key, e.Bp)
			}
			flows = append(flows, flow{e.Ph, key, micros(t, e.Ts), e.ID})
			continue
		default:
			t.Fatalf("got phase %q, want M, X, i, s or f", e.Ph)
		}
		if _, ok := d.tracks[key]; !ok || !procs[e.Pid] {
			t.Fatalf("got event %q on unnamed thread %s, want its thread and process named", e.Name, key)
		}
		ts := micros(t, e.Ts)
		s := dslice{track: key, name: e.Name, cat: e.Cat, begin: ts, end: ts, args: args}
		if ts < 0 {
			t.Fatalf("got negative ts %s, want ts >= 0", e.Ts)
		}
		if e.Ph == "X" {
			s.end = ts + micros(t, e.Dur)
			d.add(s)
		} else {
			d.instants = append(d.instants, s)
		}
	}
	// A flow end binds to the slice that begins at its time on its thread
	// (bp "e"): a launch for "s", a dispatch for "f".
	type at struct {
		track string
		ts    int64
	}
	index := func(list []dslice) map[at][]int {
		m := map[at][]int{}
		for i, s := range list {
			m[at{s.track, s.begin}] = append(m[at{s.track, s.begin}], i)
		}
		return m
	}
	byBegin := map[string]map[at][]int{"s": index(d.launches), "f": index(d.slices)}
	for _, f := range flows {
		list := d.slices
		if f.ph == "s" {
			list = d.launches
		}
		bound := false
		for _, i := range byBegin[f.ph][at{f.track, f.ts}] {
			s := &list[i]
			if f.ph == "s" && s.flowOut == 0 {
				s.flowOut, bound = f.id, true
				break
			}
			if f.ph == "f" && s.flowIn == 0 {
				s.flowIn, bound = f.id, true
				break
			}
		}
		if !bound {
			t.Fatalf("flow %s %d at %d on %s: got no slice to bind to, want one beginning there", f.ph, f.id, f.ts, f.track)
		}
	}
	checkFlows(t, d)
	checkNesting(t, d)
	return d
}

// checkNesting: on each track, slices nest properly (Perfetto's JSON
// importer spills or drops partially overlapping X events).
func checkNesting(t *testing.T, d *decoded) {
	t.Helper()
	by := map[string][]dslice{}
	for _, s := range d.slices {
		by[s.track] = append(by[s.track], s)
	}
	for tr, ss := range by {
		sort.SliceStable(ss, func(i, j int) bool {
			if ss[i].begin != ss[j].begin {
				return ss[i].begin < ss[j].begin
			}
			return ss[i].end > ss[j].end
		})
		var ends []int64
		for _, s := range ss {
			for len(ends) > 0 && ends[len(ends)-1] <= s.begin {
				ends = ends[:len(ends)-1]
			}
			if len(ends) > 0 && s.end > ends[len(ends)-1] {
				t.Fatalf("track %s: got %q [%d, %d] partially overlapping a slice ending at %d, want slices nested", d.tracks[tr], s.name, s.begin, s.end, ends[len(ends)-1])
			}
			ends = append(ends, s.end)
		}
	}
}

// micros parses "123.456" µs exactly into ns.
func micros(t *testing.T, n json.Number) int64 {
	var whole, frac int64
	if _, err := fmt.Sscanf(string(n), "%d.%03d", &whole, &frac); err != nil || len(n) < 4 || n[len(n)-4] != '.' {
		t.Fatalf("got time %q, want µs with three decimals", n)
	}
	return whole*1000 + frac
}

// jsonArgs decodes args with integers as int64, as the Perfetto decoder
// gives them.
func jsonArgs(t *testing.T, raw json.RawMessage) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		t.Fatalf("args %s: %v", raw, err)
	}
	for k, v := range args {
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				args[k] = i
			}
		}
	}
	return args
}
