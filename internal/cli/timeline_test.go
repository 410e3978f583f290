package cli

import (
	"encoding/json"
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
