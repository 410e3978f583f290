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
			t.Errorf("%s: got no repeated_input of %s on the run's track, want it drawn", f, twin)
		}
	}
}

// Inputs on different clocks share the timeline's time axis: the run's
// accounting track says their times are not comparable, as a note (not in
// the verdict); inputs on one clock get no such note.
func TestMixedClocksNoted(t *testing.T) {
	hrx := "../examples/decode-fault.kept"                          // monotonic
	kin := "../format/kineto/testdata/hta__cuda_event_sync.json.gz" // unix epoch
	opt := Options{As: Chrome, Reader: format.Options{Manifests: []string{"../examples/kernels"}}}
	note := func(d *decoded) string {
		for _, s := range d.instants {
			if s.args["kind"] == "mixed_clocks" {
				return s.args["what"].(string)
			}
		}
		return ""
	}
	sum, d := runDecoded(t, opt, hrx, kin)
	if n := note(d); !strings.Contains(n, "not comparable") || !strings.Contains(n, "monotonic") || strings.Contains(sum.Verdict, "mixed_clocks") {
		t.Errorf("hrx and Kineto: note %q, verdict %q; want a note naming the clocks, not in the verdict", n, sum.Verdict)
	}
	if _, d := runDecoded(t, opt, hrx); note(d) != "" {
		t.Errorf("one input: mixed_clocks noted %q, want none", note(d))
	}
}
