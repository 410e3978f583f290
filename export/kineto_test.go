package export

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// topKeys returns the top-level keys of a JSON object in file order.
func topKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("got %v %v, want a JSON object", tok, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

type kEvent struct {
	Ph   string         `json:"ph"`
	Cat  *string        `json:"cat"`
	Name *string        `json:"name"`
	Pid  *json.Number   `json:"pid"`
	Tid  *json.Number   `json:"tid"`
	Ts   *json.Number   `json:"ts"`
	Dur  *json.Number   `json:"dur"`
	ID   *json.Number   `json:"id"`
	Bp   string         `json:"bp"`
	Args map[string]any `json:"args"`
}

// TestKinetoStructure checks what HTA and TraceLens need
// (shared/specs/outputs.md (c)) on a synthetic input with launches,
// copies, an unfinished dispatch, aggregated and untimed records.
func TestKinetoStructure(t *testing.T) {
	dir := t.TempDir()
	in := writeSynth(t, dir, "k.synth", synthSpec{N: 20, Kernels: 3, Aggregated: true, Unfinished: true, Untimed: true,
		Queues: []capture.Queue{{Name: "7", Device: "GPU 0"}, {Name: "15", Device: "GPU 1"}}, SourceRank: "4"})
	out := filepath.Join(dir, "trace.json")
	run(t, []string{in}, Options{To: Kineto, Out: out, Format: synthFormat})
	b := read(t, out)
	keys := topKeys(t, b)
	if keys[len(keys)-1] != "traceEvents" {
		t.Errorf("got top-level keys %v, want traceEvents last", keys)
	}
	for _, k := range []string{"schemaVersion", "deviceProperties", "distributedInfo", "baseTimeNanoseconds", "displayTimeUnit", "traceName", "tally", "INFO"} {
		if !strings.Contains(strings.Join(keys, " "), k) {
			t.Errorf("got top-level keys %v, want %s among them", keys, k)
		}
	}
	if m := regexp.MustCompile(`"rank":\s+(\d+)`).FindSubmatch(b); m == nil || string(m[1]) != "4" {
		t.Errorf("HTA's rank regex finds %q, want 4", m)
	}
	// ts and dur: decimal µs with exactly three decimals, never negative.
	for _, m := range regexp.MustCompile(`"(ts|dur)":(-?[0-9.]+)`).FindAllSubmatch(b, -1) {
		if !regexp.MustCompile(`^(0|[1-9]\d*)(\.\d{3})$`).Match(m[2]) && string(m[2]) != "0" {
			t.Errorf("got %s %s, want µs with three decimals, not negative", m[1], m[2])
		}
	}
	var doc struct {
		TraceEvents []kEvent       `json:"traceEvents"`
		INFO        []string       `json:"INFO"`
		Tally       map[string]any `json:"tally"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	kernels := map[string]kEvent{} // by correlation
	launches := map[string]kEvent{}
	flowS, flowF := map[string]kEvent{}, map[string]kEvent{}
	var unfinished, copies int
	for _, e := range doc.TraceEvents {
		if e.Cat == nil || e.Name == nil || e.Pid == nil || e.Tid == nil || e.Ts == nil || e.Ph == "" {
			t.Fatalf("got event %+v, want ph, cat, name, pid, tid and ts", e)
		}
		if e.Ph == "X" && e.Dur == nil {
			t.Fatalf("got X event %+v without dur, want one", e)
		}
		switch *e.Cat {
		case "kernel", "gpu_memcpy", "gpu_memset":
			corr := argNum(e, "correlation")
			if argNum(e, "stream") < "0" || corr == "" {
				t.Errorf("got kernel %+v, want a stream and a correlation", e)
			}
			if _, dup := kernels[corr]; dup {
				t.Errorf("got correlation %s used twice, want once", corr)
			}
			kernels[corr] = e
			if *e.Cat == "gpu_memcpy" {
				copies++
			}
		case "cuda_runtime":
			if !strings.Contains(strings.ToLower(*e.Name), "launch") || argNum(e, "correlation") == "" || e.Args["stream"] != nil {
				t.Errorf("got launch event %+v, want a name with launch, a correlation and no stream", e)
			}
			launches[argNum(e, "correlation")] = e
		case "ac2g":
			m := flowS
			if e.Ph == "f" {
				m = flowF
				if e.Bp != "e" {
					t.Errorf("got f %+v, want bp e", e)
				}
			}
			if _, dup := m[e.ID.String()]; dup {
				t.Errorf("got flow id %s twice, want once", e.ID)
			}
			m[e.ID.String()] = e
		case "tally_unfinished":
			unfinished++
			if e.Args["stream"] != nil || e.Args["correlation"] != nil || e.Args["unfinished"] != true || !strings.HasSuffix(*e.Name, " (unfinished)") {
				t.Errorf("got unfinished event %+v, want no stream or correlation, unfinished true, name ending \" (unfinished)\"", e)
			}
		}
	}
	// 20 dispatches, every 10th untimed: 18 kernels, each launched.
	if len(kernels) != 18 || len(launches) != 18 || len(flowS) != 18 || len(flowF) != 18 || unfinished != 1 || copies != 6 {
		t.Errorf("got kernels %d launches %d flows %d/%d unfinished %d copies %d; want 18, 18, 18/18, 1, 6", len(kernels), len(launches), len(flowS), len(flowF), unfinished, copies)
	}
	for id, f := range flowF {
		k, ok := kernels[id]
		if !ok || k.Pid.String() != f.Pid.String() || k.Tid.String() != f.Tid.String() || k.Ts.String() != f.Ts.String() {
			t.Errorf("flow f %s: got %+v, want it on its kernel %+v (pid, tid, ts)", id, f, k)
		}
		if s := flowS[id]; s.Pid.String() != launches[id].Pid.String() || s.Ts.String() != launches[id].Ts.String() {
			t.Errorf("flow s %s: got %+v, want it on its launch %+v", id, s, launches[id])
		}
	}
	info := strings.Join(doc.INFO, "\n")
	for _, want := range []string{"3 aggregated records (30 dispatches", "2 dispatches without ns device times", "1 unfinished dispatches", "GAP unfinished_dispatch (1)"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO lacks %q:\n%s", want, info)
		}
	}
}

func argNum(e kEvent, k string) string {
	if n, ok := e.Args[k].(json.Number); ok {
		return n.String()
	}
	return ""
}

// TestKinetoOneRankPerFile: several inputs become a directory of one
// trace per input, each with its own rank; an input of several ranks is
// refused rather than merged into one rank's file; names TraceLens would
// not load are refused.
func TestKinetoOneRankPerFile(t *testing.T) {
	dir := t.TempDir()
	a := writeSynth(t, dir, "a.synth", synthSpec{N: 2})
	b := writeSynth(t, dir, "b.synth", synthSpec{N: 3}) // not a copy of a: both are read
	out := filepath.Join(dir, "traces")
	run(t, []string{a, b}, Options{To: Kineto, Out: out, Format: synthFormat})
	if got := strings.Join(files(t, out), " "); got != "_tally_export.json input-00000.json input-00001.json" {
		t.Fatalf("got directory holding %s, want _tally_export.json input-00000.json input-00001.json", got)
	}
	for i, f := range []string{"input-00000.json", "input-00001.json"} {
		m := regexp.MustCompile(`"rank":\s+(\d+)`).FindSubmatch(read(t, filepath.Join(out, f)))
		if m == nil || string(m[1]) != strconv.Itoa(i) {
			t.Errorf("%s: rank %q, want %d", f, m, i)
		}
	}
	m := writeSynth(t, dir, "m.synth", synthSpec{N: 2, Queues: []capture.Queue{{Name: "a", Rank: "0"}, {Name: "b", Rank: "1"}}})
	one := filepath.Join(dir, "t.json")
	if _, err := Run([]string{m}, Options{To: Kineto, Out: one, Format: synthFormat}); err == nil || !strings.Contains(err.Error(), "2 ranks") {
		t.Errorf("two ranks: got %v, want an error naming 2 ranks", err)
	}
	if _, err := Run([]string{a}, Options{To: Kineto, Out: filepath.Join(dir, "t.trace"), Format: synthFormat}); err == nil || !strings.Contains(err.Error(), ".json") {
		t.Errorf("a name TraceLens ignores: got %v, want an error naming .json", err)
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, "*")); len(entries) != 4 { // a, b, m and traces
		t.Errorf("got files %v, want only a, b, m and traces", entries)
	}
}

// TestKinetoGzip: OUT.json.gz is gzip-compressed JSON.
func TestKinetoGzip(t *testing.T) {
	dir := t.TempDir()
	a := writeSynth(t, dir, "a.synth", synthSpec{N: 2})
	out := filepath.Join(dir, "t.json.gz")
	run(t, []string{a}, Options{To: Kineto, Out: out, Format: synthFormat})
	zr, err := gzip.NewReader(bytes.NewReader(read(t, out)))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.NewDecoder(zr).Decode(&v); err != nil || v["traceEvents"] == nil {
		t.Fatalf("got %v %v, want a JSON object with traceEvents", err, v)
	}
}

// TestKinetoExample: the shipped hrx example converts, every kernel linked
// to its launch.
func TestKinetoExample(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t.json")
	run(t, []string{example}, exampleOpts(Kineto, out))
	b := read(t, out)
	if n := bytes.Count(b, []byte(`"cat":"kernel"`)); n != 287 {
		t.Errorf("%d kernel events, want 287", n)
	}
	if n := bytes.Count(b, []byte(`"ph":"f"`)); n != 287 {
		t.Errorf("%d flow ends, want 287", n)
	}
	if !bytes.Contains(b, []byte(`"cat":"tally_unfinished","name":"loom_libs:ggml_mul_mat_f32_f32_wmma (unfinished)"`)) {
		t.Error("got no unfinished matmul event, want a tally_unfinished event of ggml_mul_mat_f32_f32_wmma")
	}
}
