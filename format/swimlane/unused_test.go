package swimlane

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// Phase streams, uploads and the dispatch dir's other files are not
// dispatches: each record and file is counted as read and skipped with its
// reason, so read == used + skipped covers the whole run, and the run stays
// complete (not using them is no gap).
func TestPhasesUploadsAndOtherFilesCounted(t *testing.T) {
	root := variant(t, func(root string) {
		d0 := filepath.Join(root, "dfx_outputs/rank0/d0")
		write(t, filepath.Join(d0, "chip_swimlane_records.json"), `{"chip_swimlane_level": 4, "metadata": {"clock_freq_hz": 1000000000, "core_types": ["aic", "aiv"]},
			"aicore_tasks": [[0, 0, 0, 100, 300, 5]], "aicpu_tasks": [[0, 0, 90, 310]],
			"aicpu_scheduler_phases": [[{"kind": "dispatch", "start_cycles": 1, "end_cycles": 2}, {"kind": "complete", "start_cycles": 3, "end_cycles": 4}], [{"kind": "drain", "start_cycles": 5, "end_cycles": 6}]],
			"aicpu_orchestrator_phases": [[{"submit_idx": 0, "task_id": "0", "start_cycles": 1, "end_cycles": 2}]],
			"host_device_uploads": [{"start_host_ns": 1, "end_host_ns": 2}, {"start_host_ns": 3, "end_host_ns": 4}, {"start_host_ns": 5, "end_host_ns": 6}]}`)
		write(t, filepath.Join(d0, "deps.json"), `{"tasks": [{"task_id": "0", "kernel_ids": [0, -1, -1]}],
			"tensors": [{"id": "7"}], "edges": [{"pred": "0", "succ": "1"}, {"pred": "0", "succ": "2"}]}`)
		write(t, filepath.Join(d0, "pmu.csv"), "core,cycles\n0,1\n")
		write(t, filepath.Join(d0, "merged_swimlane_20260101_000000.json"), `{"traceEvents": []}`)
		write(t, filepath.Join(d0, "args_dump", "t0.bin"), "x")
	})
	r := read(t, root)
	ph := r.c.Accounting.InputFor(phaseUnit)
	// 3 scheduler here (the seed's three other dispatches hold one each), 1
	// orchestrator, 3 uploads.
	want := map[string]int64{whySchedPhase: 3 + 3, whyAICPUOrch: 1, whyUpload: 3}
	for _, s := range ph.Skipped {
		if want[s.Reason] != s.Count {
			t.Errorf("%s: %d, want %d", s.Reason, s.Count, want[s.Reason])
		}
		delete(want, s.Reason)
	}
	if len(want) != 0 || ph.Read != ph.Used+ph.SkippedTotal() || ph.Read != 10 {
		t.Errorf("got phase records %+v, missing reasons %v; want 10 read, each used or skipped, no reason missing", ph, want)
	}
	of := r.c.Accounting.InputFor(otherFilesUnit)
	wantF := map[string]int64{whyPMU: 1, whyConverterOut: 1, whyOtherDispatch: 1}
	for _, s := range of.Skipped {
		if wantF[s.Reason] != s.Count {
			t.Errorf("%s: %d, want %d", s.Reason, s.Count, wantF[s.Reason])
		}
		delete(wantF, s.Reason)
	}
	if len(wantF) != 0 || of.Read != 3 || of.Used != 0 {
		t.Errorf("got other files %+v, missing reasons %v; want 3 read, none used, no reason missing", of, wantF)
	}
	dep := r.c.Accounting.InputFor(depsUnit)
	if dep.Read != 3 || dep.Used != 0 || dep.SkippedTotal() != 3 {
		t.Errorf("got deps.json edges and tensors %+v, want 3 read, all skipped", dep)
	}
	// Counting them is no gap: only the seed's own gaps remain.
	if gapCount(r.c, capture.SkippedInput) != 0 {
		t.Errorf("got unused streams reported as skipped input, want none")
	}
	// A run without any of them lists neither unit.
	clean := read(t, variant(t, func(root string) {
		for _, p := range []string{"rank0/d0", "rank0/d1", "rank1/d0", "rank1/d1"} {
			f := filepath.Join(root, "dfx_outputs", p, "chip_swimlane_records.json")
			data, err := os.ReadFile(f)
			if err == nil {
				write(t, f, stripPhases(string(data)))
			}
		}
	}))
	for _, in := range clean.c.Accounting.Input {
		if in.Unit == phaseUnit || in.Unit == otherFilesUnit || in.Unit == depsUnit {
			t.Errorf("got unit %q listed for a run without such records: %+v, want none", in.Unit, in)
		}
	}
}

// stripPhases removes the seed records' scheduler phases.
func stripPhases(s string) string {
	if i := strings.Index(s, `, "aicpu_scheduler_phases"`); i >= 0 {
		return s[:i] + "}"
	}
	return s
}
