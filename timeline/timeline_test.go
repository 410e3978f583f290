package timeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	_ "github.com/tallyprof/tally/format/all"
)

// synthetic is a two-rank capture: per-program kernels with the same id,
// nested and partially overlapping dispatches on one queue, an aggregated
// and an untimed dispatch, unfinished dispatches with and without a queue,
// and a note.
func synthetic() (*capture.Capture, []capture.Dispatch) {
	c := &capture.Capture{Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true, Description: "ns, monotonic"}}
	p0 := c.AddProgram(capture.Program{Name: "decode", Instances: 1})
	p1 := c.AddProgram(capture.Program{Name: "barrier", Instances: 1})
	q0 := c.AddQueue(capture.Queue{Name: "stream 7", Device: "GPU 0", Rank: "0"})
	q1 := c.AddQueue(capture.Queue{Name: "stream 7", Device: "GPU 0", Rank: "1"})
	norm := c.AddKernel(capture.Kernel{Program: p0, Name: "rms_norm", ID: 0, HasID: true, Resolved: true, Category: "kernel"})
	wait := c.AddKernel(capture.Kernel{Program: p1, Name: "wait", ID: 0, HasID: true, Resolved: true, Category: "kernel"})
	anon := c.AddKernel(capture.Kernel{Program: p1, Name: "barrier:#9", ID: 9, HasID: true})
	iv := func(b, e int64) capture.Interval { return capture.Interval{Begin: b, End: e, Valid: true} }
	base := capture.Dispatch{Instance: 0, Index: -1, Ordinal: -1}
	mk := func(p capture.ProgramID, q capture.QueueID, k capture.KernelID, b, e int64) capture.Dispatch {
		d := base
		d.Program, d.Queue, d.Kernel, d.Device = p, q, k, iv(b, e)
		return d
	}
	ds := []capture.Dispatch{
		mk(p0, q0, norm, 1000, 2000),
		mk(p0, q0, norm, 1200, 1500), // nested in the first
		mk(p0, q0, norm, 1800, 2600), // partially overlaps the first: overlap lane
		mk(p1, q1, wait, 1000, 25_000),
		mk(p1, q1, anon, 25_000, 25_000), // zero duration
		mk(p0, q0, norm, 3000, 3100),
	}
	ds[0].Launch = iv(900, 950)
	ds[0].Link = capture.LinkLaunched
	ds[0].Index, ds[0].Ordinal = 3, 7
	untimed := base
	untimed.Program, untimed.Queue, untimed.Kernel = p0, q0, norm
	agg := untimed
	agg.Aggregate = &capture.Aggregate{Count: 5, Device: 500, DeviceValid: true}
	ds = append(ds, untimed, agg)

	g := c.Accounting.Gap(capture.UnfinishedDispatch, "decode")
	g.Summary = "launched, never finished"
	// Two on their queue, listed out of launch order (a lane places slices
	// in begin order: the writer sorts them), one whose queue the reader did
	// not know, one without a time.
	g.Add(capture.Item{What: "launched, never finished", Program: "decode", Kernel: "rms_norm", Queue: capture.QueueOf(q0), Time: capture.TimeOf(3300), LastCompleted: "rms_norm"})
	g.Add(capture.Item{What: "launched, never finished", Program: "decode", Kernel: "rms_norm", Queue: capture.QueueOf(q0), Time: capture.TimeOf(3200), LastCompleted: "rms_norm"})
	g.Add(capture.Item{What: "launched, never finished", Program: "decode", Kernel: "rms_norm", Time: capture.TimeOf(2500), LastCompleted: "rms_norm"})
	g.Add(capture.Item{What: "launched, never finished", Program: "decode", Kernel: "rms_norm"}) // no time
	n := c.Accounting.Gap(capture.GraphLaunch, "")
	n.Summary = "a note"
	n.AddN(2)
	return c, ds
}

func writeSynthetic(t *testing.T, f Format) ([]byte, *analysis.Tables, *capture.Capture) {
	t.Helper()
	c, ds := synthetic()
	data, _ := writeWith(t, f, c, ds)
	agg := analysis.NewAggregator()
	for i := range ds {
		agg.Dispatch(c, &ds[i])
	}
	return data, agg.Tables(c), c
}

func decode(t *testing.T, f Format, data []byte) *decoded {
	if f == Chrome {
		return decodeChrome(t, data)
	}
	return decodePerfetto(t, data)
}

func TestSyntheticBothFormats(t *testing.T) {
	for _, f := range []Format{Perfetto, Chrome} {
		t.Run(f.String(), func(t *testing.T) {
			data, tables, c := writeSynthetic(t, f)
			d := decode(t, f, data)
			checkAgainstTables(t, d, tables, c)

			// One track per (rank, device, queue), named, grouped per rank.
			names := map[string]bool{}
			for _, n := range d.tracks {
				names[n] = true
			}
			for _, want := range []string{"rank 0 · GPU 0 · stream 7", "rank 1 · GPU 0 · stream 7", "rank 0 · GPU 0 · stream 7 · overlap lane 1",
				"tally · accounting · rank-all.json"} {
				if !names[want] {
					t.Errorf("no track %q in %v", want, names)
				}
			}
			// Same func id, different programs: each slice carries its own program's name.
			for _, s := range d.slices {
				if s.name == "rms_norm" && s.args["program"] != "decode" || s.name == "wait" && s.args["program"] != "barrier" {
					t.Errorf("slice %q: got program %v, want its own (rms_norm: decode, wait: barrier)", s.name, s.args["program"])
				}
				if s.name == "wait" && (s.end-s.begin != 24_000 || d.tracks[s.track] != "rank 1 · GPU 0 · stream 7") {
					t.Errorf("got wait slice %+v on %q, want 24000 ns on \"rank 1 · GPU 0 · stream 7\"", s, d.tracks[s.track])
				}
				if s.name == "barrier:#9" && s.args["resolved"] != false {
					t.Errorf("anonymous kernel: got args %v, want resolved false", s.args)
				}
			}
			first := findSlice(d, func(s dslice) bool { return s.args["position"] == "[3] ordinal 7" })
			if first == nil || first.args["launch"] != int64(900) || first.args["link"] != "launched" || first.args["run"] != int64(0) {
				t.Errorf("first dispatch: got %+v, want launch 900, link launched, run 0", first)
			}

			// The unfinished dispatches: closed slices to the capture's end, on
			// their queue's track when the reader knew it, else on the input's
			// unfinished track.
			onTrack := map[int64]string{3200: "rank 0 · GPU 0 · stream 7", 3300: "rank 0 · GPU 0 · stream 7", 2500: "rank 0 · unfinished dispatches · rank-all.json"}
			n := 0
			for _, u := range d.slices {
				if u.cat != "unfinished" {
					continue
				}
				n++
				if u.name != "UNFINISHED rms_norm" || u.args["unfinished"] != true || u.end != 25_000 || onTrack[u.begin] != d.tracks[u.track] {
					t.Errorf("got unfinished slice %+v on %q, want \"UNFINISHED rms_norm\" marked unfinished, ending at 25000, on %q", u, d.tracks[u.track], onTrack[u.begin])
				}
			}
			if n != 3 {
				t.Errorf("%d unfinished slices, want 3", n)
			}
			// The capture's end is the latest time seen, so the unfinished slices
			// end no earlier than any completed one.
			for _, s := range d.slices {
				if s.end > 25_000 {
					t.Errorf("slice %q: got an end of %d, want none after the capture end 25000", s.name, s.end)
				}
			}
			// Slices per track: the queue's main lane holds its completed
			// dispatches and its unfinished ones; no track holds more.
			perTrack := map[string]int{}
			for _, s := range d.slices {
				perTrack[d.tracks[s.track]]++
			}
			wantPer := map[string]int{
				"rank 0 · GPU 0 · stream 7":                      5,
				"rank 0 · GPU 0 · stream 7 · overlap lane 1":     1,
				"rank 1 · GPU 0 · stream 7":                      2,
				"rank 0 · unfinished dispatches · rank-all.json": 1,
			}
			if fmt.Sprint(perTrack) != fmt.Sprint(wantPer) {
				t.Errorf("slices per track %v, want %v", perTrack, wantPer)
			}

			// Every gap as instants on the accounting track; what was not drawn is stated.
			kinds := map[string]bool{}
			var end *dslice
			for i, s := range d.instants {
				if k, ok := s.args["kind"].(string); ok {
					kinds[k] = true
				}
				if s.name == "capture end" {
					end = &d.instants[i]
				}
			}
			for _, g := range c.Accounting.Gaps {
				if !kinds[string(g.Kind)] {
					t.Errorf("got no gap %s on the timeline, want every gap there", g.Kind)
				}
			}
			if end == nil || end.args["not_drawn_untimed"] != int64(1) || end.args["not_drawn_aggregated"] != int64(5) ||
				end.args["unfinished_not_drawn"] != int64(1) || end.args["overlap_lanes"] != int64(1) {
				t.Errorf("capture end: got %+v, want not drawn untimed 1, aggregated 5, unfinished 1, overlap lanes 1", end)
			}
			v, _ := d.meta["tally_verdict"].(string)
			if !strings.HasPrefix(v, "incomplete") {
				t.Errorf("got verdict %q, want one starting \"incomplete\"", v)
			}
		})
	}
}

func findSlice(d *decoded, f func(dslice) bool) *dslice {
	for i := range d.slices {
		if f(d.slices[i]) {
			return &d.slices[i]
		}
	}
	return nil
}

// checkAgainstTables: the completed slices per (program, kernel) equal the
// tables in count and total duration (aggregated and untimed dispatches
// excluded: they are not drawable and are counted instead).
func checkAgainstTables(t *testing.T, d *decoded, tables *analysis.Tables, c *capture.Capture) {
	t.Helper()
	type key struct{ prog, name, list string }
	count := map[key]int64{}
	total := map[key]int64{}
	for _, s := range d.slices {
		if s.cat == "unfinished" {
			continue
		}
		p, _ := s.args["program"].(string)
		pos, _ := s.args["position"].(string)
		list, _, _ := strings.Cut(pos, "[")
		k := key{p, s.name, list}
		count[k]++
		total[k] += s.end - s.begin
	}
	want := map[key]bool{}
	for _, pt := range tables.Programs {
		for _, r := range pt.Kernels {
			k := key{pt.Program.Name, r.Kernel.Name, r.Kernel.List}
			want[k] = true
			timedSingles := r.Timed - r.Aggregated
			if count[k] != timedSingles {
				t.Errorf("%v: got %d slices, want %d (the tables' timed single dispatches)", k, count[k], timedSingles)
			}
			if r.Aggregated == 0 && total[k] != r.Total {
				t.Errorf("%v: got slices totalling %d, want the tables' %d", k, total[k], r.Total)
			}
		}
	}
	for k := range count {
		if !want[k] {
			t.Errorf("got slice %v not in the tables, want every slice there", k)
		}
	}
}

// The real hrx trace with a device fault: every timed dispatch is a slice,
// totals equal the report's, the unfinished dispatch ends at the capture's
// end in both formats.
func TestRealTraceMatchesReport(t *testing.T) {
	path := "../examples/decode-fault.kept"
	opts := format.Options{Manifests: []string{"../examples/kernels"}}
	agg := analysis.NewAggregator()
	c, err := format.ReadFile(path, "", &opts, agg)
	if err != nil {
		t.Fatal(err)
	}
	tables := agg.Tables(c)
	for _, f := range []Format{Perfetto, Chrome} {
		sum, d := runDecoded(t, Options{Reader: opts, As: f}, path)
		checkAgainstTables(t, d, tables, c)
		if sum.Stats.Slices != tables.Dispatches() || sum.Complete {
			t.Errorf("%s: got %d slices, verdict %q; want %d (the dispatches) and an incomplete verdict", f, sum.Stats.Slices, sum.Verdict, tables.Dispatches())
		}
		un := c.Accounting.CountOf(capture.UnfinishedDispatch)
		if un == 0 || sum.Stats.Unfinished != un {
			t.Errorf("%s: got %d unfinished drawn, want the capture's %d (not 0)", f, sum.Stats.Unfinished, un)
		}
	}
}

// A failing input is a gap of the whole and never hides the others.
func TestFailedInputIsAGapOfTheWhole(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.bin")
	os.WriteFile(bad, []byte("\x00\x01\x02 not a trace"), 0o644)
	for _, f := range []Format{Perfetto, Chrome} {
		sum, d := runDecoded(t, Options{As: f, Reader: format.Options{Manifests: []string{"../examples/kernels"}}}, bad, "../examples/decode-fault.kept")
		// The summary (tally timeline's line) names what made the input
		// incomplete, as the report's verdict names kinds; the file's
		// metadata lists them per input.
		const file = "incomplete: 1 input failed; 1 input incomplete"
		const named = file + " (device_fault, unfinished_dispatch, incomplete_program, interrupted_recording, unresolved_name)"
		if sum.Failed != 1 || len(d.slices) == 0 || sum.Verdict != named || d.meta["tally_verdict"] != file {
			t.Errorf("%s: got failed %d, %d slices, verdict %q, tally_verdict %q; want 1, some, %q, %q", f, sum.Failed, len(d.slices), sum.Verdict, d.meta["tally_verdict"], named, file)
		}
		if len(sum.Errors) != 1 || !strings.Contains(sum.Errors[0].Error(), bad) {
			t.Errorf("%s: got errors %v, want the one of %s", f, sum.Errors, bad)
		}
		found := false
		for _, s := range d.instants {
			if s.args["kind"] == "failed_input" && s.args["input"] == bad {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: got no failed_input instant, want one for %s", f, bad)
		}
	}
}

// Write errors reach the caller.
func TestWriteErrorReported(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	defer full.Close()
	for _, f := range []Format{Perfetto, Chrome} {
		_, err := Run([]string{"../examples/decode-fault.kept"}, full, Options{As: f})
		if err == nil {
			t.Errorf("%s: writing to /dev/full: got nil, want an error", f)
		}
	}
	w := New(errWriter{}, Perfetto)
	if err := w.Close(); err == nil {
		t.Error("close on a failing writer: got nil, want an error")
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("disk gone") }

func TestFormatForPath(t *testing.T) {
	if FormatForPath("x.JSON") != Chrome || FormatForPath("x.perfetto-trace") != Perfetto || FormatForPath("x.pftrace") != Perfetto {
		t.Error("FormatForPath: got the wrong format, want Chrome for .JSON, Perfetto for .perfetto-trace and .pftrace")
	}
	if _, err := ParseFormat("svg"); err == nil {
		t.Error(`ParseFormat("svg"): got nil, want an error`)
	}
}

// Chrome µs: exactly three decimals, exact for epoch ns via the base.
func TestMicros(t *testing.T) {
	for ns, want := range map[int64]string{0: "0.000", 1: "0.001", 1_234_567: "1234.567", -5: "-0.005"} {
		if got := string(appendMicros(nil, ns)); got != want {
			t.Errorf("%d: %q want %q", ns, got, want)
		}
	}
	if got := string(appendJSONString(nil, "a\"\\\n\x01\xff€")); got != `"a\"\\\n\u0001`+"\ufffd€\"" {
		t.Errorf("json string: got %s, want %s", got, `"a\"\\\n\u0001`+"\ufffd€\"")
	}
}

// The swimlane seed case on the timeline: the 24 ms wait of program
// allreduce is drawn as cross_card_wait, on its chip's core track, in both
// formats — never as the other program's rms_norm (func_id 0 in both).
func TestSwimlaneSeedCase(t *testing.T) {
	const seed = "../format/swimlane/testdata/seed"
	for _, f := range []Format{Perfetto, Chrome} {
		sum, d := runDecoded(t, Options{As: f}, seed)
		waits := 0
		for _, s := range d.slices {
			if s.end-s.begin == 24_000_000 {
				waits++
				if s.name != "cross_card_wait" || s.args["program"] != "allreduce" || !strings.HasPrefix(d.tracks[s.track], "rank ") {
					t.Errorf("%s: got the wait %q of %v on %q, want cross_card_wait of allreduce on a rank track", f, s.name, s.args["program"], d.tracks[s.track])
				}
			}
			if s.args["program"] == "allreduce" && (s.name == "rms_norm" || s.name == "matmul") {
				t.Errorf("%s: got allreduce slice named %q, want allreduce's own kernel names", f, s.name)
			}
		}
		if waits != 2 || sum.Stats.Slices != 10 {
			t.Errorf("%s: got %d waits, %d slices; want 2 and 10", f, waits, sum.Stats.Slices)
		}
		kinds := map[string]bool{}
		for _, s := range d.instants {
			if k, ok := s.args["kind"].(string); ok {
				kinds[k] = true
			}
		}
		if !kinds["ignored_name_map"] || !kinds["no_records"] {
			t.Errorf("%s: got gaps on the timeline %v, want ignored_name_map and no_records", f, kinds)
		}
	}
}

// Every real trace in the repository, in both formats: the file decodes
// with every slice closed and every track named, and its slices equal the
// report's tables in count and total time per program and kernel.
func TestRealTracesRoundTrip(t *testing.T) {
	var paths []string
	for _, glob := range []string{"../format/kineto/testdata/*.gz", "../format/ireeprof/testdata/*.ireeprof", "../selftest/traces/*.kept", "../format/probereader/testdata/*.probe"} {
		m, _ := filepath.Glob(glob)
		paths = append(paths, m...)
	}
	if len(paths) < 10 {
		t.Fatalf("got %d traces, want at least 10", len(paths))
	}
	opts := format.Options{Manifests: []string{"../selftest/traces/manifest.json"}}
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || st.Size() > 1_500_000 {
			continue // keep the test fast
		}
		agg := analysis.NewAggregator()
		c, err := format.ReadFile(p, "", &opts, agg)
		if err != nil {
			continue // inputs the readers refuse are other tests' business
		}
		tables := agg.Tables(c)
		for _, f := range []Format{Perfetto, Chrome} {
			t.Run(filepath.Base(p)+"/"+f.String(), func(t *testing.T) {
				sum, d := runDecoded(t, Options{As: f, Reader: opts}, p)
				if sum.Stats.Misnested == 0 {
					checkAgainstTables(t, d, tables, c)
				}
				if int64(len(d.slices)) != sum.Stats.Slices+sum.Stats.Unfinished {
					t.Errorf("got %d slices decoded, want the %d written", len(d.slices), sum.Stats.Slices+sum.Stats.Unfinished)
				}
			})
		}
	}
}
