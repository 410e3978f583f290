package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

func decodeKineto(t *testing.T, b []byte) ([]kEvent, []string) {
	t.Helper()
	var doc struct {
		TraceEvents []kEvent `json:"traceEvents"`
		INFO        []string `json:"INFO"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc.TraceEvents, doc.INFO
}

// Graph launches (outputs.md (c)): one host launch event per graph launch;
// every kernel it replayed carries that launch's correlation, with no ac2g
// flow. An unfinished dispatch whose queue is known sits on its stream's
// pid/tid with tally_stream, still without stream/correlation args.
func TestKinetoGraphLaunchesAndUnfinishedOnStream(t *testing.T) {
	dir := t.TempDir()
	// 12 dispatches: the first 8 replayed by two graph launches (4 each).
	in := writeSynth(t, dir, "g.synth", synthSpec{N: 12, Kernels: 2, Graph: 8, Unfinished: true, UnfinishedQueue: true,
		Queues: []capture.Queue{{Name: "7", Device: "GPU 0"}, {Name: "9", Device: "GPU 1"}}, SourceRank: "0"})
	out := filepath.Join(dir, "g.json")
	// The synthetic graphs replay their kernels on both devices: read as
	// one program (split by device, each device's kernels would have
	// their own launch event).
	run(t, []string{in}, Options{To: Kineto, Out: out, Format: synthFormat, Reader: format.Options{ProgramBy: format.ByAnnotation}})
	evs, info := decodeKineto(t, read(t, out))
	launches := map[string]kEvent{}
	kernelsOf := map[string]int{}
	var graphLaunches, flows int
	var unfinished *kEvent
	for i, e := range evs {
		switch *e.Cat {
		case "cuda_runtime":
			c := argNum(e, "correlation")
			if _, dup := launches[c]; dup {
				t.Errorf("got two launch events with correlation %s, want one", c)
			}
			launches[c] = e
			if strings.HasPrefix(*e.Name, "graph launch") {
				graphLaunches++
			}
		case "kernel", "gpu_memcpy":
			kernelsOf[argNum(e, "correlation")]++
		case "ac2g":
			flows++
		case "tally_unfinished":
			unfinished = &evs[i]
		}
	}
	if graphLaunches != 2 || len(launches) != 2+4 || flows != 2*4 {
		t.Errorf("graph launches %d, launches %d, flow events %d; want 2, 6, 8", graphLaunches, len(launches), flows)
	}
	for c, e := range launches {
		want := 1
		if strings.HasPrefix(*e.Name, "graph launch") {
			want = 4
		}
		if kernelsOf[c] != want {
			t.Errorf("launch %q (correlation %s) has %d kernels, want %d", *e.Name, c, kernelsOf[c], want)
		}
	}
	if unfinished == nil || unfinished.Pid.String() != "0" || unfinished.Tid.String() != "1" || argNum(*unfinished, "tally_stream") != "1" ||
		unfinished.Args["stream"] != nil || unfinished.Args["correlation"] != nil {
		t.Errorf("got unfinished event %+v, want it on pid 0 tid 1 (its stream) with tally_stream 1, no stream or correlation", unfinished)
	}
	all := strings.Join(info, "\n")
	for _, want := range []string{"8 dispatches were replayed by graph launches", "deviceProperties hold only id and name"} {
		if !strings.Contains(all, want) {
			t.Errorf("INFO lacks %q:\n%s", want, all)
		}
	}
}

// An input holding several ranks (an L3 swimlane run) exports as a
// directory of rank-R.json, each holding only its rank's kernels with its
// rank in distributedInfo; every kernel keeps its own program's name (the
// seed case: the wait is never named after the other program's norm).
func TestKinetoSplitsAnInputByRank(t *testing.T) {
	dir := t.TempDir()
	seed := "../format/swimlane/testdata/seed"
	out := filepath.Join(dir, "run")
	run(t, []string{seed}, Options{To: Kineto, Out: out, Reader: acrossChips})
	names := map[string]int{}
	total := 0
	for _, rank := range []string{"0", "1"} {
		b := read(t, filepath.Join(out, "rank-"+rank+".json"))
		if m := regexp.MustCompile(`"rank":\s+(\d+)`).FindSubmatch(b); m == nil || string(m[1]) != rank {
			t.Errorf("rank-%s.json: got HTA's rank regex finding %q, want %s", rank, m, rank)
		}
		evs, info := decodeKineto(t, b)
		for _, e := range evs {
			if *e.Cat != "kernel" {
				continue
			}
			total++
			prog, _ := e.Args["program"].(string)
			names[prog+"/"+*e.Name]++
			if e.Pid.String() != "0" { // each file lists its own rank's one chip
				t.Errorf("rank-%s.json: got a kernel on pid %s, want 0", rank, e.Pid)
			}
		}
		if !strings.Contains(strings.Join(info, "\n"), "this file holds rank "+rank) {
			t.Errorf("rank-%s.json: got INFO without the rank, want \"this file holds rank %s\"", rank, rank)
		}
	}
	if total != 10 || names["allreduce/cross_card_wait"] != 2 || names["allreduce/rms_norm"] != 0 || names["decode/rms_norm"] != 4 {
		t.Errorf("got %d kernels %v, want 10 with allreduce/cross_card_wait 2, allreduce/rms_norm 0, decode/rms_norm 4", total, names)
	}
	if _, err := os.Stat(filepath.Join(out, datasetMarker)); err != nil {
		t.Error(err)
	}
	// One file cannot hold several ranks: refused, with what to do instead.
	_, err := Run([]string{seed}, Options{To: Kineto, Out: filepath.Join(dir, "one.json")})
	if err == nil || !strings.Contains(err.Error(), "-o DIR") {
		t.Errorf("several ranks into one .json: got %v, want an error saying -o DIR", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "one.json")); err == nil {
		t.Error("got a file left by a refused export, want none")
	}
}

// Kernels without a launch event are written (HTA and TraceLens see them)
// and INFO says how many and how much device time, since TraceLens leaves
// them out of its GPU timeline by default (outputs.md (c), "Gaps").
func TestKinetoUnlinkedKernelsCounted(t *testing.T) {
	dir := t.TempDir()
	// 9 dispatches, kernels 0, 1, 2 (100, 200, 300 ns); every 3rd (kernel 0) has no launch.
	in := writeSynth(t, dir, "u.synth", synthSpec{N: 9, Kernels: 3, NoLaunchEvery: 3, Queues: []capture.Queue{{Name: "7", Device: "GPU 0"}}})
	out := filepath.Join(dir, "u.json")
	run(t, []string{in}, Options{To: Kineto, Out: out, Format: synthFormat})
	b := read(t, out)
	evs, info := decodeKineto(t, b)
	kernels, launches := 0, 0
	for _, e := range evs {
		switch *e.Cat {
		case "kernel", "gpu_memcpy":
			kernels++
		case "cuda_runtime":
			launches++
		}
	}
	if kernels != 9 || launches != 6 {
		t.Errorf("%d kernels, %d launches; want 9, 6", kernels, launches)
	}
	if !strings.Contains(strings.Join(info, "\n"), "3 kernels (300 ns of device time) are written without a launch event") {
		t.Errorf("got INFO without the 3 kernels written without a launch event, want that line in:\n%s", strings.Join(info, "\n"))
	}
	if !strings.Contains(string(b), `"kernels_without_launch":3,"kernels_without_launch_ns":300`) {
		t.Error(`got "tally".events without kernels_without_launch, want 3 and 300 ns`)
	}
}

// INFO states how many unfinished dispatches the file holds as events: a
// gap lists only its first capture.MaxItems, so the rest are counted, not
// written, and INFO must not claim them written.
func TestKinetoUnfinishedBeyondListedCounted(t *testing.T) {
	dir := t.TempDir()
	n := capture.MaxItems + 7
	in := writeSynth(t, dir, "u.synth", synthSpec{N: 4, Kernels: 2, Unfinished: true, UnfinishedN: n, SourceRank: "0"})
	out := filepath.Join(dir, "u.json")
	run(t, []string{in}, Options{To: Kineto, Out: out, Format: synthFormat})
	evs, info := decodeKineto(t, read(t, out))
	events := 0
	for _, e := range evs {
		if *e.Cat == "tally_unfinished" {
			events++
		}
	}
	if events != capture.MaxItems {
		t.Fatalf("%d unfinished events, want %d (the listed ones)", events, capture.MaxItems)
	}
	all := strings.Join(info, "\n")
	for _, want := range []string{fmt.Sprintf("%d unfinished dispatches are written", capture.MaxItems), fmt.Sprintf("7 of the %d unfinished dispatches are not written", n)} {
		if !strings.Contains(all, want) {
			t.Errorf("INFO lacks %q:\n%s", want, all)
		}
	}
}
