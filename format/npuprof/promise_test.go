package npuprof

import (
	"strings"
	"testing"
	"time"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// Per-launch times below zero or above the ceiling for one dispatch are
// invalid_event lines, not in the tables; a raised ceiling accepts them.
func TestImpossibleTimes(t *testing.T) {
	const (
		good     = "[prof] dec D 1 1 0.05 0.10 1.200 0.020 1.370\n"
		tooLong  = "[prof] dec QKV 1 1 0.05 0.10 4000000.000 0.020 4000000.170\n" // 66.7 min per launch
		negative = "[prof] dec O 1 1 0.05 -0.10 1.200 0.020 1.170\n"
	)
	r := readLog(t, good+tooLong+negative)
	g := r.gap(capture.InvalidEvent)
	if g == nil || g.Count != 2 || len(r.all.Dispatches) != 1 || r.c.Accounting.Complete() {
		t.Fatalf("invalid_event %+v, %d records; want 2 and 1", g, len(r.all.Dispatches))
	}
	if !strings.Contains(g.Items[0].What, "wait per launch 4000000.0 ms, longer than the 3600000.0 ms ceiling") || g.Items[0].Where != "run.log:2" ||
		!strings.Contains(g.Items[1].What, "launch per launch -0.1 ms, a negative time") {
		t.Errorf("got items %+v, want the too-long wait at run.log:2 and the negative launch", g.Items)
	}
	in := r.c.Accounting.InputFor("lines")
	if in.Used != 1 || in.LostTotal() != 2 || in.Skipped[0].Gap != capture.InvalidEvent || in.Skipped[0].First != "run.log:2" {
		t.Errorf("got lines %+v %+v, want 1 used, 2 lost as invalid_event from run.log:2", in, in.Skipped[0])
	}

	// --max-duration 2h: the 66.7-minute launch is a measurement.
	agg := analysis.NewAggregator()
	c, err := readStream(strings.NewReader(good+tooLong), "run.log", int64(2*time.Hour), agg)
	if err != nil || c.Accounting.Find(capture.InvalidEvent) != nil || agg.Tables(c).Dispatches() != 2 {
		t.Errorf("raised ceiling: got err %v, gaps %v; want no error, no invalid_event, 2 dispatches", err, c.Accounting.Gaps)
	}

	// NPU_PROFILE: each mean below the ceiling, but the window n 1-2
	// means 6e6 ms per call; the next line is differenced against n=1.
	r = readLog(t, "[prof] npu_gemm n=1 pack=0.0 quant+launch=0.2 wait=1.0 readback=0.0 ms\n"+
		"[prof] npu_gemm n=2 pack=0.0 quant+launch=0.2 wait=3000000.0 readback=0.0 ms\n"+
		"[prof] npu_gemm n=3 pack=0.0 quant+launch=0.2 wait=2.0 readback=0.0 ms\n"+
		"[prof] npu_gemm n=4 pack=-0.1 quant+launch=0.2 wait=2.0 readback=0.0 ms\n")
	g = r.gap(capture.InvalidEvent)
	if g == nil || g.Count != 2 || !strings.Contains(g.Items[0].What, "window n 1-2") || !strings.Contains(g.Items[1].What, "pack mean -0.1 ms") {
		t.Fatalf("npu_gemm: got invalid_event %+v, want 2 (window n 1-2, pack mean -0.1 ms)", g)
	}
	if p := r.program(t, "npu_gemm run 1"); p.Dispatches != 3 || p.Kernels[0].Total != 6_000_000 {
		t.Errorf("npu_gemm: %d calls, wait total %d ns; want 3 and 6 ms", p.Dispatches, p.Kernels[0].Total)
	}
}

// Every skipped line is classified: untagged output held no profiler
// figure; a tagged line that does not parse or was cut may have, and is
// lost with its gap.
func TestSkipClasses(t *testing.T) {
	log := "[prof] dec D 1 1 0.05 0.10 1.200 0.020 1.370\n" +
		"engine chatter\n\n# comment\n" +
		strings.Repeat("x", maxLine+10) + "\n" +
		"[prof] dec D 1 x\n" +
		"[prof] " + strings.Repeat("9", maxLine+10) + "\n" +
		"[prof] dec D 1 1 0.05 0.10 1.2"
	r := readLog(t, log)
	want := map[string]string{
		"not an NPU engine line": "not_device_work",
		"blank":                  "not_device_work",
		"comment":                "not_device_work",
		"line longer than 1 MiB (not an engine line)": "not_device_work",
		"malformed engine line":                       "device_work_lost skipped_input",
		"partial last line":                           "device_work_lost truncated_input",
	}
	checkClasses(t, r.c.Accounting.InputFor("lines"), want)
	if n := r.c.Accounting.CountOf(capture.SkippedInput); n != 2 {
		t.Errorf("skipped_input %d, want 2 (the bad row and the long tagged line)", n)
	}
	// A cut last line that is not an engine line held nothing.
	r = readLog(t, "[prof] dec D 1 100 0.05 0.10 1.200 0.020 1.370\nengine chat")
	checkClasses(t, r.c.Accounting.InputFor("lines"), map[string]string{"partial last line (not an engine line)": "not_device_work"})
	if !r.c.Accounting.Complete() {
		t.Errorf("got the log incomplete after a cut untagged line (gaps %+v), want it complete", r.c.Accounting.Gaps)
	}
}

func checkClasses(t *testing.T, in *capture.InputCount, want map[string]string) {
	t.Helper()
	for _, s := range in.Skipped {
		got := strings.TrimSpace(string(s.Class) + " " + string(s.Gap))
		if w, ok := want[s.Reason]; !ok || got != w {
			t.Errorf("skip %q: class %q, want %q", s.Reason, got, w)
		}
		delete(want, s.Reason)
	}
	if len(want) > 0 {
		t.Errorf("skips missing: %v", want)
	}
}
