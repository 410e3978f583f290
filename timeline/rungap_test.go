package timeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/format"
)

// A gap of the whole run that no input's track shows — here one recording
// read twice, in two files that are not the same bytes — is drawn on the
// run's accounting track and named in the verdict, in both formats.
func TestRunGapDrawn(t *testing.T) {
	data, err := os.ReadFile("../examples/decode-fault.kept")
	if err != nil {
		t.Fatal(err)
	}
	twin := filepath.Join(t.TempDir(), "twin.kept")
	if err := os.WriteFile(twin, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{Perfetto, Chrome} {
		sum, d := runDecoded(t, Options{As: f, Reader: format.Options{Manifests: []string{"../examples/kernels"}}}, "../examples/decode-fault.kept", twin)
		if !strings.Contains(sum.Verdict, "repeated_input") {
			t.Errorf("%s: verdict %q, want one naming repeated_input", f, sum.Verdict)
		}
		found := false
		for _, s := range d.instants {
			if s.args["kind"] == "repeated_input" && strings.Contains(s.args["input"].(string), twin) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: repeated_input of %s not drawn on the run's track", f, twin)
		}
	}
}
