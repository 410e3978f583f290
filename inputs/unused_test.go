package inputs

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// unusedItems are the items of the unused_option note of a, "" when it
// has none; the note must be a note.
func unusedItems(t *testing.T, where string, a *capture.Accounting) string {
	t.Helper()
	g := a.Find(format.UnusedOption)
	if g == nil {
		return ""
	}
	if !g.Note || g.Count != int64(len(g.Items)) {
		t.Errorf("%s: got unused_option note %v, count %d, %d items; want a note counting its items", where, g.Note, g.Count, len(g.Items))
	}
	var s []string
	for _, it := range g.Items {
		s = append(s, it.What)
	}
	return strings.Join(s, "\n")
}

// A reader option given and used by no input's reader is a note: of the
// input when the run is one input (every output of it shows its
// accounting), of the whole when it is many. Used by one input's reader,
// or not given, it is no note at all.
func TestUnusedOptionNote(t *testing.T) {
	dir := t.TempDir()
	k0, k1 := filepath.Join(dir, "r0.json.gz"), filepath.Join(dir, "r1.json.gz")
	writeGz(t, k0, rankTrace(0, []string{"gemm"}, []int{30}))
	writeGz(t, k1, rankTrace(1, []string{"gemm"}, []int{40}))
	const hrx = "../examples/decode-fault.kept"
	manifests := format.Options{Manifests: []string{"../examples/kernels"}}
	mapped := format.Options{Manifests: manifests.Manifests, NameMaps: []string{"decode=" + k0}}
	for _, tc := range []struct {
		name         string
		paths        []string
		opts         format.Options
		input, whole string // the items of the note of input 0 and of the whole
	}{
		{"one kineto input, --manifests", []string{k0}, manifests,
			"--manifests ../examples/kernels: no input was read by a reader that uses it (hrx-serial); 1 input read by kineto", ""},
		{"two kineto inputs, --manifests and --name-map", []string{k0, k1}, mapped, "",
			"--manifests ../examples/kernels: no input was read by a reader that uses it (hrx-serial); 2 inputs read by kineto\n" +
				"--name-map decode=" + k0 + ": no input was read by a reader that uses it (swimlane); 2 inputs read by kineto"},
		{"hrx and kineto, --manifests: used by hrx-serial", []string{hrx, k0}, manifests, "", ""},
		{"hrx and kineto, --name-map: only it unused", []string{k0, hrx}, mapped, "",
			"--name-map decode=" + k0 + ": no input was read by a reader that uses it (swimlane); 1 input read by hrx-serial, 1 by kineto"},
		{"one hrx input, --manifests", []string{hrx}, manifests, "", ""},
		{"one kineto input, no option", []string{k0}, format.Options{}, "", ""},
		{"a failed input, --manifests", []string{k0, filepath.Join(dir, "missing.json")}, manifests, "",
			"--manifests ../examples/kernels: no input was read by a reader that uses it (hrx-serial); 1 input read by kineto; 1 input could not be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := Paths(tc.paths...).Read(Options{Reader: tc.opts, Workers: 1})
			if c := run.Inputs[0].Capture; c != nil {
				if got := unusedItems(t, "input 0", &c.Accounting); got != tc.input {
					t.Errorf("input 0's note: got %q, want %q", got, tc.input)
				}
				if tc.input != "" && !c.Accounting.Complete() {
					t.Errorf("input 0: got incomplete %s, want complete: notes never make a capture incomplete", c.Accounting.Gaps[0].Kind)
				}
			}
			for i := 1; i < len(run.Inputs); i++ {
				if c := run.Inputs[i].Capture; c != nil && c.Accounting.Find(format.UnusedOption) != nil {
					t.Errorf("input %d: got an unused_option note, want it only on the whole of a run of many", i)
				}
			}
			if got := unusedItems(t, "the whole", &run.Whole.Accounting); got != tc.whole {
				t.Errorf("the whole's note: got %q, want %q", got, tc.whole)
			}
			own := false
			for _, g := range run.OwnGaps() {
				own = own || g.Kind == format.UnusedOption
			}
			if own != (tc.whole != "") {
				t.Errorf("OwnGaps holds unused_option: got %v, want %v (every output of a run of many states the whole's own gaps)", own, tc.whole != "")
			}
		})
	}
}

// The time breakdown uses two reader options besides the readers:
// --spill-limit bounds its spill for every input it is made for, and
// --unrecorded-wait classifies the waits of dispatches with a launch call
// (rocprof's kernel_trace.csv alone records none; hrx traces do).
func TestUnusedOptionBreakdown(t *testing.T) {
	opts := format.Options{UnrecordedWait: 3 * time.Millisecond, SpillLimit: 1 << 30}
	const (
		wait  = "--unrecorded-wait 3ms: no input was read by a reader that uses it (kineto)"
		spill = "--spill-limit 1 GiB: no input was read by a reader that uses it (kineto); 1 input read by "
	)
	for _, tc := range []struct {
		name      string
		path      string
		breakdown bool
		want      string
	}{
		{"rocprof, no breakdown", "testdata/kernel_trace.csv", false, wait + "; 1 input read by rocprof\n" + spill + "rocprof"},
		{"rocprof, breakdown", "testdata/kernel_trace.csv", true, wait + " or records launch calls, whose waits the time breakdown holds against it; 1 input read by rocprof"},
		{"hrx, no breakdown", "../examples/decode-fault.kept", false, wait + "; 1 input read by hrx-serial\n" + spill + "hrx-serial"},
		{"hrx, breakdown", "../examples/decode-fault.kept", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Reader: opts}
			if tc.breakdown {
				o.Breakdown = &analysis.BreakdownOptions{}
			}
			run := Paths(tc.path).Read(o)
			if got := unusedItems(t, tc.path, &run.Inputs[0].Capture.Accounting); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
