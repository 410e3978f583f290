package swimlane

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// Every skipped row and dispatch dir is classified where it is counted:
// rows and dirs that held (or may have held) a kernel execution are lost,
// each with the gap that lists it; phases, uploads, edges and other files
// never did.
func TestSkipClasses(t *testing.T) {
	rec := `{"chip_swimlane_level": 2, "metadata": {"clock_freq_hz": 1000000000, "core_types": ["aic", "aiv"]},
		"aicore_tasks": [[0, 0, 0, 100, 300], [1, 1, 1, 400, 900], [1, 1, 1, 400, 900], [1, 2, 2, 0, 50], [1, 3, 3, 500], [4294967296, 4, 4, 1, 2]],
		"aicpu_tasks": [[0, 0, 90, 310], [0, 0, 90, 310], [1, 1, 390, 910], [1, 9, 10, 20], [1, 2]],
		"aicpu_scheduler_phases": [[{"kind": "dispatch"}]]}`
	r := read(t, variant(t, func(root string) {
		write(t, filepath.Join(root, "dfx_outputs/rank0/d0/chip_swimlane_records.json"), rec)
	}))
	want := map[string]map[string]string{
		"aicore rows": {
			"duplicate (core_id, reg_task_id)":                         "device_work_lost duplicate_event",
			"invalid times (zero = not recorded, or end before start)": "device_work_lost invalid_event",
			"malformed row (fewer than 5 unsigned integers)":           "device_work_lost skipped_input",
			"malformed row (core_id out of range)":                     "device_work_lost skipped_input",
		},
		"aicpu rows": {
			"second AICPU row for one (core_id, reg_task_id)":   "device_work_lost duplicate_event",
			"no AICore row (AICore buffer dropped on rotation)": "device_work_lost dropped_records",
			"malformed row (fewer than 4 unsigned integers)":    "device_work_lost skipped_input",
		},
		"dispatch dirs": {
			"no chip_swimlane_records.json": "device_work_lost no_records",
		},
		phaseUnit: {whySchedPhase: "not_device_work"},
	}
	for unit, reasons := range want {
		in := r.c.Accounting.InputFor(unit)
		for _, s := range in.Skipped {
			got := strings.TrimSpace(string(s.Class) + " " + string(s.Gap))
			if w, ok := reasons[s.Reason]; !ok || got != w {
				t.Errorf("%s skipped (%s): %q, want %q", unit, s.Reason, got, w)
			}
			delete(reasons, s.Reason)
		}
		if len(reasons) > 0 {
			t.Errorf("%s: got skips missing: %v, want each reason listed", unit, reasons)
		}
	}
	// The repeated rows are each one duplicate_event item, the first row
	// of each key in the tables: rank0/d0 holds 2 tasks.
	g := r.c.Accounting.Find(capture.DuplicateEvent)
	if g == nil || g.Count != 2 || !strings.Contains(g.Items[0].What, "core 1 reg_task_id 1 repeats aicore_tasks[1]") || g.Items[0].Where != "rank0/d0 aicore_tasks[2]" {
		t.Fatalf("got duplicate_event %+v, want 2, the first core 1 reg_task_id 1 at rank0/d0 aicore_tasks[2]", g)
	}
	n := 0
	for _, d := range r.disp {
		if r.c.Programs[d.Program].Name == "decode" && r.c.Queues[d.Queue].Rank == "0" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("rank0/d0 tasks in the tables: %d, want 2", n)
	}
}

// A simulator dispatch and a records file that does not parse are dispatch
// dirs lost with their gaps.
func TestLostDispatchDirs(t *testing.T) {
	r := read(t, variant(t, func(root string) {
		write(t, filepath.Join(root, "dfx_outputs/rank0/d0/chip_swimlane_records.json"), `{"chip_swimlane_level": 1, "aicore_tasks": [`)
		p := filepath.Join(root, "dfx_outputs/rank1/d0/chip_swimlane_records.json")
		data := fixture.Read(t, p)
		write(t, p, strings.Replace(string(data), `"metadata": {`, `"metadata": {"platform": "a2a3sim", `, 1))
	}))
	got := map[string]string{}
	for _, s := range r.c.Accounting.InputFor("dispatch dirs").Skipped {
		got[s.Reason] = string(s.Class) + " " + string(s.Gap)
	}
	for reason, w := range map[string]string{
		"records unreadable":                  "device_work_lost skipped_input",
		"simulator platform: not convertible": "device_work_lost not_convertible",
		"no chip_swimlane_records.json":       "device_work_lost no_records",
	} {
		if got[reason] != w {
			t.Errorf("dispatch dirs skipped (%s): %q, want %q", reason, got[reason], w)
		}
	}
}
