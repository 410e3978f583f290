package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// hugeSynth is an input whose figures sum past math.MaxInt64: two
// aggregated records of MaxInt64 dispatches and ns, two unfinished gaps of
// MaxInt64 dispatches. Every total written from it must pin at MaxInt64: a
// wrapped one is negative and reads as no dispatches, no gap, no time.
func hugeSynth(t *testing.T, dir string) string {
	return writeSynth(t, dir, "huge.synth", synthSpec{N: 2, Kernels: 1, Aggregated: true, AggCount: math.MaxInt64, AggDevice: math.MaxInt64, AggPerKernel: 2,
		UnfinishedGaps: []int64{math.MaxInt64, math.MaxInt64}})
}

const maxI64 = int64(math.MaxInt64)

// TestSumsSaturateDataset: the dataset's inputs and programs tables (and
// the marker's inputs) pin their dispatch and gap totals at MaxInt64.
func TestSumsSaturateDataset(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ds")
	run(t, []string{hugeSynth(t, dir)}, Options{To: Parquet, Out: out, Format: synthFormat})
	ins := readParquet[InputRow](t, filepath.Join(out, "inputs.parquet"))
	if len(ins) != 1 {
		t.Fatalf("got %d input rows, want 1", len(ins))
	}
	if r := ins[0]; r.Dispatches != maxI64 || r.AggregatedDispatches != maxI64 || r.Gaps != maxI64 {
		t.Errorf("input row: got dispatches %d, aggregated_dispatches %d, gaps %d, want %d each", r.Dispatches, r.AggregatedDispatches, r.Gaps, maxI64)
	}
	progs := readParquet[ProgramRow](t, filepath.Join(out, "programs.parquet"))
	if len(progs) != 1 || progs[0].Gaps != maxI64 {
		t.Errorf("program rows: got %+v, want one with gaps %d", progs, maxI64)
	}
	var marker struct{ Inputs []map[string]any }
	decodeNumbers(t, read(t, filepath.Join(out, datasetMarker)), &marker)
	for _, k := range []string{"dispatches", "aggregated_dispatches", "gaps"} {
		if len(marker.Inputs) != 1 || fmt.Sprint(marker.Inputs[0][k]) != "9223372036854775807" {
			t.Errorf("marker inputs[0].%s: got %v, want 9223372036854775807", k, marker.Inputs)
		}
	}
}

// TestSumsSaturatePProf: a sample's dispatches, GPU time and unfinished
// values pin at MaxInt64.
func TestSumsSaturatePProf(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.pb.gz")
	run(t, []string{hugeSynth(t, dir)}, Options{To: PProf, Out: out, Format: synthFormat})
	p := parseProfile(t, out)
	got := map[string][3]int64{}
	for _, s := range p.Sample {
		got[s.Location[0].Line[0].Function.Name+" "+s.Label["status"][0]] = [3]int64{s.Value[0], s.Value[1], s.Value[2]}
	}
	for key, want := range map[string][3]int64{
		"kern<0, float> aggregated":           {maxI64, maxI64, 0},
		"(unfinished, not listed) unfinished": {maxI64, 0, maxI64},
	} {
		if got[key] != want {
			t.Errorf("sample %s: got %v, want %v (all: %v)", key, got[key], want, got)
		}
	}
}

// TestSumsSaturateKineto: what a Kineto file did not write pins at
// MaxInt64 in its tally block and INFO.
func TestSumsSaturateKineto(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "trace.json")
	run(t, []string{hugeSynth(t, dir)}, Options{To: Kineto, Out: out, Format: synthFormat})
	var doc struct {
		INFO  []string `json:"INFO"`
		Tally struct {
			Events   map[string]any   `json:"events"`
			Programs []map[string]any `json:"programs"`
		} `json:"tally"`
	}
	decodeNumbers(t, read(t, out), &doc)
	const max = "9223372036854775807"
	ev := doc.Tally.Events
	if fmt.Sprint(ev["aggregated_dispatches_not_written"]) != max {
		t.Errorf("tally.events: got %v, want aggregated_dispatches_not_written %s", ev, max)
	}
	if len(doc.Tally.Programs) != 1 || fmt.Sprint(doc.Tally.Programs[0]["not_written"]) != max {
		t.Errorf("tally.programs: got %v, want not_written %s", doc.Tally.Programs, max)
	}
	info := strings.Join(doc.INFO, "\n")
	for _, want := range []string{"2 aggregated records (" + max + " dispatches"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO: got\n%s\nwant it to contain %q", info, want)
		}
	}
}

// decodeNumbers decodes b into v, numbers kept exact (json.Number).
func decodeNumbers(t *testing.T, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatal(err)
	}
}

// TestKinetoUnlinkedNSSaturates: the device time of kernels written
// without a launch pins at MaxInt64. Through a reader, every dispatch is
// held to the ceiling (capture.Checked), so this sum passes MaxInt64 only
// over some 10^5 dispatches: the sink is fed two directly.
func TestKinetoUnlinkedNSSaturates(t *testing.T) {
	k, err := newKinetoSpool(filepath.Join(t.TempDir(), "t.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer k.close()
	c := &capture.Capture{Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true}}
	p := c.AddProgram(capture.Program{Name: "step"})
	kern := c.AddKernel(capture.Kernel{Program: p, Name: "k"})
	sink := k.sink(&input{})
	for range 2 {
		d := capture.Dispatch{Program: p, Kernel: kern, Queue: capture.NoQueue, Ordinal: -1, Link: capture.LinkNoLaunch,
			Device: capture.Interval{Begin: 0, End: math.MaxInt64 - 1, Valid: true}}
		sink.Dispatch(c, &d)
	}
	if u := k.unlinked[p]; u == nil || u.n != 2 || u.ns != maxI64 {
		t.Errorf("unlinked: got %+v, want 2 kernels, %d ns", u, maxI64)
	}
}
