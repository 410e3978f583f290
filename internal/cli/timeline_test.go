package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTimelineCLI(t *testing.T) {
	dir := t.TempDir()
	pf := filepath.Join(dir, "run.perfetto-trace")
	code, _, errOut := tally("timeline", "--manifests", kernels, example, "-o", pf)
	if code != 0 {
		t.Fatalf("got exit %d: %s, want 0", code, errOut)
	}
	if st, err := os.Stat(pf); err != nil || st.Size() == 0 || !strings.Contains(errOut, "1 unfinished") {
		t.Fatalf("perfetto file: got %v; %s; want a written file and \"1 unfinished\"", err, errOut)
	}
	js := filepath.Join(dir, "run.json")
	if code, _, errOut = tally("timeline", example, "-o", js, "--strict"); code != 1 {
		t.Errorf("--strict on an incomplete capture: got exit %d (%s), want 1", code, errOut)
	}
	var doc struct {
		OtherData map[string]any `json:"otherData"`
	}
	data := readFile(t, js)
	if err := json.Unmarshal([]byte(data), &doc); err != nil || !strings.HasPrefix(doc.OtherData["tally_verdict"].(string), "incomplete") {
		t.Errorf("chrome json: got %v %v, want an \"incomplete\" tally_verdict", err, doc.OtherData)
	}
	// An input that cannot be read is named on standard error with why,
	// as the timeline's accounting track names it.
	missing := filepath.Join(dir, "missing.kept")
	if code, _, errOut := tally("timeline", example, missing, "-o", js); code != 0 || !strings.Contains(errOut, "tally timeline: FAILED: open "+missing) {
		t.Errorf("one input missing: got exit %d, stderr %q; want 0 and a FAILED line naming %s", code, errOut, missing)
	}
	// Usage errors, unknown --as, all inputs failing, unwritable outputs.
	for _, args := range [][]string{
		{"timeline", example},
		{"timeline", "-o", js},
		{"timeline", example, "-o", js, "--as", "svg"},
		{"timeline", filepath.Join(dir, "missing.kept"), "-o", js},
		{"timeline", example, "-o", "/dev/full"},
		{"timeline", example, "-o", filepath.Join(dir, "no", "such", "dir.json")},
		{"timeline", t.TempDir(), "-o", js},
	} {
		if code, _, _ := tally(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// kinetoAt is a Kineto trace of one launched kernel at ts (µs).
func kinetoAt(ts int64) string {
	return fmt.Sprintf(`{"traceEvents":[{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","ts":%d,"dur":2,"pid":0,"tid":1,"args":{"correlation":1}},`+
		`{"ph":"X","cat":"kernel","name":"gemm","ts":%d,"dur":10,"pid":0,"tid":7,"args":{"device":0,"stream":7,"correlation":1}}]}`, ts, ts+5)
}

// The line on standard error names what made an input incomplete, as the
// report's verdict names gap kinds: here a dispatch not drawn because it
// lies before the time base (a Chrome file's base is the first input's
// epoch time; the second input's boot time is before it), then the
// capture's own gaps.
func TestTimelineLineNamesKinds(t *testing.T) {
	dir := t.TempDir()
	epoch, boot := filepath.Join(dir, "epoch.json"), filepath.Join(dir, "boot.json")
	os.WriteFile(epoch, []byte(kinetoAt(1764547200000000)), 0o644)
	os.WriteFile(boot, []byte(kinetoAt(1000)), 0o644)
	out := filepath.Join(dir, "t.json")
	code, _, errOut := tally("timeline", epoch, boot, "-o", out)
	if want := "; incomplete: 1 input incomplete (not_drawn_before_base)\n"; code != 0 || !strings.HasSuffix(errOut, want) {
		t.Errorf("a dispatch before the base: got exit %d, stderr %q; want 0 and a line ending %q", code, errOut, want)
	}
	// Negative arm: in the other order nothing is before the base.
	if code, _, errOut := tally("timeline", boot, epoch, "-o", out); code != 0 || !strings.HasSuffix(errOut, "; complete\n") {
		t.Errorf("boot time first: got exit %d, stderr %q; want 0 and a complete line", code, errOut)
	}
	// The capture's gaps are named too, each once.
	code, _, errOut = tally("timeline", example, "-o", out)
	if want := "; incomplete: 1 input incomplete (device_fault, unfinished_dispatch, incomplete_program, interrupted_recording, unresolved_name)\n"; code != 0 || !strings.HasSuffix(errOut, want) {
		t.Errorf("%s: got exit %d, stderr %q; want 0 and a line ending %q", example, code, errOut, want)
	}
}
