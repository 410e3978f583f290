package swimlane

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// FuzzKernels: any kernel_config.py ends in a table or an error, never a
// panic or a hang. Seeds: the fixtures' configs and the test forms.
//
//	go test ./format/swimlane/ -run '^$' -fuzz FuzzKernels -fuzztime 60s
func FuzzKernels(f *testing.F) {
	for _, p := range []string{"testdata/seed/next_levels/decode/kernel_config.py", "testdata/seed/next_levels/allreduce/kernel_config.py"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(generatedConfig)
	f.Add(handConfig)
	f.Add("KERNELS = [{'func_id': 0, 'name': f'x{1}'}, dict(a=1), [x for x in y]]\nKERNELS += []\n")
	f.Add("KERNELS: T = ({'func_id': 0x_1, 'name': '''a\\\nb'''},)\n")
	f.Fuzz(func(t *testing.T, src string) {
		tab, err := ParseKernels(src)
		if err != nil {
			return
		}
		for id := range tab.Names {
			if id < 0 {
				t.Fatalf("got negative func_id %d, want none", id)
			}
		}
		if !tab.Usable() && len(tab.Names) > 0 {
			t.Fatalf("got names from an unusable table, want none")
		}
	})
}

// FuzzRecords: any chip_swimlane_records.json in a run ends in a capture
// whose accounting holds, or a positioned error, never a panic.
//
//	go test ./format/swimlane/ -run '^$' -fuzz FuzzRecords -fuzztime 60s
func FuzzRecords(f *testing.F) {
	if b, err := os.ReadFile("testdata/seed/dfx_outputs/rank0/d1/chip_swimlane_records.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 1}, "aicore_tasks": [[0, 18446744073709551615, 0, 18446744073709551614, 18446744073709551615]]}`))
	f.Add([]byte(`{"chip_swimlane_level": 2, "metadata": {"clock_freq_hz": 50000000, "core_types": []}, "aicore_tasks": [[-1, 0, 0, 1, 2]], "aicpu_tasks": [[0, 0]]}`))
	dir := f.TempDir()
	run := filepath.Join(dir, "run")
	d := filepath.Join(run, "dfx_outputs", "rank0", "d0")
	os.MkdirAll(d, 0o755)
	os.MkdirAll(filepath.Join(run, "next_levels", "p"), 0o755)
	os.WriteFile(filepath.Join(run, "next_levels", "p", "kernel_config.py"), []byte("KERNELS = [{'func_id': 0, 'name': 'k'}]\n"), 0o644)
	os.WriteFile(filepath.Join(d, "deps.json"), []byte(`{"tasks": [{"task_id": "0", "kernel_ids": [0, 0, -1]}]}`), 0o644)
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(d, "chip_swimlane_records.json"), data, 0o644); err != nil {
			t.Skip()
		}
		c, err := format.ReadPath(run, Name, nil, capture.SinkFunc(func(c *capture.Capture, dd *capture.Dispatch) {
			if dd.Device.Valid && dd.Device.Begin > dd.Device.End {
				t.Fatalf("got reversed interval %+v, want begin <= end", dd.Device)
			}
		}))
		if err != nil {
			return
		}
		if err := c.Accounting.CheckValid(); err != nil {
			t.Fatal(err)
		}
	})
}
