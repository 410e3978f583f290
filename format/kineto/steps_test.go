package kineto

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

func hostStepEv(n int, ts, dur string) string {
	return fmt.Sprintf(`{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 100, "tid": 100, "ts": %s, "dur": %s}`, n, ts, dur)
}

// callOn is a launch call on host thread tid.
func callOn(name string, tid int, corr, ts, dur string) string {
	return fmt.Sprintf(`{"ph": "X", "cat": "cuda_runtime", "name": %q, "pid": 100, "tid": %d, "ts": %s, "dur": %s, "args": {"cbid": 211, "correlation": %s}}`, name, tid, ts, dur, corr)
}

// programOf maps kernel name → "program/instance" of its dispatches.
func programOf(r *result) map[string]string {
	out := map[string]string{}
	for _, d := range r.disp {
		out[r.c.Kernels[d.Kernel].Name] = fmt.Sprintf("%s/%d", r.c.Programs[d.Program].Name, d.Instance)
	}
	return out
}

func TestStepRangeAttribution(t *testing.T) {
	events := []string{
		hostStepEv(7, "1000", "100"),
		hostStepEv(8, "1100", "100"),
		// Step 7: forward on the main thread, inside the GPU annotation.
		callOn("cudaLaunchKernel", 100, "1", "1010", "2"), kernelOn("fwd", 7, "1", "1020", "5"),
		// Backward from the autograd thread: outside every GPU annotation.
		callOn("cudaLaunchKernel", 200, "2", "1040", "2"), kernelOn("bwd", 7, "2", "1060", "5"),
		// The optimizer keeps its own (finer) annotation.
		callOn("cudaLaunchKernel", 100, "3", "1090", "2"), kernelOn("opt", 7, "3", "1092", "2"),
		// Step 8: a graph replay launched inside the step, no GPU annotation.
		callOn("cudaGraphLaunch", 100, "4", "1110", "2"), kernelOn("g1", 7, "4", "1120", "2"), kernelOn("g2", 7, "4", "1130", "2"),
		// After the last step: stays unannotated.
		callOn("cudaLaunchKernel", 100, "5", "1300", "2"), kernelOn("late", 7, "5", "1305", "2"),
		// No launch at all.
		kernelOn("orphan", 7, "99", "1400", "2"),
		annot("ProfilerStep#7", 7, "1019", "10", 1),
		annot("Optimizer.step#SGD.step", 7, "1091", "5", 2),
	}
	r := readOpts(t, trace(events), nil)
	want := map[string]string{
		"fwd": "ProfilerStep/0", "bwd": "ProfilerStep/0", "opt": "Optimizer.step#SGD.step/0",
		"g1": "ProfilerStep/1", "g2": "ProfilerStep/1", "late": unannotated + "/-1", "orphan": unannotated + "/-1",
	}
	if got := programOf(r); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("programs\n got %v\nwant %v", got, want)
	}
	var step *capture.Program
	for i := range r.c.Programs {
		if r.c.Programs[i].Name == "ProfilerStep" {
			step = &r.c.Programs[i]
		}
	}
	if step == nil || step.Instances != 2 || !strings.Contains(strings.Join(step.Notes, "|"), "attributed by the step range: 3 dispatches without an enclosing GPU annotation") {
		t.Fatalf("got step program %+v, want 2 instances and a note on 3 dispatches attributed by the step range", step)
	}
	if v, _ := field(r.c, "report", "programs"); !strings.Contains(fmt.Sprint(v), "3 dispatches attributed by the step range") {
		t.Errorf("got programs line %q, want it to say %q", v, "3 dispatches attributed by the step range")
	}

	// The former grouping stays available.
	r = readOpts(t, trace(events), &format.Options{ProgramBy: "gpu-annotation"})
	want["bwd"], want["g1"], want["g2"] = unannotated+"/-1", unannotated+"/-1", unannotated+"/-1"
	if got := programOf(r); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("gpu-annotation programs\n got %v\nwant %v", got, want)
	}
	if v, _ := field(r.c, "report", "programs"); !strings.Contains(fmt.Sprint(v), "gpu-annotation") {
		t.Errorf("got programs line %q, want it to say %q", v, "gpu-annotation")
	}
}

// The HTA MI250 training sample: 7 kernels of step 1 are launched from the
// autograd thread (tid 598009) and lie outside the GPU ProfilerStep#1
// annotation; Optimizer.step keeps its own.
func TestStepRangeOnTrainingSample(t *testing.T) {
	path := "testdata/hta__amd_mi250_minitoy_train_rocm6.2.json.gz"
	count := func(opts *format.Options) map[string]int64 {
		s := readSample(t, path, opts)
		n := map[string]int64{}
		for _, d := range s.disp {
			n[s.c.Programs[d.Program].Name]++
		}
		return n
	}
	got := count(&format.Options{})
	if got["ProfilerStep"] != 15 || got["Optimizer.step#SGD.step"] != 1 || got[unannotated] != 0 {
		t.Errorf("annotation: got %v, want ProfilerStep 15, Optimizer.step#SGD.step 1, none unannotated", got)
	}
	got = count(&format.Options{ProgramBy: "gpu-annotation"})
	if got["ProfilerStep"] != 8 || got[unannotated] != 7 || got["Optimizer.step#SGD.step"] != 1 {
		t.Errorf("gpu-annotation: got %v, want ProfilerStep 8, Optimizer.step#SGD.step 1, %s 7", got, unannotated)
	}
}
