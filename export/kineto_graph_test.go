package export

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
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
	run(t, []string{in}, Options{To: Kineto, Out: out, Format: synthFormat})
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
				t.Errorf("two launch events with correlation %s", c)
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
		t.Errorf("unfinished event not on its stream's pid/tid: %+v", unfinished)
	}
	all := strings.Join(info, "\n")
	for _, want := range []string{"8 dispatches were replayed by graph launches", "deviceProperties hold only id and name"} {
		if !strings.Contains(all, want) {
			t.Errorf("INFO lacks %q:\n%s", want, all)
		}
	}
}
