package all

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// swimlane: a run directory with one program and one dispatch dir of two
// AICore tasks (level 1, 1 GHz: cycles are ns). A task's identity is its
// (core_id, reg_task_id) within its records file (docs/formats/swimlane.md).
func init() {
	const (
		row0 = "[1, 0, 0, 100, 300]"
		row1 = "[0, 1, 1, 400, 900]"
	)
	promiseFixtures["swimlane"] = append(promiseFixtures["swimlane"], promiseFixture{
		base: swimlaneRun(swimlaneRecords(row0, row1)),
		// A start of -5 is not an unsigned counter: the row does not parse.
		unreadable: swimlaneRun(swimlaneRecords(row0, "[0, 1, 1, -5, 900]")),
		impossible: swimlaneRun(swimlaneRecords(row0, "[0, 1, 1, 400, 9223372036854775807]")),
		repeated:   swimlaneRun(swimlaneRecords(row0, row1, row1)),
		repeatKind: capture.DuplicateEvent,
		// The records document cut after its first row: no closing
		// brackets, so the file does not parse.
		cut: swimlaneRun(func() string {
			full := swimlaneRecords(row0, row1)
			return full[:strings.Index(full, row1)]
		}()),
		endMarker: true,
		records: picked(func() []string { return []string{row0, row1} }, func(t *testing.T, dir string, rows []string) string {
			return swimlaneRun(swimlaneRecords(rows...))(t, dir)
		}),
	})
}

func swimlaneRecords(rows ...string) string {
	return `{"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 1000000000, "core_types": ["aic", "aiv"]}, "aicore_tasks": [` +
		strings.Join(rows, ", ") + `]}`
}

// swimlaneRun writes the run: program decode (0 rms_norm, 1 matmul), its
// dispatch rank0/d0 with records as given.
func swimlaneRun(records string) func(t *testing.T, dir string) string {
	return func(t *testing.T, dir string) string {
		t.Helper()
		files := map[string]string{
			"next_levels/decode/kernel_config.py":             "KERNELS = [\n\t{\"func_id\": 0, \"name\": \"rms_norm\"},\n\t{\"func_id\": 1, \"name\": \"matmul\"},\n]\n",
			"dfx_outputs/rank0/d0/dispatch_program.json":      `{"program": "decode"}`,
			"dfx_outputs/rank0/d0/deps.json":                  `{"tasks": [{"task_id": "0", "kernel_ids": [-1, 0, -1]}, {"task_id": "1", "kernel_ids": [1, -1, -1]}], "tensors": [], "edges": []}`,
			"dfx_outputs/rank0/d0/chip_swimlane_records.json": records,
		}
		for name, data := range files {
			fixture.Write(t, dir, name, []byte(data))
		}
		return dir
	}
}
