package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// --name-map reaches the swimlane reader from every reading command, and
// the report states the names' source.
func TestNameMapFlag(t *testing.T) {
	dir := t.TempDir()
	m := writeFile(t, dir, "allreduce.json", `{"level": 2, "callable_id_to_name": {"0": "barrier_spin", "1": "reduce_add"}}`)
	const seed = "../../format/swimlane/testdata/seed"
	code, out, errOut := tally("report", "--name-map", "allreduce="+m, seed)
	if code != 0 || !strings.Contains(out, "barrier_spin") || !strings.Contains(out, "names from user-supplied map") {
		t.Errorf("report: got exit %d\n%s\n%s\nwant 0, barrier_spin and \"names from user-supplied map\"", code, out, errOut)
	}
	if code, _, errOut := tally("report", "--name-map", "allreduce", seed); code != 2 || !strings.Contains(errOut, "PROGRAM=FILE") {
		t.Errorf("malformed --name-map: got exit %d %q, want 2 and \"PROGRAM=FILE\"", code, errOut)
	}
	js := filepath.Join(dir, "t.json")
	if code, _, errOut := tally("timeline", "--name-map", "allreduce="+m, seed, "-o", js); code != 0 {
		t.Errorf("timeline: got exit %d %q, want 0", code, errOut)
	}
	if !strings.Contains(readFile(t, js), `"barrier_spin"`) {
		t.Error("timeline: got no \"barrier_spin\", want the map's names")
	}
}
